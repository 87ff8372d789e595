"""Column management on the board (§5, §20, §25): add, rename, colour, done
mark, WIP limit, reorder by drag and by the keyboard, delete with MOVE or
DELETE; hidden with a note when management is off."""

from conftest import open_board, expect, axe, eventually


def names(server):
    return [c["name"] for c in server.board()["columns"]]


def test_add_and_edit_a_column(page, server):
    open_board(page, server)
    page.get_by_role("button", name="Add column").click()
    dialog = page.get_by_role("dialog", name="Add column")
    dialog.get_by_label("Column name").fill("Review")
    dialog.get_by_role("radio", name="violet").check()
    dialog.get_by_label("WIP limit").fill("3")
    assert axe(page) == []
    dialog.get_by_role("button", name="Add column").click()
    review = page.get_by_role("region", name="Review")
    expect(review).to_contain_text("0 cards, WIP limit 3")
    column = server.column("Review")
    assert (column["accent"], column["wipLimit"]) == ("violet", 3)

    review.get_by_role("button", name="Column actions: Review").click()
    dialog = page.get_by_role("dialog", name="Column “Review”")
    dialog.get_by_label("Column name").fill("Code review")
    dialog.get_by_role("radio", name="teal").check()
    dialog.get_by_label("WIP limit").fill("")
    dialog.get_by_label("Done column").check()
    assert axe(page) == []
    dialog.get_by_label("Column name").press("Enter")
    expect(page.get_by_role("region", name="Code review")).to_contain_text("Done")
    column = server.column("Code review")
    assert (column["accent"], column["wipLimit"], column["done"]) == ("teal", None, True)
    assert not server.column("Done")["done"]

    # A refusal (a name too long for the server) shows its message, changes nothing.
    page.get_by_role("button", name="Column actions: Code review").click()
    dialog = page.get_by_role("dialog", name="Column “Code review”")
    dialog.get_by_label("WIP limit").fill("0")
    dialog.get_by_role("button", name="Save").click()
    expect(dialog.get_by_role("alert")).to_be_visible()
    dialog.get_by_role("button", name="Cancel").click()
    assert server.column("Code review")["wipLimit"] is None


def test_reorder_columns_by_drag_and_by_the_keyboard(page, server):
    open_board(page, server)
    head = page.get_by_role("heading", name="To do", exact=True)
    target = page.get_by_role("region", name="Doing")
    a, b = head.bounding_box(), target.bounding_box()
    page.mouse.move(a["x"] + 5, a["y"] + a["height"] / 2)
    page.mouse.down()
    page.mouse.move(b["x"] + b["width"] * 0.9, a["y"] + a["height"] / 2, steps=12)
    page.mouse.up()
    eventually(lambda: names(server) == ["Doing", "To do", "Done"])
    expect(page.get_by_role("region")).to_have_count(3)
    expect(page.get_by_role("heading", level=2)).to_have_text(["Doing", "To do", "Done"])

    page.get_by_role("button", name="Column actions: Done").click()
    page.get_by_role("dialog").get_by_role("button", name="Move left").click()
    eventually(lambda: names(server) == ["Doing", "Done", "To do"])
    expect(page.get_by_role("heading", level=2)).to_have_text(["Doing", "Done", "To do"])


def test_delete_a_column_moving_or_deleting_its_cards(page, server):
    server.ok("POST", "/api/columns", {"tenantId": server.tenant, "name": "Old"})
    server.ok("POST", "/api/columns", {"tenantId": server.tenant, "name": "Older"})
    server.card("Keep me", "Old")
    server.card("Drop me", "Older")
    open_board(page, server)
    page.get_by_role("button", name="Column actions: Old", exact=True).click()
    page.get_by_role("dialog").get_by_role("button", name="Delete column").click()
    dialog = page.get_by_role("dialog", name="Delete column “Old”")
    assert axe(page) == []
    dialog.get_by_label("Move them to").select_option(label="Doing")
    dialog.get_by_role("button", name="Delete column").click()
    expect(page.get_by_role("region", name="Old", exact=True)).to_have_count(0)
    expect(page.get_by_role("list", name="Cards in Doing").get_by_role("link")).to_have_text(["Keep me"])

    page.get_by_role("button", name="Column actions: Older").click()
    page.get_by_role("dialog").get_by_role("button", name="Delete column").click()
    dialog = page.get_by_role("dialog", name="Delete column “Older”")
    dialog.get_by_label("Delete the cards with the column").check()
    dialog.get_by_label("Type APAGAR CARDS to confirm").fill("apagar")
    dialog.get_by_role("button", name="Delete column").click()
    expect(dialog.get_by_role("alert")).to_contain_text("APAGAR CARDS")
    assert "Older" in names(server)
    dialog.get_by_label("Type APAGAR CARDS to confirm").fill("APAGAR CARDS")
    dialog.get_by_role("button", name="Delete column").click()
    expect(page.get_by_role("region", name="Older")).to_have_count(0)
    assert names(server) == ["To do", "Doing", "Done"]
    assert [c["title"] for col in server.board()["columns"] for c in col["cards"]] == ["Keep me"]


def test_management_off_hides_the_controls_with_a_note(page, server):
    server.ok("PATCH", "/api/settings", {"tenantId": server.tenant, "columnManagement": False})
    open_board(page, server)
    expect(page.get_by_text("Column management is off")).to_be_visible()
    expect(page.get_by_role("button", name="Add column")).to_have_count(0)
    expect(page.get_by_role("button", name="Column actions: To do")).to_have_count(0)
    # Turned back on elsewhere: the controls come back live.
    server.ok("PATCH", "/api/settings", {"tenantId": server.tenant, "columnManagement": True})
    expect(page.get_by_role("button", name="Add column")).to_be_visible()
    expect(page.get_by_text("Column management is off")).to_be_hidden()


def test_a_change_before_the_stream_opens_still_shows(page, server):
    # A change committed after the first load and before the event stream
    # connects sends this page no event: once connected, the page reads again
    # everything its first load read (here the settings, not only the board).
    server.ok("PATCH", "/api/settings", {"tenantId": server.tenant, "columnManagement": False})
    held = []
    page.route("**/api/events?*", lambda route: held.append(route))
    open_board(page, server)
    expect(page.get_by_text("Column management is off")).to_be_visible()
    server.ok("PATCH", "/api/settings", {"tenantId": server.tenant, "columnManagement": True})
    assert len(held) == 1, "the board's stream was held"
    held[0].continue_()
    expect(page.get_by_role("button", name="Add column")).to_be_visible()
    expect(page.get_by_text("Column management is off")).to_be_hidden()
