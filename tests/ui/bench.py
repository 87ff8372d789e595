"""The board UI's speed in headless Chromium (contract §25), by the page's own
performance marks: a board of 1,000 cards in 6 columns, from navigation to
every column drawn ("board"), and the long tasks (over 50 ms) during a drag.
The reference, measured in the same page and run: the board's JSON fetched
and parsed with no drawing.

Run: `python3 tests/ui/bench.py` (BOARD_TEST_SERVER=target/release/board-server
for the release build; the figures in BENCHMARKS.md use it)."""

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from conftest import CHROMIUM, CHROMIUM_ARGS, SERVER, Server, new_page, sync_playwright  # noqa: E402

CARDS, COLUMNS, RUNS = 1000, 6, 7


def seed(s):
    for name in ("Review", "Blocked", "Shipped"):
        s.ok("POST", "/api/columns", {"tenantId": s.tenant, "name": name})
    columns = [c["id"] for c in s.board()["columns"]]
    assert len(columns) == COLUMNS
    label = s.ok("POST", "/api/labels", {"tenantId": s.tenant, "name": "feature", "color": "blue"})["id"]
    me = s.ok("GET", "/api/me")["id"]
    for i in range(CARDS):
        s.ok("POST", "/api/cards", {"tenantId": s.tenant, "columnId": columns[i % COLUMNS],
                                    "title": f"Card {i}: a title of a usual length", "labelIds": [label],
                                    "assigneeIds": [me] if i % 3 == 0 else [],
                                    "dueAt": "2026-12-24T12:00:00Z" if i % 4 == 0 else None})


def main():
    s = Server("sqlite")
    try:
        seed(s)
        shown, reference, long_tasks, drags = [], [], [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = new_page(browser, s, width=1440, height=900)
            for _ in range(RUNS):
                page.goto(f"/w/{s.tenant}")
                page.wait_for_function("() => performance.getEntriesByName('board').length > 0")
                shown.append(page.evaluate("performance.getEntriesByName('board')[0].duration"))
                assert page.get_by_role("region").count() == COLUMNS
                assert page.locator("li.card").count() == CARDS
                reference.append(page.evaluate("""async (url) => {
                    const t0 = performance.now();
                    const r = await fetch(url, {cache: 'no-store'});
                    await r.json();
                    return performance.now() - t0;
                }""", f"/api/board?tenant={s.tenant}"))
            # Drags across three columns, each dropped (the card moves, the
            # server answers, the board follows), watched for long tasks.
            page.evaluate("""() => {
                window.longTasks = [];
                new PerformanceObserver((l) => window.longTasks.push(...l.getEntries().map(e => e.duration)))
                    .observe({type: 'longtask'});
            }""")
            before = len(s.board()["columns"][3]["cards"])
            for run in range(RUNS):
                card = page.locator("li.card").nth(run)
                box = card.bounding_box()
                target = page.get_by_role("region").nth(3).bounding_box()
                page.mouse.move(box["x"] + 30, box["y"] + 10)
                page.mouse.down()
                page.mouse.move(target["x"] + 60, target["y"] + 300, steps=40)
                page.mouse.up()
                drags.append(page.evaluate("performance.getEntriesByName('drag').slice(-1)[0].duration"))
                page.wait_for_timeout(300)  # the answer arrives and is drawn
            page.wait_for_timeout(500)
            assert len(s.board()["columns"][3]["cards"]) == before + RUNS
            long_tasks = page.evaluate("window.longTasks")
            browser.close()
    finally:
        s.stop()
    med = statistics.median
    print(json.dumps({
        "server": str(SERVER),
        "board_shown_ms": {"median": round(med(shown)), "max": round(max(shown)), "runs": [round(x) for x in shown]},
        "reference_fetch_ms": {"median": round(med(reference)), "runs": [round(x) for x in reference]},
        "ratio_shown_to_fetch": round(med(shown) / med(reference), 1),
        "drag_ms (pointer down to up)": {"median": round(med(drags))},
        "long_tasks_during_drags_ms": [round(x) for x in long_tasks],
    }, indent=2))


if __name__ == "__main__":
    main()
