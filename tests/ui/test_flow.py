"""The flow page (api.md §29): cumulative flow, lead and cycle time,
throughput and aging work as SVG from /api/flow, each with its table; a window
picker; an empty window says so."""

from conftest import new_page, expect, axe, location


def test_the_flow_page_draws_each_chart_with_its_numbers(page, server):
    todo, doing, done = server.column("To do"), server.column("Doing"), server.column("Done")
    finished = server.card("Finished work")
    server.ok("PATCH", f"/api/cards/{finished['id']}", {"columnId": doing["id"]})
    server.ok("PATCH", f"/api/cards/{finished['id']}", {"columnId": done["id"]})
    waiting = server.card("Waiting work")
    server.ok("PATCH", f"/api/cards/{waiting['id']}", {"columnId": doing["id"]})
    page.goto(f"/w/{server.tenant}")
    page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Flow").click()
    expect(page.get_by_role("heading", name="Flow of Default")).to_be_visible()
    for name in ("Cumulative flow", "Lead and cycle time", "Throughput", "Aging work"):
        region = page.get_by_role("region", name=name, exact=True)
        expect(region.get_by_role("img")).to_be_visible()
        expect(region.get_by_role("table")).to_be_visible()
    cfd = page.get_by_role("region", name="Cumulative flow", exact=True)
    expect(cfd.get_by_role("columnheader", name="Doing")).to_be_visible()
    assert cfd.locator("svg polygon").count() == 3
    times = page.get_by_role("region", name="Lead and cycle time", exact=True).get_by_role("table")
    expect(times.get_by_role("row", name="Lead time")).to_contain_text("1")
    expect(page.get_by_role("region", name="Throughput", exact=True).get_by_role("table")).to_contain_text("1")
    aging = page.get_by_role("region", name="Aging work", exact=True)
    aging.get_by_role("link", name="Waiting work").click()
    expect(page.get_by_role("dialog", name="Waiting work")).to_be_visible()
    page.go_back()
    expect(page.get_by_role("heading", name="Flow of Default")).to_be_visible()
    assert axe(page) == []
    page.get_by_role("combobox", name="Window").select_option(label="Last 14 days")
    expect(page.get_by_role("region", name="Throughput", exact=True).get_by_role("table").get_by_role("row")).to_have_count(15)


def test_an_empty_window_says_so(browser, server):
    page = new_page(browser, server, width=360, height=740, color_scheme="dark")
    page.goto(f"/w/{server.tenant}/flow")
    page.get_by_role("combobox", name="Window").select_option(label="Between two dates")
    page.get_by_label("From").fill("2020-01-01")
    page.get_by_label("To (included)").fill("2020-01-10")
    page.get_by_role("button", name="Show").click()
    expect(page.get_by_text("No card was on this board in this window.")).to_be_visible()
    expect(page.get_by_text("No card was finished in this window.")).to_have_count(2)
    expect(page.get_by_role("region", name="Throughput", exact=True).get_by_role("img")).to_have_count(0)
    assert axe(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    page.context.close()


def test_a_projects_flow_is_reached_from_its_board(page, server):
    project = server.ok("POST", "/api/projects", {"tenantId": server.tenant, "name": "Alpha"})
    server.ok("POST", "/api/cards", {"tenantId": server.tenant, "projectId": project["id"], "title": "Alpha work"})
    page.goto(f"/w/{server.tenant}/p/{project['id']}")
    expect(page.get_by_role("link", name="Alpha work")).to_be_visible()
    page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Flow").click()
    expect(page.get_by_role("heading", name="Flow of Alpha")).to_be_visible()
    assert location(page).endswith(f"/w/{server.tenant}/p/{project['id']}/flow")
    aging = page.get_by_role("region", name="Aging work", exact=True)
    expect(aging.get_by_role("link", name="Alpha work")).to_be_visible()
