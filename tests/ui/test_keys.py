"""The board's keyboard shortcuts (api.md §29): `?`, `/`, `f`, arrows,
Enter, `m`, `n`, Escape; never while typing."""

from conftest import open_board, expect, axe


def focused_title(page):
    return page.evaluate("() => document.activeElement.textContent")


def test_shortcuts_move_around_the_board(page, server):
    for t in ("A1", "A2"):
        server.card(t)
    server.card("B1", "Doing")
    open_board(page, server)
    page.keyboard.press("?")
    help = page.get_by_role("dialog", name="Keyboard shortcuts")
    expect(help).to_be_visible()
    expect(help).to_contain_text("Move the focused card")
    assert axe(page) == []
    page.keyboard.press("Escape")
    expect(help).to_be_hidden()

    page.keyboard.press("/")
    expect(page.get_by_role("searchbox", name="Search")).to_be_focused()
    page.keyboard.type("f?m")  # typed text, not shortcuts
    expect(page.get_by_role("button", name="Filter", exact=True)).to_have_attribute("aria-expanded", "false")
    expect(page.get_by_role("dialog")).to_have_count(0)
    page.get_by_role("searchbox", name="Search").fill("")
    page.get_by_role("region", name="To do").get_by_role("heading").click()

    page.keyboard.press("ArrowDown")
    assert focused_title(page) == "A1"
    page.keyboard.press("ArrowDown")
    assert focused_title(page) == "A2"
    page.keyboard.press("ArrowRight")
    assert focused_title(page) == "B1"
    page.keyboard.press("ArrowLeft")
    assert focused_title(page) == "A1"
    page.keyboard.press("ArrowUp")
    assert focused_title(page) == "A1"

    page.keyboard.press("m")
    move = page.get_by_role("dialog", name="Move “A1”")
    expect(move).to_be_visible()
    page.keyboard.press("Escape")
    expect(move).to_be_hidden()

    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="A1")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog", name="A1")).to_be_hidden()

    page.keyboard.press("n")
    expect(page.get_by_role("textbox", name="Card title")).to_be_focused()
    page.keyboard.type("Added by keys")
    page.keyboard.press("Enter")
    expect(page.get_by_role("region", name="To do").get_by_role("link", name="Added by keys")).to_be_visible()
    page.keyboard.press("Escape")

    page.get_by_role("region", name="Doing").get_by_role("heading").click()
    page.keyboard.press("f")
    expect(page.get_by_role("button", name="Filter", exact=True)).to_have_attribute("aria-expanded", "true")
    page.keyboard.press("Escape")
    expect(page.get_by_role("button", name="Filter", exact=True)).to_be_focused()
