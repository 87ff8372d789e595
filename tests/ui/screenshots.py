"""Takes the UI's screenshots into docs/screenshots/: sign-in, board, a card's
dialog, settings, account, the filtered board, the labels page, my cards, the flow page, the
activity page, the inbox and `@` suggestions, light and dark, 1440 and 390 px wide, on a board seeded like a
team's. With `BOARD_TEST_SMTP_URL` and `BOARD_TEST_OIDC_URL` (the SMTP server and OpenID provider of
the tests) the server sends mail and offers single sign-on, as a team's would, and the sign-in and
account pages show it. Run: `python3 tests/ui/screenshots.py` (after `cargo build -p board-server`)."""

import json
import os
import re
import subprocess
import sys
import urllib.request
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from conftest import CHROMIUM, CHROMIUM_ARGS, PASSWORD, ROOT, Server, new_page, open_board, sync_playwright  # noqa: E402
from test_card_parts import png  # noqa: E402

OUT = ROOT / "docs" / "screenshots"


def seed(s):
    """A small team's board: people, labels, due dates, checklists, comments."""
    for name in ("Ana Lima", "Bruno Costa", "Chen Wei"):
        inv = s.ok("POST", "/api/invitations", {"tenantId": s.tenant, "role": "MEMBER"})
        s.ok("POST", "/api/invitations/accept", {"code": inv["code"], "name": name,
                                                 "password": "correct horse battery staple"}, token="")
    people = {m["name"]: m["accountId"] for m in s.ok("GET", f"/api/members?tenant={s.tenant}")}
    labels = {n: s.ok("POST", "/api/labels", {"tenantId": s.tenant, "name": n, "color": c})["id"]
              for n, c in [("bug", "red"), ("feature", "blue"), ("design", "violet"), ("ops", "amber")]}
    doing = s.column("Doing")
    s.ok("PATCH", f"/api/columns/{doing['id']}", {"wipLimit": 3})
    s.ok("POST", "/api/columns", {"tenantId": s.tenant, "name": "Review", "color": "violet", "wipLimit": 2})
    s.ok("PATCH", "/api/columns/order", {"columnIds": [c["id"] for c in sorted(
        s.board()["columns"], key=lambda c: {"To do": 0, "Doing": 1, "Review": 2, "Done": 3}[c["name"]])]})
    cards = [
        ("To do", "Sign-in page remembers the last board", ["feature"], ["Ana Lima"], "2026-12-04T17:00:00Z", (0, 3), 2),
        ("To do", "Export includes label colours", ["feature"], [], None, (0, 0), 0),
        ("To do", "Dark mode contrast on labels", ["design", "bug"], ["Chen Wei"], "2026-12-10T12:00:00Z", (0, 0), 1),
        ("To do", "Rotate the staging certificate", ["ops"], ["Bruno Costa"], "2026-11-20T09:00:00Z", (1, 2), 0),
        ("Doing", "Drag and drop on touch screens", ["feature"], ["Ana Lima", "Chen Wei"], "2026-12-01T17:00:00Z", (3, 5), 4),
        ("Doing", "Webhook retries back off", ["bug"], ["Bruno Costa"], None, (1, 4), 1),
        ("Doing", "Onboarding guide for new teams", [], ["admin"], None, (0, 0), 0),
        ("Doing", "Search snippets for descriptions", ["feature"], [], None, (0, 0), 0),
        ("Review", "Invitation links expire after 7 days", ["feature"], ["Chen Wei"], None, (2, 2), 3),
        ("Done", "Backups with VACUUM INTO", ["ops"], ["Bruno Costa"], None, (4, 4), 2),
        ("Done", "Column WIP limits", ["feature"], ["Ana Lima"], None, (0, 0), 5),
    ]
    for column, title, ls, who, due, (done, total), comments in cards:
        card = s.ok("POST", "/api/cards", {
            "tenantId": s.tenant, "columnId": s.column(column)["id"], "title": title, "dueAt": due,
            "labelIds": [labels[x] for x in ls], "assigneeIds": [people[x] for x in who]})
        for i in range(total):
            item = s.ok("POST", f"/api/cards/{card['id']}/checklist", {"text": f"step {i + 1}"})
            if i < done:
                s.ok("PATCH", f"/api/checklist/{item['id']}", {"done": True})
        for i in range(comments):
            s.ok("POST", f"/api/cards/{card['id']}/comments", {"content": f"note {i + 1}"})
    dialog_card(s)
    # My cards: the admin's work across due dates.
    me = s.ok("GET", "/api/me")["id"]
    cards = {c["title"]: c["id"] for col in s.board()["columns"] for c in col["cards"]}
    for title in ("Rotate the staging certificate", "Drag and drop on touch screens", "Dark mode contrast on labels",
                  "Export includes label colours"):
        s.ok("PUT", f"/api/cards/{cards[title]}/assignees/{me}")
    # The inbox: a mention, an assignment and a move by others, besides the comments above.
    ana, bruno = session(s, "Ana Lima"), session(s, "Bruno Costa")
    s.ok("POST", f"/api/cards/{cards['Webhook retries back off']}/comments",
         {"content": "@admin could you check the backoff cap before Friday's release?"}, token=ana)
    s.ok("PUT", f"/api/cards/{cards['Sign-in page remembers the last board']}/assignees/{me}", token=bruno)
    s.ok("PATCH", f"/api/cards/{cards['Onboarding guide for new teams']}", {"columnId": s.column("Review")["id"]}, token=bruno)


def session(s, name):
    """`name`'s session token (a sign-in)."""
    req = urllib.request.Request(s.base + "/api/session", method="POST", headers={"Content-Type": "application/json"},
                                 data=json.dumps({"name": name, "password": PASSWORD}).encode())
    with urllib.request.urlopen(req) as r:
        return re.search(r"board_session=([^;]+)", r.headers["Set-Cookie"]).group(1)


def upload(s, path, name, data, token=None):
    """POSTs one file as multipart `files`; returns the Attachments."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"{name}\"\r\n"
            f"Content-Type: application/octet-stream\r\n\r\n").encode() + data + f"\r\n--{boundary}--\r\n".encode()
    req = urllib.request.Request(s.base + path, data=body, method="POST", headers={
        "Content-Type": f"multipart/form-data; boundary={boundary}", "Authorization": f"Bearer {token or s.token}"})
    with urllib.request.urlopen(req) as r:
        return json.loads(r.read())


def dialog_card(s):
    """The card of the dialog's screenshots: a description, comments with an image, a file, links."""
    cards = {c["title"]: c["id"] for col in s.board()["columns"] for c in col["cards"]}
    card = cards["Drag and drop on touch screens"]
    s.ok("PATCH", f"/api/cards/{card}", {"description": "A touch drag starts after a **300 ms** hold, so that "
         "a swipe still scrolls the board.\n\n- works in Safari on iOS 17\n- works in Chrome on Android"})
    ana, chen = session(s, "Ana Lima"), session(s, "Chen Wei")
    [shot] = upload(s, f"/api/cards/{card}/comments/uploads", "hold.png", png(120, 40), ana)
    s.ok("POST", f"/api/cards/{card}/comments", {"content": f"The hold feels right at 300 ms:\n\n![hold.png]({shot['url']})",
                                                  "attachmentIds": [shot["id"]]}, token=ana)
    s.ok("POST", f"/api/cards/{card}/comments", {"content": "Checked on a Pixel 7: **no accidental drags** while scrolling."}, token=chen)
    upload(s, f"/api/cards/{card}/attachments", "touch-test-notes.txt", b"Devices tested: iPhone 13, Pixel 7, iPad Air.\n")
    s.ok("POST", f"/api/cards/{cards['Onboarding guide for new teams']}/relations", {"targetId": card, "kind": "BLOCKS"})
    s.ok("POST", f"/api/cards/{card}/relations", {"targetId": cards["Search snippets for descriptions"], "kind": "RELATED"})


def extras():
    """The server's mail and single sign-on settings, when the test services are there."""
    args = []
    if os.environ.get("BOARD_TEST_SMTP_URL"):
        args += ["--smtp-url", os.environ["BOARD_TEST_SMTP_URL"], "--mail-from", "board@example.test"]
    if os.environ.get("BOARD_TEST_OIDC_URL"):
        args += ["--oidc-issuer", os.environ["BOARD_TEST_OIDC_URL"].rstrip("/"), "--oidc-client-id", "board-ui",
                 "--oidc-client-secret", "board-ui-secret", "--oidc-name", "Company account"]
    return args


def main():
    OUT.mkdir(parents=True, exist_ok=True)
    s = Server("sqlite", extras())
    try:
        seed(s)
        if os.environ.get("BOARD_TEST_SMTP_URL"):
            # The admin's address, verified by the operator: the account page shows it.
            subprocess.run([str(ROOT / "target/debug/board"), "account", "email", "admin", "admin@example.org", "--verified"],
                           env=dict(os.environ, BOARD_DATABASE_URL=f"sqlite://{s.dir}/board.db"), check=True,
                           stdout=subprocess.DEVNULL)
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for scheme in ("light", "dark"):
                for width, height in ((1440, 900), (390, 844)):
                    name = f"{scheme}-{width}"
                    page = new_page(browser, s, signed_in=False, width=width, height=height, color_scheme=scheme)
                    page.goto("/")
                    page.get_by_role("button", name="Sign in", exact=True).wait_for()
                    page.screenshot(path=OUT / f"signin-{name}.png")
                    page.context.close()
                    page = new_page(browser, s, width=width, height=height, color_scheme=scheme)
                    open_board(page, s)
                    page.screenshot(path=OUT / f"board-{name}.png")
                    page.get_by_role("link", name="Drag and drop on touch screens").click()
                    page.get_by_role("dialog", name="Drag and drop on touch screens").wait_for()
                    page.wait_for_function("() => performance.getEntriesByName('card-shown').length > 0")
                    page.screenshot(path=OUT / f"card-{name}.png")
                    dialog = page.get_by_role("dialog")
                    dialog.get_by_role("region", name="Comments").get_by_role("img").wait_for()
                    dialog.get_by_role("region", name="Attachments").evaluate("el => el.scrollIntoView({block: 'start'})")
                    page.screenshot(path=OUT / f"card-comments-{name}.png")
                    dialog.get_by_role("region", name="Activity").get_by_role("listitem").first.wait_for()
                    dialog.get_by_role("region", name="Activity").evaluate("el => el.scrollIntoView({block: 'end'})")
                    page.screenshot(path=OUT / f"card-activity-{name}.png")
                    box = dialog.get_by_role("textbox", name="Write a comment")
                    box.press_sequentially("Thanks, @")
                    dialog.get_by_role("listbox", name="Members").wait_for()
                    box.evaluate("el => el.scrollIntoView({block: 'center'})")
                    page.screenshot(path=OUT / f"mention-{name}.png")
                    box.fill("")
                    page.keyboard.press("Escape")
                    page.get_by_role("button", name=re.compile("^Notifications")).click()
                    page.get_by_role("region", name="Notifications").get_by_role("listitem").first.wait_for()
                    page.screenshot(path=OUT / f"inbox-{name}.png")
                    page.keyboard.press("Escape")
                    page.goto(f"/w/{s.tenant}/settings")
                    page.get_by_role("heading", name="Members").wait_for()
                    page.screenshot(path=OUT / f"settings-{name}.png", full_page=width < 1000)
                    page.goto("/account")
                    page.get_by_role("region", name="Sessions").get_by_role("table").wait_for()
                    page.screenshot(path=OUT / f"account-{name}.png", full_page=True)
                    feature = next(x["id"] for x in s.ok("GET", f"/api/labels?tenant={s.tenant}") if x["name"] == "feature")
                    page.goto(f"/w/{s.tenant}?label={feature}")
                    page.get_by_role("button", name="Filter", exact=True).click()
                    page.screenshot(path=OUT / f"board-filtered-{name}.png")
                    page.goto(f"/w/{s.tenant}/labels")
                    page.get_by_role("button", name="Add label").wait_for()
                    page.screenshot(path=OUT / f"labels-{name}.png", full_page=width < 1000)
                    page.goto("/me")
                    page.get_by_role("heading", name="No date (2)").wait_for()
                    page.screenshot(path=OUT / f"mine-{name}.png", full_page=width < 1000)
                    page.goto(f"/w/{s.tenant}/flow")
                    page.get_by_role("region", name="Aging work", exact=True).get_by_role("table").wait_for()
                    page.screenshot(path=OUT / f"flow-{name}.png", full_page=True)
                    page.goto(f"/w/{s.tenant}/activity")
                    page.get_by_role("list", name="Activity in Default").get_by_role("listitem").first.wait_for()
                    page.screenshot(path=OUT / f"activity-{name}.png")
                    page.context.close()
            browser.close()
    finally:
        s.stop()
    print(f"screenshots in {OUT}")


if __name__ == "__main__":
    main()
