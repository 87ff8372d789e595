"""The board page (§25): columns, cards, adding, moving by drag (mouse and
touch) and by the keyboard's "Move", refusals put back, live changes."""

from conftest import new_page, open_board, expect, axe, eventually, location


def titles(server, column):
    return [c["title"] for c in server.column(column)["cards"]]


def card_item(page, column, title):
    return page.get_by_role("region", name=column).get_by_role("listitem").filter(
        has=page.get_by_role("link", name=title, exact=True))


def visible_titles(page, column):
    return page.get_by_role("list", name=f"Cards in {column}").get_by_role("link").all_inner_texts()


def drag(page, source, target, below=False):
    """A mouse drag from `source`'s middle to `target`'s upper (or lower) quarter, in steps."""
    a = source.bounding_box()
    b = target.bounding_box()
    page.mouse.move(a["x"] + a["width"] / 2, a["y"] + a["height"] / 2)
    page.mouse.down()
    y = b["y"] + b["height"] * (0.8 if below else 0.2)
    page.mouse.move(b["x"] + b["width"] / 2, y, steps=12)
    page.mouse.up()


def test_columns_and_cards_show_what_the_api_has(page, server):
    todo = server.column("To do")
    server.ok("PATCH", f"/api/columns/{todo['id']}", {"wipLimit": 1})
    label = server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": "bug", "color": "red"})
    me = server.ok("GET", "/api/me")
    server.ok("PATCH", f"/api/me", {"name": "Ada Lovelace"})
    card = server.ok("POST", "/api/cards", {
        "tenantId": server.tenant, "title": "Full card", "dueAt": "2020-01-02T10:00:00Z",
        "labelIds": [label["id"]], "assigneeIds": [me["id"]]})
    server.ok("POST", f"/api/cards/{card['id']}/checklist", {"text": "one"})
    item = server.ok("POST", f"/api/cards/{card['id']}/checklist", {"text": "two"})
    server.ok("PATCH", f"/api/checklist/{item['id']}", {"done": True})
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "hello"})
    server.card("Plain card")
    open_board(page, server)
    column = page.get_by_role("region", name="To do")
    expect(column).to_contain_text("2 cards, WIP limit 1, over the limit")
    expect(column.get_by_text("2 / 1", exact=True)).to_be_visible()
    full = card_item(page, "To do", "Full card")
    expect(full.get_by_role("list", name="Labels")).to_have_text("bug")
    expect(full).to_contain_text("Overdue since")
    expect(full).to_contain_text("Checklist 1 of 2 done")
    expect(full).to_contain_text("1 comment")
    expect(full).to_contain_text("Assignees: Ada Lovelace")
    expect(full.get_by_text("AL", exact=True)).to_be_visible()
    assert visible_titles(page, "To do") == ["Full card", "Plain card"]
    assert axe(page) == []


def test_add_card_puts_it_at_the_end_of_its_column(page, server):
    server.card("Existing", "Doing")
    open_board(page, server)
    doing = page.get_by_role("region", name="Doing")
    doing.get_by_role("button", name="Add card").click()
    page.get_by_label("Card title").fill("<img src=x onerror=alert(1)>")
    page.get_by_label("Card title").press("Enter")
    expect(card_item(page, "Doing", "<img src=x onerror=alert(1)>")).to_be_visible()
    page.get_by_label("Card title").fill("Third")
    page.get_by_role("button", name="Add card").first.click() if False else page.get_by_label("Card title").press("Enter")
    expect(card_item(page, "Doing", "Third")).to_be_visible()
    eventually(lambda: titles(server, "Doing") == ["Existing", "<img src=x onerror=alert(1)>", "Third"])
    eventually(lambda: visible_titles(page, "Doing") == titles(server, "Doing"))


def test_a_mouse_drag_moves_a_card_across_and_within_columns(page, server):
    for t in ("A", "B", "C"):
        server.card(t)
    server.card("D", "Doing")
    open_board(page, server)
    # Across: A above D.
    drag(page, card_item(page, "To do", "A"), card_item(page, "Doing", "D"))
    expect(page.get_by_role("list", name="Cards in Doing").get_by_role("link")).to_have_text(["A", "D"])
    eventually(lambda: titles(server, "Doing") == ["A", "D"])
    # Within: B below C.
    drag(page, card_item(page, "To do", "B"), card_item(page, "To do", "C"), below=True)
    expect(page.get_by_role("list", name="Cards in To do").get_by_role("link")).to_have_text(["C", "B"])
    eventually(lambda: titles(server, "To do") == ["C", "B"])
    # Into an empty column.
    drag(page, card_item(page, "To do", "C"), page.get_by_role("list", name="Cards in Done"))
    expect(page.get_by_role("list", name="Cards in Done").get_by_role("link")).to_have_text(["C"])
    eventually(lambda: titles(server, "Done") == ["C"])
    # The drag did not open the card.
    assert "/c/" not in location(page)


def test_escape_cancels_a_drag(page, server):
    server.card("Stay")
    open_board(page, server)
    a = card_item(page, "To do", "Stay").bounding_box()
    b = page.get_by_role("list", name="Cards in Done").bounding_box()
    page.mouse.move(a["x"] + 20, a["y"] + 10)
    page.mouse.down()
    page.mouse.move(b["x"] + 20, b["y"] + 10, steps=8)
    page.keyboard.press("Escape")
    page.mouse.up()
    expect(page.get_by_role("list", name="Cards in To do").get_by_role("link")).to_have_text(["Stay"])
    eventually(lambda: titles(server, "To do") == ["Stay"])


def test_a_touch_drag_moves_a_card(browser, server):
    server.card("Touched")
    page = new_page(browser, server, has_touch=True)
    open_board(page, server)
    a = card_item(page, "To do", "Touched").bounding_box()
    b = page.get_by_role("list", name="Cards in Doing").bounding_box()
    cdp = page.context.new_cdp_session(page)
    x, y = a["x"] + a["width"] / 2, a["y"] + a["height"] / 2
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    # A touch held still becomes a drag (after 300 ms).
    page.wait_for_function("() => performance.getEntriesByName('drag-start').length > 0")
    tx, ty = b["x"] + b["width"] / 2, b["y"] + 10
    for i in range(1, 13):
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [
            {"x": x + (tx - x) * i / 12, "y": y + (ty - y) * i / 12}]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
    expect(page.get_by_role("list", name="Cards in Doing").get_by_role("link")).to_have_text(["Touched"])
    eventually(lambda: titles(server, "Doing") == ["Touched"])
    assert page.errors == []


def test_the_keyboard_move_action_places_a_card(page, server):
    for t in ("A", "B"):
        server.card(t, "Doing")
    server.card("Mover")
    open_board(page, server)
    card_item(page, "To do", "Mover").get_by_role("button", name="Move").click()
    dialog = page.get_by_role("dialog", name="Move “Mover”")
    expect(dialog).to_be_visible()
    assert axe(page) == []
    dialog.get_by_label("Column").select_option(label="Doing")
    dialog.get_by_label("Place").select_option(label="After “A”")
    dialog.get_by_role("button", name="Move").click()
    expect(page.get_by_role("list", name="Cards in Doing").get_by_role("link")).to_have_text(["A", "Mover", "B"])
    eventually(lambda: titles(server, "Doing") == ["A", "Mover", "B"])
    # Focus followed the card; Escape closes the dialog without a move.
    expect(card_item(page, "Doing", "Mover").get_by_role("button", name="Move")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(card_item(page, "Doing", "Mover").get_by_role("button", name="Move")).to_be_focused()


def test_a_dialog_gives_focus_to_its_opener_drawn_again_meanwhile(page, server):
    card = server.card("Mover")
    open_board(page, server)
    card_item(page, "To do", "Mover").get_by_role("button", name="Move").click()
    expect(page.get_by_role("dialog", name="Move “Mover”")).to_be_visible()
    # Someone else renames the card: its tile is drawn again under the dialog.
    server.ok("PATCH", f"/api/cards/{card['id']}", {"title": "Renamed"})
    expect(card_item(page, "To do", "Renamed")).to_be_visible()
    page.keyboard.press("Escape")
    expect(page.get_by_role("dialog")).to_have_count(0)
    expect(card_item(page, "To do", "Renamed").get_by_role("button", name="Move")).to_be_focused()


def test_a_refused_move_puts_the_card_back_and_says_why(page, server):
    server.ok("PATCH", "/api/settings", {"tenantId": server.tenant, "wipLimits": "HARD"})
    doing = server.column("Doing")
    server.ok("PATCH", f"/api/columns/{doing['id']}", {"wipLimit": 1})
    server.card("Busy", "Doing")
    server.card("Waiting")
    open_board(page, server)
    drag(page, card_item(page, "To do", "Waiting"), card_item(page, "Doing", "Busy"))
    alert = page.get_by_role("alert").filter(has_text="went back")
    expect(alert).to_contain_text("WIP limit")
    expect(page.get_by_role("list", name="Cards in To do").get_by_role("link")).to_have_text(["Waiting"])
    expect(page.get_by_role("list", name="Cards in Doing").get_by_role("link")).to_have_text(["Busy"])
    eventually(lambda: titles(server, "To do") == ["Waiting"])


def test_changes_made_elsewhere_show_live(page, server):
    # Live, without a reload: within the default wait. How soon is measured by the
    # EV benchmark (BENCHMARKS.md), not here: this machine is shared and noisy.
    open_board(page, server)
    card = server.card("From elsewhere")
    expect(card_item(page, "To do", "From elsewhere")).to_be_visible()
    server.ok("PATCH", f"/api/cards/{card['id']}", {"title": "Renamed elsewhere"})
    expect(card_item(page, "To do", "Renamed elsewhere")).to_be_visible()
    done = server.column("Done")
    server.ok("PATCH", f"/api/cards/{card['id']}", {"columnId": done["id"]})
    expect(card_item(page, "Done", "Renamed elsewhere")).to_be_visible()
    server.ok("POST", "/api/columns", {"tenantId": server.tenant, "name": "Review"})
    expect(page.get_by_role("region", name="Review")).to_be_visible()
    server.ok("POST", f"/api/cards/{card['id']}/archive")
    expect(page.get_by_role("list", name="Cards in Done").get_by_role("link")).to_have_count(0)


def test_search_shows_snippets_and_opens_the_card(page, server):
    card = server.card("Deploy the release")
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "the staging server needs a new certificate"})
    open_board(page, server)
    page.get_by_role("searchbox", name="Search").fill("certificate")
    page.get_by_role("searchbox", name="Search").press("Enter")
    results = page.get_by_role("list", name="1 card found")
    expect(results).to_contain_text("new certificate")
    results.get_by_role("link", name="Deploy the release").click()
    expect(page.get_by_role("dialog", name="Deploy the release")).to_be_visible()
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}/c/{card['id']}")
    page.keyboard.press("Escape")
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}")


def test_narrow_and_wide_screens_scroll_only_the_columns(browser, server):
    for t in ("One", "Two"):
        server.card(t)
    for width in (360, 2560):
        page = new_page(browser, server, width=width, height=800, color_scheme="dark")
        open_board(page, server)
        # The page never scrolls sideways; the board of columns does, when it must.
        assert page.evaluate("() => document.documentElement.scrollWidth") <= width
        for name in ("To do", "Doing", "Done"):
            expect(page.get_by_role("region", name=name)).to_have_count(1)
        assert axe(page) == []
        page.context.close()


def test_the_board_works_with_the_keyboard_alone(page, server):
    server.card("Typed")
    open_board(page, server)
    # Tab to the first column's "Add card", type a title, Enter.
    add = page.get_by_role("region", name="Doing").get_by_role("button", name="Add card")
    add.focus()
    page.keyboard.press("Enter")
    page.keyboard.type("Made with keys")
    page.keyboard.press("Enter")
    expect(card_item(page, "Doing", "Made with keys")).to_be_visible()
    page.keyboard.press("Escape")
    expect(add).to_be_focused()
    # Column actions open with Enter and close with Escape, focus returning.
    actions = page.get_by_role("button", name="Column actions: Doing")
    actions.focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("dialog", name="Column “Doing”")).to_be_visible()
    page.keyboard.press("Escape")
    expect(actions).to_be_focused()
    eventually(lambda: titles(server, "Doing") == ["Made with keys"])
