"""The labels page (api.md §29): add, rename, colour, reorder and delete a
workspace's labels; reached from the board's navigation, Settings, and a card
dialog in a workspace with no labels yet."""

from conftest import new_page, open_board, expect, axe, eventually


def names(server):
    return [(l["name"], l["accent"]) for l in server.ok("GET", f"/api/labels?tenant={server.tenant}")]


def test_labels_are_added_renamed_coloured_reordered_and_deleted(page, server):
    open_board(page, server)
    page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Labels").click()
    expect(page.get_by_role("heading", name="Labels of Default")).to_be_visible()
    expect(page.get_by_text("No labels yet")).to_be_visible()
    page.get_by_role("textbox", name="Label name").fill("bug")
    page.get_by_role("combobox", name="Colour").select_option("red")
    page.get_by_role("button", name="Add label").click()
    expect(page.get_by_role("textbox", name="Name of bug")).to_be_visible()
    expect(page.get_by_role("textbox", name="Label name")).to_be_focused()
    eventually(lambda: names(server) == [("bug", "red")])
    page.get_by_role("textbox", name="Label name").fill("ui")
    page.get_by_role("textbox", name="Label name").press("Enter")
    expect(page.get_by_role("textbox", name="Name of ui")).to_be_visible()
    # A refusal says why, in the server's words.
    page.get_by_role("textbox", name="Label name").fill("BUG")
    page.get_by_role("button", name="Add label").click()
    expect(page.get_by_role("alert")).not_to_be_empty()
    assert axe(page) == []

    page.get_by_role("textbox", name="Name of bug").fill("defect")
    page.get_by_role("combobox", name="Colour of bug").select_option("blue")
    page.get_by_role("button", name="Save bug").click()
    expect(page.get_by_role("textbox", name="Name of defect")).to_be_visible()
    expect(page.get_by_role("alert")).to_be_hidden()
    eventually(lambda: names(server) == [("defect", "blue"), ("ui", "red")])

    page.get_by_role("button", name="Move ui up").click()
    eventually(lambda: names(server) == [("ui", "red"), ("defect", "blue")])
    expect(page.get_by_role("list", name="Labels of Default").get_by_role("listitem").first).to_contain_text("ui")
    page.get_by_role("button", name="Move ui down").click()
    expect(page.get_by_role("alert")).to_be_hidden()
    eventually(lambda: names(server) == [("defect", "blue"), ("ui", "red")])

    page.get_by_role("button", name="Delete defect").click()
    dialog = page.get_by_role("dialog", name="Delete label “defect”?")
    expect(dialog).to_be_visible()
    assert axe(page) == []
    dialog.get_by_role("button", name="Delete").click()
    eventually(lambda: names(server) == [("ui", "red")])
    expect(page.get_by_role("textbox", name="Name of defect")).to_be_hidden()


def test_labels_changed_elsewhere_show_at_once(page, server):
    page.goto(f"/w/{server.tenant}/labels")
    expect(page.get_by_role("heading", name="Labels of Default")).to_be_visible()
    page.wait_for_timeout(300)
    server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": "from the CLI"})
    expect(page.get_by_role("textbox", name="Name of from the CLI")).to_be_visible()


def test_settings_and_an_empty_card_dialog_link_to_the_labels(page, server):
    card = server.card("No labels here")
    page.goto(f"/w/{server.tenant}/c/{card['id']}")
    dialog = page.get_by_role("dialog", name="No labels here")
    expect(dialog).to_contain_text("This workspace has no labels yet.")
    dialog.get_by_role("link", name="Manage labels").click()
    expect(page.get_by_role("heading", name="Labels of Default")).to_be_visible()
    expect(page.get_by_role("dialog")).to_be_hidden()
    page.get_by_role("link", name="Settings").click()
    page.get_by_role("link", name="Manage labels").click()
    expect(page.get_by_role("heading", name="Labels of Default")).to_be_visible()


def test_the_labels_page_at_360_px_in_dark_mode(browser, server):
    server.ok("POST", "/api/labels", {"tenantId": server.tenant, "name": "a rather long label name", "color": "violet"})
    page = new_page(browser, server, width=360, height=740, color_scheme="dark")
    page.goto(f"/w/{server.tenant}/labels")
    expect(page.get_by_role("textbox", name="Name of a rather long label name")).to_be_visible()
    assert axe(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    page.context.close()
