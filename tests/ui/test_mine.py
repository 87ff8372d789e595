"""My cards (api.md §29): the cards assigned to the signed-in account across
its workspaces, grouped by due date in the browser's zone, each opening its card."""

from datetime import datetime, timedelta, timezone

from conftest import new_page, expect, axe


def test_my_cards_are_grouped_by_due_date(page, server):
    me = server.ok("GET", "/api/me")
    project = server.ok("POST", "/api/projects", {"tenantId": server.tenant, "name": "Alpha"})
    now = datetime.now(timezone.utc)
    local_now = datetime.now()
    soon = now + timedelta(minutes=2)
    if (local_now + timedelta(minutes=2)).date() != local_now.date():
        soon = now - timedelta(minutes=1)  # too close to midnight: no "later today" left
    for title, due in [("Late one", now - timedelta(days=2)), ("Soon one", soon),
                       ("This week one", now + timedelta(days=3)), ("Far one", now + timedelta(days=40)),
                       ("Undated one", None)]:
        server.ok("POST", "/api/cards", {"tenantId": server.tenant, "title": title, "assigneeIds": [me["id"]],
                                         "dueAt": due.isoformat() if due else None})
    server.ok("POST", "/api/cards", {"tenantId": server.tenant, "projectId": project["id"], "title": "In a project",
                                     "assigneeIds": [me["id"]]})
    server.card("Someone else's")
    page.goto(f"/w/{server.tenant}")
    page.get_by_role("link", name="My cards").click()
    expect(page.get_by_role("heading", name="My cards", level=1)).to_be_visible()
    group = lambda name: page.get_by_role("list", name=name)
    expect(group("Overdue (1)")).to_contain_text("Late one")
    if soon > now:
        expect(group("Today (1)")).to_contain_text("Soon one")
    expect(group("This week (1)")).to_contain_text("This week one")
    expect(group("Later (1)")).to_contain_text("Far one")
    expect(group("No date (2)")).to_contain_text("Undated one")
    expect(group("No date (2)")).to_contain_text("In a project")
    expect(group("Later (1)")).to_contain_text("Default · To do")
    expect(page.get_by_text("Someone else's")).to_have_count(0)
    assert axe(page) == []
    page.get_by_role("link", name="Far one").click()
    expect(page.get_by_role("dialog", name="Far one")).to_be_visible()


def test_my_cards_empty_at_360_px_in_dark_mode(browser, server):
    page = new_page(browser, server, width=360, height=740, color_scheme="dark")
    page.goto("/me")
    expect(page.get_by_text("No card is assigned to you.")).to_be_visible()
    assert axe(page) == []
    assert page.evaluate("() => document.documentElement.scrollWidth") <= 360
    page.context.close()
