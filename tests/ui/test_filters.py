"""The board's filter (api.md §29): labels, assignees, due and title words,
kept in the URL, `shown / total` counts, "Clear filters", drag and drop
between the visible cards, live changes that show or hide cards."""

from datetime import datetime, timedelta, timezone

from conftest import new_page, open_board, expect, axe, eventually, location
from test_board import drag, titles, card_item, visible_titles


def label(server, name, color="red"):
    return server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": name, "color": color})


def make(server, title, **fields):
    return server.ok("POST", "/api/cards", {"tenantId": server.tenant, "title": title, **fields})


def shown(page):
    """What a failed wait saw: the page's URL and the titles shown in "To do"."""
    return lambda: (location(page), visible_titles(page, "To do"))


def test_filters_narrow_the_board_and_live_in_the_url(page, server):
    bug = label(server, "bug")
    ui = label(server, "ui", "blue")
    me = server.ok("GET", "/api/me")
    past = (datetime.now(timezone.utc) - timedelta(days=2)).isoformat()
    make(server, "Fix the crash", labelIds=[bug["id"]], assigneeIds=[me["id"]])
    make(server, "Polish the menu", labelIds=[ui["id"]])
    make(server, "Late report", dueAt=past)
    make(server, "Plain card")
    open_board(page, server)
    page.get_by_role("button", name="Filter", exact=True).click()
    expect(page.get_by_role("button", name="Filter", exact=True)).to_have_attribute("aria-expanded", "true")
    page.get_by_role("checkbox", name="bug").check()
    eventually(lambda: visible_titles(page, "To do") == ["Fix the crash"], about=shown(page))
    todo = page.get_by_role("region", name="To do")
    expect(todo).to_contain_text("1 of 4 cards shown")
    expect(todo.get_by_text("1 / 4", exact=True)).to_be_visible()
    expect(page.get_by_text("Showing 1 of 4 cards")).to_be_visible()
    assert f"label={bug['id']}" in location(page)
    # Within a kind: OR.
    page.get_by_role("checkbox", name="ui").check()
    eventually(lambda: visible_titles(page, "To do") == ["Fix the crash", "Polish the menu"], about=shown(page))
    assert axe(page) == []
    # A reload, a bookmark or a shared link shows the same cards.
    page.reload()
    expect(page.get_by_role("link", name="Polish the menu", exact=True)).to_be_visible()
    eventually(lambda: visible_titles(page, "To do") == ["Fix the crash", "Polish the menu"], about=shown(page))
    # Across kinds: AND.
    page.get_by_role("button", name="Filter", exact=True).click()
    page.get_by_role("checkbox", name="Me").check()
    expect(page.get_by_role("link", name="Polish the menu", exact=True)).to_be_hidden()
    eventually(lambda: visible_titles(page, "To do") == ["Fix the crash"], about=shown(page))
    page.get_by_role("button", name="Clear filters").click()
    eventually(lambda: visible_titles(page, "To do") == ["Fix the crash", "Polish the menu", "Late report", "Plain card"], about=shown(page))
    assert location(page).endswith(f"/w/{server.tenant}")
    expect(todo.get_by_text("4", exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Clear filters")).to_be_hidden()
    page.get_by_role("checkbox", name="No one").check()
    page.get_by_role("checkbox", name="Overdue").check()
    eventually(lambda: visible_titles(page, "To do") == ["Late report"], about=shown(page))
    page.get_by_role("button", name="Clear filters").click()
    page.get_by_role("searchbox", name="Title words").fill("the  MENU")
    eventually(lambda: visible_titles(page, "To do") == ["Polish the menu"], about=shown(page))
    assert location(page).endswith("?q=the++MENU")
    # A card opened and closed: the filter is still on, and in the URL.
    page.get_by_role("link", name="Polish the menu", exact=True).click()
    page.get_by_role("dialog").press("Escape")
    expect(page.get_by_role("dialog")).to_be_hidden()
    eventually(lambda: visible_titles(page, "To do") == ["Polish the menu"], about=shown(page))
    eventually(lambda: "q=" in location(page), about=shown(page))


def test_a_live_change_shows_or_hides_a_card(page, server):
    bug = label(server, "bug")
    make(server, "Has the label", labelIds=[bug["id"]])
    other = make(server, "Gets the label")
    page.goto(f"/w/{server.tenant}?label={bug['id']}")
    expect(page.get_by_role("link", name="Has the label", exact=True)).to_be_visible()
    expect(page.get_by_role("link", name="Gets the label", exact=True)).to_be_hidden()
    server.ok("PUT", f"/api/cards/{other['id']}/labels/{bug['id']}")
    expect(page.get_by_role("link", name="Gets the label", exact=True)).to_be_visible()
    expect(page.get_by_role("region", name="To do")).to_contain_text("2 of 2 cards shown")
    server.ok("DELETE", f"/api/cards/{other['id']}/labels/{bug['id']}")
    expect(page.get_by_role("link", name="Gets the label", exact=True)).to_be_hidden()
    make(server, "New with the label", labelIds=[bug["id"]])
    expect(page.get_by_role("link", name="New with the label", exact=True)).to_be_visible()
    make(server, "New without")
    expect(page.get_by_role("region", name="To do")).to_contain_text("2 of 4 cards shown")


def test_a_drop_in_a_filtered_board_lands_between_the_visible_cards(page, server):
    for t in ("keep A", "hide 1"):
        server.card(t)
    for t in ("keep C", "hide 3", "keep D"):
        server.card(t, "Doing")
    page.goto(f"/w/{server.tenant}?q=keep")
    expect(page.get_by_role("link", name="keep D", exact=True)).to_be_visible()
    eventually(lambda: visible_titles(page, "Doing") == ["keep C", "keep D"])
    # Dropped above "keep D": directly above it, below the hidden card.
    drag(page, card_item(page, "To do", "keep A"), card_item(page, "Doing", "keep D"))
    eventually(lambda: titles(server, "Doing") == ["keep C", "hide 3", "keep A", "keep D"])
    eventually(lambda: visible_titles(page, "Doing") == ["keep C", "keep A", "keep D"])
    # Dropped below the last visible card of a column.
    drag(page, card_item(page, "Doing", "keep C"), card_item(page, "Doing", "keep D"), below=True)
    eventually(lambda: titles(server, "Doing") == ["hide 3", "keep A", "keep D", "keep C"])


def test_the_filter_at_360_px_in_dark_mode(browser, server):
    label(server, "bug")
    page = new_page(browser, server, width=360, height=740, color_scheme="dark")
    open_board(page, server)
    page.get_by_role("button", name="Filter", exact=True).click()
    page.get_by_role("checkbox", name="bug").check()
    assert axe(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    page.context.close()
