"""Notifications in the browser (api.md §26): the "Notifications" button with
the unread count, live; the inbox (each item opens its card and marks it read,
"Mark all as read", "Show unread only", "Show more"); and `@` in a comment or
a description offering the workspace's members. Found by role and name."""

import re

from conftest import new_page, open_board, expect, axe, eventually
from test_card import open_card
from test_card_parts import member_token


def bell(page, unread):
    name = f"Notifications, {unread} unread" if unread else "Notifications, none unread"
    return page.get_by_role("button", name=name, exact=True)


def notifications(server, token=None, unread=False):
    return server.ok("GET", "/api/notifications" + ("?unread=true" if unread else ""), token=token)["items"]


def test_the_bell_counts_live_and_each_item_opens_its_card_and_marks_it_read(page, server):
    ana = member_token(server, "Ana Lima")
    watched = server.card("Fix the login page")  # the admin made it: a watcher
    other = server.card("Write the release notes")
    workspace = server.ok("GET", "/api/me")["workspaces"][0]["name"]
    open_board(page, server)
    expect(bell(page, 0)).to_be_visible()
    # Changes by someone else reach the bell through the board's own stream.
    server.ok("POST", f"/api/cards/{watched['id']}/comments", {"content": "Tried it on Safari: still broken."}, token=ana)
    expect(bell(page, 1)).to_be_visible()
    server.ok("POST", f"/api/cards/{other['id']}/comments", {"content": "@admin can you look at this?"}, token=ana)
    expect(bell(page, 2)).to_be_visible()
    bell(page, 2).click()
    inbox = page.get_by_role("region", name="Notifications")
    expect(bell(page, 2)).to_have_attribute("aria-expanded", "true")
    items = inbox.get_by_role("listitem")
    expect(items).to_have_count(2)
    expect(items.nth(0)).to_contain_text("Ana Lima mentioned you")
    expect(items.nth(0)).to_contain_text(workspace)
    expect(items.nth(0)).to_contain_text("@admin can you look at this?")
    expect(items.nth(1)).to_contain_text("Ana Lima commented")
    expect(items.nth(1)).to_contain_text("Tried it on Safari")
    expect(items.nth(0)).to_contain_text("Unread")
    assert axe(page) == []
    # An open inbox shows a new one as it comes.
    server.ok("PUT", f"/api/cards/{other['id']}/assignees/{server.ok('GET', '/api/me')['id']}", token=ana)
    expect(items).to_have_count(3)
    expect(items.nth(0)).to_contain_text("Ana Lima assigned you")
    expect(bell(page, 3)).to_be_visible()
    # An item opens its card and is read.
    inbox.get_by_role("link", name="Fix the login page").click()
    expect(page.get_by_role("dialog", name="Fix the login page")).to_be_visible()
    expect(inbox).to_be_hidden()
    expect(bell(page, 2)).to_be_visible()
    eventually(lambda: [n["card"]["title"] for n in notifications(server, unread=True)] == ["Write the release notes"] * 2)
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    # Escape closes the inbox and gives the focus back to the button.
    bell(page, 2).click()
    expect(items).to_have_count(3)
    inbox.get_by_role("checkbox", name="Show unread only").check()
    expect(items).to_have_count(2)
    expect(inbox.get_by_role("link", name="Fix the login page")).to_have_count(0)
    inbox.get_by_role("button", name="Mark all as read").click()
    expect(inbox).to_contain_text("No unread notifications.")
    expect(bell(page, 0)).to_be_visible()
    assert notifications(server, unread=True) == []
    page.keyboard.press("Escape")
    expect(inbox).to_be_hidden()
    expect(bell(page, 0)).to_be_focused()


def test_the_inbox_pages_with_show_more(page, server):
    ana = member_token(server, "Ana Lima")
    card = server.card("A busy card")
    for i in range(23):
        server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": f"note {i + 1}"}, token=ana)
    page.goto("/account")  # a page with no stream: the count is read
    bell(page, 23).click()
    inbox = page.get_by_role("region", name="Notifications")
    items = inbox.get_by_role("listitem")
    expect(items).to_have_count(20)
    expect(items.nth(0)).to_contain_text("note 23")
    inbox.get_by_role("button", name="Show more").click()
    expect(items).to_have_count(23)
    expect(items.nth(22)).to_contain_text("note 1")
    expect(items.nth(20).get_by_role("link")).to_be_focused()
    expect(inbox.get_by_role("button", name="Show more")).to_be_hidden()
    # A click outside closes it.
    page.get_by_role("heading", level=1).first.click()
    expect(inbox).to_be_hidden()


def test_a_live_notification_keeps_the_pages_shown_and_the_focus(page, server):
    ana = member_token(server, "Ana Lima")
    card = server.card("A busy card")
    for i in range(23):
        server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": f"note {i + 1}"}, token=ana)
    open_board(page, server)  # a page with a stream: news comes live
    bell(page, 23).click()
    inbox = page.get_by_role("region", name="Notifications")
    items = inbox.get_by_role("listitem")
    inbox.get_by_role("button", name="Show more").click()
    expect(items).to_have_count(23)
    expect(items.nth(20).get_by_role("link")).to_be_focused()  # note 3's
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "note 24"}, token=ana)
    expect(items).to_have_count(24)
    expect(items.nth(0)).to_contain_text("note 24")
    expect(items.nth(21)).to_contain_text("note 3")
    expect(items.nth(21).get_by_role("link")).to_be_focused()
    assert page.errors == []


def test_the_inbox_fits_360_px_in_dark_mode(browser, server):
    ana = member_token(server, "Ana Lima")
    card = server.card("Narrow card")
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "A comment long enough to wrap " * 4}, token=ana)
    page = new_page(browser, server, width=360, height=740, color_scheme="dark")
    open_board(page, server)
    bell(page, 1).click()
    inbox = page.get_by_role("region", name="Notifications")
    expect(inbox.get_by_role("listitem")).to_have_count(1)
    assert axe(page) == []
    box = inbox.bounding_box()
    assert box["x"] >= 0 and box["x"] + box["width"] <= 360, box
    inbox.get_by_role("link", name="Narrow card").click()
    expect(page.get_by_role("dialog", name="Narrow card")).to_be_visible()
    expect(bell(page, 0)).to_be_attached()
    assert page.errors == []
    page.context.close()


def test_at_in_a_comment_offers_the_members_by_keyboard_and_mouse(page, server):
    member_token(server, "Ana Lima")
    bruno = member_token(server, "Bruno Costa")
    card = server.card("Plan the launch")
    dialog = open_card(page, server, card)
    box = dialog.get_by_role("textbox", name="Write a comment")
    members = dialog.get_by_role("listbox", name="Members")
    box.press_sequentially("Over to @")
    expect(members).to_be_visible()
    expect(members.get_by_role("option")).to_have_text(["admin", "Ana Lima", "Bruno Costa"])
    expect(box).to_have_attribute("aria-controls", members.get_attribute("id"))
    assert axe(page) == []
    box.press_sequentially("co")  # any word of a name
    expect(members.get_by_role("option")).to_have_text(["Bruno Costa"])
    # The caret moved back: the list follows what is before it, then goes.
    box.press("ArrowLeft")
    box.press("ArrowLeft")
    expect(members.get_by_role("option")).to_have_text(["admin", "Ana Lima", "Bruno Costa"])
    box.press("ArrowLeft")
    expect(members).to_be_hidden()
    box.press("End")
    box.press_sequentially("s")  # typing opens it again
    expect(members.get_by_role("option")).to_have_text(["Bruno Costa"])
    box.press("Backspace")
    expect(members.get_by_role("option", name="Bruno Costa")).to_have_attribute("aria-selected", "true")
    box.press("Enter")
    expect(members).to_be_hidden()
    expect(box).to_have_value("Over to @Bruno Costa ")
    # Arrows choose, Tab inserts; Escape closes the list, not the dialog.
    box.press_sequentially("and @")
    box.press("ArrowDown")
    expect(members.get_by_role("option", name="Ana Lima")).to_have_attribute("aria-selected", "true")
    expect(box).to_have_attribute("aria-activedescendant",
                                  members.get_by_role("option", name="Ana Lima").get_attribute("id"))
    box.press("ArrowUp")
    box.press("ArrowUp")
    expect(members.get_by_role("option", name="Bruno Costa")).to_have_attribute("aria-selected", "true")
    box.press("Escape")
    expect(members).to_be_hidden()
    expect(dialog).to_be_visible()
    box.press_sequentially("A")
    expect(members.get_by_role("option")).to_have_text(["admin", "Ana Lima"])
    members.get_by_role("option", name="Ana Lima").click()
    expect(box).to_have_value("Over to @Bruno Costa and @Ana Lima ")
    expect(box).to_be_focused()
    # An address names nobody: no list.
    box.press_sequentially("or mail bruno@")
    expect(members).to_be_hidden()
    dialog.get_by_role("button", name="Comment", exact=True).click()
    expect(box).to_have_value("")
    eventually(lambda: [n["kind"] for n in notifications(server, token=bruno)] == ["mentioned"])


def test_at_in_the_description_offers_the_members(page, server):
    ana = member_token(server, "Ana Lima")
    card = server.card("Describe me")
    dialog = open_card(page, server, card)
    dialog.get_by_role("button", name="Edit description").click()
    box = dialog.get_by_role("textbox", name="Description")
    box.press_sequentially("Ask @li")
    members = dialog.get_by_role("listbox", name="Members")
    expect(members.get_by_role("option")).to_have_text(["Ana Lima"])
    box.press("Tab")
    expect(box).to_have_value("Ask @Ana Lima ")
    expect(box).to_be_focused()
    # Escape with the list open leaves the editor open.
    box.press_sequentially("and @")
    box.press("Escape")
    expect(members).to_be_hidden()
    expect(box).to_be_visible()
    dialog.get_by_role("button", name="Save", exact=True).click()
    expect(dialog.get_by_role("region", name="Description")).to_contain_text("Ask @Ana Lima and @")
    eventually(lambda: [n["kind"] for n in notifications(server, token=ana)] == ["mentioned"])
    assert re.search("Ask @Ana Lima", server.ok("GET", f"/api/cards/{card['id']}")["description"])


def test_a_page_without_a_stream_reads_the_count_every_30_seconds(page, server):
    ana = member_token(server, "Ana Lima")
    card = server.card("Quiet card")
    page.clock.install()
    # The page reads the count once, a moment after it is drawn (the clock
    # moves only when told): before the comment.
    with page.expect_response(lambda r: r.url.endswith("/api/notifications/count")):
        page.goto("/account")
        page.clock.run_for(1_000)
    expect(bell(page, 0)).to_be_visible()
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "While you were away"}, token=ana)
    page.clock.run_for(20_000)
    expect(bell(page, 0)).to_be_visible()
    page.clock.run_for(11_000)
    expect(bell(page, 1)).to_be_visible()
