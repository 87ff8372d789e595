"""The board UI's speed in headless Chromium (api.md §25), by the page's own
performance marks: a board of 1,000 cards in 6 columns, from navigation to
every column drawn ("board"), the long tasks (over 50 ms) during a drag, and
a card of 500 comments, from the dialog's opening to its thread drawn
("comments"). The references, measured in the same page and run: the board's
JSON, and the thread's (`?html=true`), fetched and parsed with no drawing.

Run: `python3 tests/ui/bench.py` (BOARD_TEST_SERVER=target/release/board-server
for the release build; the figures in BENCHMARKS.md use it)."""

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from conftest import CHROMIUM, CHROMIUM_ARGS, SERVER, Server, new_page, sync_playwright  # noqa: E402

CARDS, COLUMNS, RUNS, COMMENTS = 1000, 6, 7, 500


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
    talked = s.board()["columns"][0]["cards"][0]["id"]
    for i in range(COMMENTS):
        s.ok("POST", f"/api/cards/{talked}/comments",
             {"content": f"Comment {i}: **a** comment of a usual length, with `code` and a [link](https://example.com)."})
    return talked


def fetched(page, url):
    """Milliseconds to fetch and parse `url`'s JSON in the page (no drawing)."""
    return page.evaluate("""async (url) => {
        const t0 = performance.now();
        const r = await fetch(url, {cache: 'no-store'});
        await r.json();
        return performance.now() - t0;
    }""", url)


def main():
    s = Server("sqlite")
    try:
        talked = seed(s)
        shown, reference, long_tasks, drags, thread, thread_reference = [], [], [], [], [], []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            page = new_page(browser, s, width=1440, height=900)
            for _ in range(RUNS):
                page.goto(f"/w/{s.tenant}")
                page.wait_for_function("() => performance.getEntriesByName('board').length > 0")
                shown.append(page.evaluate("performance.getEntriesByName('board')[0].duration"))
                assert page.get_by_role("region").count() == COLUMNS
                assert page.locator("li.card").count() == CARDS
                reference.append(fetched(page, f"/api/board?tenant={s.tenant}"))
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
            # The card of 500 comments, opened from its URL.
            for _ in range(RUNS):
                page.goto(f"/w/{s.tenant}/c/{talked}")
                page.wait_for_function("() => performance.getEntriesByName('comments').length > 0")
                thread.append(page.evaluate("performance.getEntriesByName('comments')[0].duration"))
                assert page.locator("li.comment").count() == COMMENTS
                thread_reference.append(fetched(page, f"/api/cards/{talked}/comments?html=true"))
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
        "comments_shown_ms": {"median": round(med(thread)), "max": round(max(thread)), "runs": [round(x) for x in thread]},
        "reference_comments_fetch_ms": {"median": round(med(thread_reference)), "runs": [round(x) for x in thread_reference]},
        "ratio_comments_to_fetch": round(med(thread) / med(thread_reference), 1),
    }, indent=2))


if __name__ == "__main__":
    main()
