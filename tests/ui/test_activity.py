"""The workspace's activity page (api.md §29): every change, newest first, who
and when, live; more pages on demand; reached from the board's navigation."""

from conftest import new_page, open_board, expect, axe


def test_the_activity_page_shows_the_workspace_changes_live(page, server):
    server.ok("PATCH", "/api/me", {"name": "Ada Lovelace"})
    card = server.card("Engine")
    server.ok("PATCH", f"/api/cards/{card['id']}", {"columnId": server.column("Doing")["id"]})
    open_board(page, server)
    page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Activity").click()
    expect(page.get_by_role("heading", name="Activity in Default")).to_be_visible()
    expect(page.get_by_role("link", name="Activity")).to_have_attribute("aria-current", "page")
    items = page.get_by_role("list", name="Activity in Default").get_by_role("listitem")
    expect(items.first).to_contain_text("Ada Lovelace moved “Engine” from “To do” to “Doing”")
    expect(items.last).to_contain_text("created “Engine” in “To do”")
    assert axe(page) == []
    # Live: a change made elsewhere comes first at once.
    server.ok("POST", f"/api/cards/{card['id']}/comments", {"content": "Steam"})
    expect(items.first).to_contain_text("Ada Lovelace commented on “Engine”", timeout=3000)


def test_more_pages_come_on_demand_and_the_page_fits_a_phone(browser, server):
    card = server.card("Busy")
    for n in range(55):
        server.ok("PATCH", f"/api/cards/{card['id']}", {"title": f"Busy {n}"})
    page = new_page(browser, server, width=390, height=844)
    page.goto(f"/w/{server.tenant}/activity")
    items = page.get_by_role("list", name="Activity in Default").get_by_role("listitem")
    expect(items).to_have_count(50)
    expect(items.first).to_contain_text("renamed “Busy 53” to “Busy 54”")
    page.get_by_role("button", name="Show more").click()
    expect(items).to_have_count(56)
    expect(items.last).to_contain_text("created “Busy” in “To do”")
    expect(page.get_by_role("button", name="Show more")).to_be_hidden()
    # A live change goes on top; the pages loaded stay.
    server.ok("PATCH", f"/api/cards/{card['id']}", {"title": "Busy again"})
    expect(items).to_have_count(57)
    expect(items.first).to_contain_text("renamed “Busy 54” to “Busy again”")
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth")
    assert axe(page) == []
    assert not page.errors, page.errors
    page.context.close()
