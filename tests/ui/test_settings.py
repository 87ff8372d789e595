"""The settings of a workspace, the account page and the archived cards (§23,
§25): members, invitations, projects, workspace settings, webhooks; name,
password and personal tokens; restoring archived cards."""

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import BACKENDS, PASSWORD, Server, new_page, open_board, expect, axe, eventually

NEW_PASSWORD = "purple elephants dance quietly at noon"


def workspace_name(server):
    return server.ok("GET", "/api/me")["workspaces"][0]["name"]


def add_member(server, name, role="MEMBER"):
    """An account made through an invitation accepted over the API; returns its member entry."""
    invitation = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": role})
    server.ok("POST", "/api/invitations/accept", {"code": invitation["code"], "name": name, "password": PASSWORD}, token="")
    return next(m for m in members(server) if m["name"] == name)


def members(server):
    return server.ok("GET", f"/api/members?tenant={server.tenant}")


def role_of(server, name):
    return next((m["role"] for m in members(server) if m["name"] == name), None)


def open_settings(page, server):
    page.goto(f"/w/{server.tenant}/settings")
    expect(page.get_by_role("heading", name=f"Settings of {workspace_name(server)}", level=1)).to_be_visible()
    for panel in ("Members", "Invitations", "Projects", "Workspace settings", "Webhooks"):
        expect(page.get_by_role("region", name=panel)).to_be_visible()
    expect(page.get_by_text("Loading…")).to_have_count(0)


def join(browser, server, url, name):
    """Opens an invitation link in a fresh signed-out page and joins as `name`."""
    guest = new_page(browser, server, signed_in=False)
    guest.goto(url)
    expect(guest.get_by_role("heading", name="Join the workspace")).to_be_visible()
    guest.get_by_label("Name").fill(name)
    guest.get_by_label("Password").fill(PASSWORD)
    guest.get_by_role("button", name="Join").click()
    expect(guest.get_by_role("region", name="To do")).to_be_visible()
    return guest


# Settings: members

def test_an_admin_changes_a_members_role_and_the_server_keeps_it(page, server):
    add_member(server, "Bruno")
    open_settings(page, server)
    assert axe(page) == []
    section = page.get_by_role("region", name="Members")
    expect(section.get_by_role("cell", name="admin (you)")).to_be_visible()
    select = section.get_by_role("combobox", name="Role of Bruno")
    expect(select).to_have_value("MEMBER")
    select.select_option(label="Admin")
    expect(section.get_by_text("Bruno is now Admin.")).to_be_visible()
    eventually(lambda: role_of(server, "Bruno") == "ADMIN")
    select.select_option(label="Viewer")
    expect(section.get_by_text("Bruno is now Viewer.")).to_be_visible()
    eventually(lambda: role_of(server, "Bruno") == "VIEWER")
    page.reload()
    expect(page.get_by_role("combobox", name="Role of Bruno")).to_have_value("VIEWER")


def test_removing_a_member_asks_first_and_takes_them_off_the_workspace(page, server):
    add_member(server, "Bruno")
    open_settings(page, server)
    section = page.get_by_role("region", name="Members")
    # Cancel keeps them.
    section.get_by_role("button", name="Remove Bruno").click()
    dialog = page.get_by_role("dialog", name="Remove Bruno from the workspace?")
    expect(dialog).to_be_visible()
    assert axe(page) == []
    dialog.get_by_role("button", name="Cancel").click()
    expect(dialog).to_have_count(0)
    expect(section.get_by_role("button", name="Remove Bruno")).to_be_focused()
    assert role_of(server, "Bruno") == "MEMBER"
    # Confirmed, they go.
    section.get_by_role("button", name="Remove Bruno").click()
    dialog.get_by_role("button", name="Remove", exact=True).click()
    expect(section.get_by_text("Bruno was removed from the workspace.")).to_be_visible()
    expect(section.get_by_role("combobox", name="Role of Bruno")).to_have_count(0)
    eventually(lambda: role_of(server, "Bruno") is None)
    page.reload()
    expect(page.get_by_role("combobox", name="Role of admin")).to_be_visible()
    expect(page.get_by_role("combobox", name="Role of Bruno")).to_have_count(0)


def test_demoting_the_last_admin_shows_the_servers_refusal_and_puts_the_role_back(page, server):
    add_member(server, "Bruno")
    me = server.ok("GET", "/api/me")
    open_settings(page, server)
    section = page.get_by_role("region", name="Members")
    select = section.get_by_role("combobox", name="Role of admin")
    select.select_option(label="Member")
    status, refused = server.api("PATCH", f"/api/members/{me['id']}", {"tenantId": server.tenant, "role": "MEMBER"})
    assert (status, refused["error"]) == (422, "LAST_ADMIN")
    expect(section.get_by_role("alert")).to_have_text(refused["message"])
    expect(select).to_have_value("ADMIN")
    expect(select).to_be_enabled()
    assert role_of(server, "admin") == "ADMIN"
    # Removing oneself, the last ADMIN, is refused the same way.
    section.get_by_role("button", name="Remove admin").click()
    page.get_by_role("dialog", name="Remove admin from the workspace?").get_by_role("button", name="Remove", exact=True).click()
    _, removal = server.api("DELETE", f"/api/members/{me['id']}?tenant={server.tenant}")
    expect(section.get_by_role("alert")).to_have_text(removal["message"])
    expect(section.get_by_role("combobox", name="Role of admin")).to_be_visible()
    assert axe(page) == []


def test_an_admin_who_demotes_themself_loses_the_settings_page(page, server):
    add_member(server, "Bruno", "ADMIN")
    open_settings(page, server)
    page.get_by_role("combobox", name="Role of admin").select_option(label="Member")
    expect(page.get_by_text("Only ADMINs of this workspace can change its settings.")).to_be_visible()
    expect(page.get_by_role("region", name="Members")).to_have_count(0)
    expect(page.get_by_role("link", name="Settings")).to_have_count(0)
    assert role_of(server, "admin") == "MEMBER"
    assert server.ok("GET", "/api/me")["workspaces"][0]["role"] == "MEMBER"


# Settings: invitations

def test_an_invitation_link_is_shown_once_and_brings_a_new_member_in(browser, page, server):
    open_settings(page, server)
    section = page.get_by_role("region", name="Invitations")
    expect(section.get_by_text("No open invitation.")).to_be_visible()
    section.get_by_label("Role").select_option(label="Viewer")
    section.get_by_role("button", name="Create invitation").click()
    link = section.get_by_label("Invitation link")
    expect(link).to_have_value(re.compile(r"^http.*/invite#\S+$"))
    expect(link).to_be_focused()
    expect(section.get_by_role("button", name="Copy link")).to_be_visible()
    expect(section.get_by_role("button", name=re.compile("^Revoke the Viewer invitation that expires "))).to_be_visible()
    open_ = server.ok("GET", f"/api/invitations?tenant={server.tenant}")
    assert [i["role"] for i in open_] == ["VIEWER"] and "code" not in open_[0]
    assert axe(page) == []
    guest = join(browser, server, link.input_value(), "Carla")
    expect(guest.get_by_role("link", name="Account: Carla")).to_be_visible()
    guest.context.close()
    assert role_of(server, "Carla") == "VIEWER"
    assert server.ok("GET", f"/api/invitations?tenant={server.tenant}") == []
    # Shown once: a reload shows the new member and no link.
    page.reload()
    expect(page.get_by_role("combobox", name="Role of Carla")).to_have_value("VIEWER")
    expect(page.get_by_label("Invitation link")).to_have_count(0)
    expect(page.get_by_role("region", name="Invitations").get_by_text("No open invitation.")).to_be_visible()


def test_a_revoked_invitation_leaves_the_list_and_the_server(page, server):
    server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": "ADMIN"})
    kept = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": "MEMBER"})
    open_settings(page, server)
    section = page.get_by_role("region", name="Invitations")
    revoke_admin = section.get_by_role("button", name=re.compile("^Revoke the Admin invitation that expires "))
    revoke_member = section.get_by_role("button", name=re.compile("^Revoke the Member invitation that expires "))
    expect(revoke_member).to_be_visible()
    revoke_admin.click()
    expect(section.get_by_text("Invitation revoked.")).to_be_visible()
    expect(revoke_admin).to_have_count(0)
    expect(revoke_member).to_be_visible()
    eventually(lambda: [i["id"] for i in server.ok("GET", f"/api/invitations?tenant={server.tenant}")] == [kept["id"]])
    revoke_member.click()
    expect(section.get_by_text("No open invitation.")).to_be_visible()
    eventually(lambda: server.ok("GET", f"/api/invitations?tenant={server.tenant}") == [])


# Settings: projects

def test_a_new_project_can_be_renamed_and_appears_in_the_boards_project_switcher(page, server):
    open_settings(page, server)
    section = page.get_by_role("region", name="Projects")
    expect(section.get_by_text("No project yet")).to_be_visible()
    section.get_by_label("Project name").fill("Alpha")
    section.get_by_role("button", name="Create project").click()
    expect(section.get_by_text("Project Alpha created.")).to_be_visible()
    expect(section.get_by_label("Project name")).to_have_value("")
    projects = lambda: server.ok("GET", "/api/me")["workspaces"][0]["projects"]
    eventually(lambda: [p["name"] for p in projects()] == ["Alpha"])
    section.get_by_role("textbox", name="New name of Alpha").fill("Beta")
    section.get_by_role("button", name="Rename Alpha").click()
    expect(section.get_by_text("Project renamed to Beta.")).to_be_visible()
    expect(section.get_by_role("textbox", name="New name of Beta")).to_have_value("Beta")
    eventually(lambda: [p["name"] for p in projects()] == ["Beta"])
    assert axe(page) == []
    page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Board").click()
    switcher = page.get_by_role("combobox", name="Project")
    expect(switcher.get_by_role("option")).to_have_text(["Whole workspace", "Beta"])
    switcher.select_option(label="Beta")
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}/p/{projects()[0]['id']}")
    expect(page.get_by_role("region", name="To do")).to_be_visible()


# Settings: the workspace's settings

def test_workspace_settings_are_saved_and_the_server_keeps_them(page, server):
    before = server.ok("GET", f"/api/settings?tenant={server.tenant}")
    assert (before["columnManagement"], before["wipLimits"]) == (True, "SOFT")
    open_settings(page, server)
    section = page.get_by_role("region", name="Workspace settings")
    expect(section.get_by_role("checkbox", name="Column management")).to_be_checked()
    expect(section.get_by_role("radio", name="Soft: mark columns over their limit")).to_be_checked()
    expect(section.get_by_role("radio", name="One set of columns for the whole workspace")).to_be_checked()
    section.get_by_role("checkbox", name="Column management").uncheck()
    section.get_by_role("radio", name="Hard: refuse cards beyond a column's limit").check()
    section.get_by_role("button", name="Save settings").click()
    expect(section.get_by_text("Settings saved.")).to_be_visible()
    settings = lambda: server.ok("GET", f"/api/settings?tenant={server.tenant}")
    eventually(lambda: (settings()["columnManagement"], settings()["wipLimits"]) == (False, "HARD"))
    after = settings()
    assert (after["columnScope"], after["allowCrossProjectLinks"]) == (before["columnScope"], before["allowCrossProjectLinks"])
    page.reload()
    section = page.get_by_role("region", name="Workspace settings")
    expect(section.get_by_role("checkbox", name="Column management")).not_to_be_checked()
    expect(section.get_by_role("radio", name="Hard: refuse cards beyond a column's limit")).to_be_checked()
    # The board follows: no column controls, and a note says why.
    open_board(page, server)
    expect(page.get_by_text("Column management is off")).to_be_visible()
    expect(page.get_by_role("button", name="Add column")).to_have_count(0)


# Settings: webhooks

def test_a_webhook_to_a_private_address_is_refused_with_the_servers_message(page, server):
    open_settings(page, server)
    section = page.get_by_role("region", name="Webhooks")
    expect(section.get_by_text("No webhook yet.")).to_be_visible()
    expect(section.get_by_role("checkbox", name="All events")).to_be_checked()
    section.get_by_label("URL").fill("http://127.0.0.1:9/hook")
    section.get_by_role("button", name="Add webhook").click()
    status, refused = server.api("POST", "/api/webhooks", {"tenantId": server.tenant, "url": "http://127.0.0.1:9/hook"})
    assert (status, refused["error"]) == (422, "WEBHOOK_TARGET")
    expect(section.get_by_role("alert")).to_have_text(refused["message"])
    expect(section.get_by_label("URL")).to_have_value("http://127.0.0.1:9/hook")
    expect(section.get_by_text("No webhook yet.")).to_be_visible()
    assert server.ok("GET", f"/api/webhooks?tenant={server.tenant}") == []
    assert axe(page) == []


class Receiver:
    """A local webhook receiver that answers 204 and keeps what it got."""

    def __init__(self):
        got = self.got = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                got.append((self.headers["X-Board-Event"], json.loads(body)))
                self.send_response(204)
                self.end_headers()

            def log_message(self, *args):
                pass

        self.http = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.http.server_port}/hook"
        threading.Thread(target=self.http.serve_forever, daemon=True).start()

    def close(self):
        self.http.shutdown()
        self.http.server_close()


@pytest.fixture(params=BACKENDS)
def private_server(request):
    """A board-server that lets webhooks reach loopback addresses."""
    s = Server(request.param, ["--webhook-allow-private=true"])
    yield s
    s.stop()


@pytest.fixture
def receiver():
    r = Receiver()
    yield r
    r.close()


def test_an_added_webhook_shows_its_secret_once_its_deliveries_and_can_be_paused(browser, private_server, receiver):
    server, url = private_server, receiver.url
    page = new_page(browser, server)
    open_settings(page, server)
    section = page.get_by_role("region", name="Webhooks")
    section.get_by_label("URL").fill(url)
    section.get_by_role("button", name="Add webhook").click()
    expect(section.get_by_text("Webhook added.")).to_be_visible()
    expect(section.get_by_label("Webhook secret")).to_have_value(re.compile(r"^\S{16,}$"))
    expect(section.get_by_label("URL")).to_have_value("")
    hooks = lambda: server.ok("GET", f"/api/webhooks?tenant={server.tenant}")
    assert [(w["url"], w["active"]) for w in hooks()] == [(url, True)]
    server.card("Delivered")
    eventually(lambda: [t for t, _ in receiver.got] == ["card.created"], timeout=10)
    eventually(lambda: hooks()[0]["lastStatus"] == 204)
    section.get_by_role("button", name=f"Deliveries to {url}").click()
    expect(section.get_by_role("heading", name=f"Deliveries to {url}")).to_be_visible()
    row = section.get_by_role("row").filter(has=page.get_by_role("cell", name="card.created", exact=True))
    expect(row.get_by_role("cell", name="204", exact=True)).to_be_visible()
    expect(section.get_by_role("button", name=f"Deliveries to {url}")).to_have_attribute("aria-expanded", "true")
    assert axe(page) == []
    enabled = section.get_by_role("checkbox", name=f"Enabled: {url}")
    enabled.uncheck()
    expect(section.get_by_text(f"Deliveries to {url} paused.")).to_be_visible()
    eventually(lambda: hooks()[0]["active"] is False)
    enabled.check()
    expect(section.get_by_text(f"Deliveries to {url} resumed.")).to_be_visible()
    eventually(lambda: hooks()[0]["active"] is True)
    page.reload()
    expect(page.get_by_label("Webhook secret")).to_have_count(0)
    expect(page.get_by_role("checkbox", name=f"Enabled: {url}")).to_be_checked()
    assert not page.errors, page.errors
    page.context.close()


def test_a_webhook_is_deleted_after_the_confirmation(page, server):
    server.ok("POST", "/api/webhooks", {"tenantId": server.tenant, "url": "https://1.1.1.1/board"})
    open_settings(page, server)
    section = page.get_by_role("region", name="Webhooks")
    section.get_by_role("button", name="Delete webhook https://1.1.1.1/board").click()
    dialog = page.get_by_role("dialog", name="Delete this webhook?")
    expect(dialog).to_contain_text("No more events will be sent to https://1.1.1.1/board.")
    assert axe(page) == []
    dialog.get_by_role("button", name="Delete", exact=True).click()
    expect(section.get_by_text("Webhook deleted.")).to_be_visible()
    expect(section.get_by_text("No webhook yet.")).to_be_visible()
    eventually(lambda: server.ok("GET", f"/api/webhooks?tenant={server.tenant}") == [])


def test_a_webhook_for_chosen_events_needs_at_least_one_and_keeps_the_choice(page, server):
    url = "https://1.1.1.1/chosen"
    open_settings(page, server)
    section = page.get_by_role("region", name="Webhooks")
    section.get_by_label("URL").fill(url)
    section.get_by_role("checkbox", name="All events").uncheck()
    expect(section.get_by_role("checkbox", name="card.moved")).to_be_visible()
    assert axe(page) == []
    section.get_by_role("button", name="Add webhook").click()
    expect(section.get_by_role("alert")).to_have_text("Check at least one event, or check “All events”.")
    expect(section.get_by_role("checkbox", name="column.created")).to_be_focused()
    assert server.ok("GET", f"/api/webhooks?tenant={server.tenant}") == []
    section.get_by_role("checkbox", name="card.moved").check()
    section.get_by_role("checkbox", name="card.archived").check()
    section.get_by_role("button", name="Add webhook").click()
    expect(section.get_by_text("Webhook added.")).to_be_visible()
    expect(section.get_by_role("alert")).to_be_hidden()
    expect(section.get_by_role("row").filter(has_text=url)).to_contain_text("card.moved, card.archived")
    # The form is back to "All events".
    expect(section.get_by_role("checkbox", name="All events")).to_be_checked()
    expect(section.get_by_role("checkbox", name="card.moved")).to_be_hidden()
    hooks = server.ok("GET", f"/api/webhooks?tenant={server.tenant}")
    assert [(w["url"], sorted(w["events"])) for w in hooks] == [(url, ["card.archived", "card.moved"])]


# Settings: only for ADMINs

def test_a_member_sees_no_settings_link_and_the_settings_page_says_only_admins_may(browser, server):
    invitation = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": "MEMBER"})
    page = join(browser, server, invitation["url"], "Dora")
    nav = page.get_by_role("navigation", name="Workspace")
    expect(nav.get_by_role("link", name="Board")).to_be_visible()
    expect(nav.get_by_role("link", name="Archived cards")).to_be_visible()
    expect(page.get_by_role("link", name="Settings")).to_have_count(0)
    page.goto(f"/w/{server.tenant}/settings")
    expect(page.get_by_role("heading", name=f"Settings of {workspace_name(server)}")).to_be_visible()
    expect(page.get_by_text("Only ADMINs of this workspace can change its settings.")).to_be_visible()
    for panel in ("Members", "Invitations", "Webhooks"):
        expect(page.get_by_role("region", name=panel)).to_have_count(0)
    assert axe(page) == []
    assert role_of(server, "Dora") == "MEMBER"
    assert not page.errors, page.errors
    page.context.close()


# The account page

def test_the_account_page_leads_back_to_the_board_and_searches_it(page, server):
    page.goto("/account")
    expect(page.get_by_role("heading", name="Your account", level=1)).to_be_visible()
    page.get_by_role("searchbox").fill("nothing-here")
    page.get_by_role("link", name="Board", exact=True).click()
    expect(page).to_have_url(re.compile(r"/w/\w+$"))
    assert not page.errors, page.errors


def test_a_new_name_is_saved_and_shown_in_the_header(page, server):
    page.goto("/account")
    expect(page.get_by_role("heading", name="Your account", level=1)).to_be_visible()
    expect(page.get_by_role("link", name="Account: admin")).to_have_attribute("aria-current", "page")
    assert axe(page) == []
    section = page.get_by_role("region", name="Name")
    expect(section.get_by_label("Name")).to_have_value("admin")
    section.get_by_label("Name").fill("Ada Lovelace")
    section.get_by_role("button", name="Save name").click()
    expect(page.get_by_role("link", name="Account: Ada Lovelace")).to_be_visible()
    expect(page.get_by_role("region", name="Name").get_by_label("Name")).to_have_value("Ada Lovelace")
    eventually(lambda: server.ok("GET", "/api/me")["name"] == "Ada Lovelace")
    page.reload()
    expect(page.get_by_role("link", name="Account: Ada Lovelace")).to_be_visible()


def test_a_name_taken_by_another_account_is_refused_with_the_servers_message(page, server):
    add_member(server, "Bruno")
    page.goto("/account")
    section = page.get_by_role("region", name="Name")
    section.get_by_label("Name").fill("Bruno")
    section.get_by_role("button", name="Save name").click()
    status, refused = server.api("PATCH", "/api/me", {"name": "Bruno"})
    assert (status, refused["error"]) == (409, "NAME_TAKEN")
    expect(section.get_by_role("alert")).to_have_text(refused["message"])
    expect(page.get_by_role("link", name="Account: admin")).to_be_visible()
    assert server.ok("GET", "/api/me")["name"] == "admin"


def test_a_password_change_needs_the_current_password_and_then_signs_in(page, server):
    page.goto("/account")
    section = page.get_by_role("region", name="Password")
    section.get_by_label("Current password").fill("not my password at all")
    section.get_by_label("New password").fill(NEW_PASSWORD)
    section.get_by_role("button", name="Change password").click()
    status, refused = server.api("PATCH", "/api/me", {"password": {"current": "still not it, sorry", "new": NEW_PASSWORD}})
    assert (status, refused["error"]) == (422, "WRONG_PASSWORD")
    expect(section.get_by_role("alert")).to_have_text(refused["message"])
    assert server.api("POST", "/api/session", {"name": "admin", "password": PASSWORD}, token="")[0] == 200
    section.get_by_label("Current password").fill(PASSWORD)
    section.get_by_label("New password").fill(NEW_PASSWORD)
    section.get_by_role("button", name="Change password").click()
    expect(section.get_by_text("Password changed. Your other sessions were signed out.")).to_be_visible()
    expect(section.get_by_role("alert")).to_be_hidden()
    expect(section.get_by_label("Current password")).to_have_value("")
    assert server.api("POST", "/api/session", {"name": "admin", "password": NEW_PASSWORD}, token="")[0] == 200
    assert server.api("POST", "/api/session", {"name": "admin", "password": PASSWORD}, token="")[0] == 401
    # This browser's session was kept.
    page.reload()
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()


def test_a_personal_token_is_shown_once_works_as_a_bearer_and_can_be_revoked(page, server):
    page.goto("/account")
    section = page.get_by_role("region", name="Personal tokens")
    section.get_by_label("Token label").fill("ci script")
    section.get_by_label("Expires in days").fill("30")
    section.get_by_role("button", name="Create token").click()
    shown = section.get_by_label("New token")
    expect(shown).not_to_have_value("")
    token = shown.input_value()
    expect(section.get_by_role("button", name="Copy token")).to_be_visible()
    assert server.ok("GET", "/api/me", token=token)["name"] == "admin"
    made = [t for t in server.ok("GET", "/api/tokens") if t["label"] == "ci script"]
    assert len(made) == 1 and made[0]["kind"] == "personal" and made[0]["expiresAt"]
    expect(section.get_by_role("cell", name="ci script", exact=True)).to_be_visible()
    assert axe(page) == []
    page.reload()
    expect(page.get_by_label("New token")).to_have_count(0)
    section = page.get_by_role("region", name="Personal tokens")
    section.get_by_role("button", name="Revoke ci script").click()
    expect(section.get_by_text("Revoked.")).to_be_visible()
    expect(section.get_by_role("button", name="Revoke ci script")).to_have_count(0)
    eventually(lambda: server.api("GET", "/api/me", token=token)[0] == 401)
    assert [t for t in server.ok("GET", "/api/tokens") if t["label"] == "ci script"] == []


def test_revoking_the_session_in_use_signs_the_browser_out(page, server):
    # Two sessions: the one the reset link made, and the browser's (marked as such).
    sessions = lambda: [t for t in server.ok("GET", "/api/tokens") if t["kind"] == "session"]
    page.goto("/account")
    expect(page.get_by_role("heading", name="Your account")).to_be_visible()
    assert len(sessions()) == 2
    section = page.get_by_role("region", name="Sessions")
    expect(section.get_by_role("row").filter(has_text="(this browser)")).to_have_count(1)
    expect(section.get_by_role("button", name=re.compile("^Revoke the session signed in "))).to_have_count(1)
    revoke = section.get_by_role("button", name="Revoke this browser's session (signs you out)")
    revoke.click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert len(sessions()) == 1


# The archived cards

def archived_titles(server):
    return [c["title"] for c in server.ok("GET", f"/api/cards?tenant={server.tenant}&archived=true")["cards"]]


def board_titles(server, column="To do"):
    return [c["title"] for c in server.column(column)["cards"]]


def test_archived_cards_are_listed_and_a_restored_one_goes_back_to_the_board(page, server):
    server.card("Stays")
    for title in ("First archived", "Second archived"):
        server.ok("POST", f"/api/cards/{server.card(title)['id']}/archive")
    page.goto(f"/w/{server.tenant}/archived")
    listing = page.get_by_role("list", name=f"Archived cards of {workspace_name(server)}")
    expect(listing.get_by_role("link")).to_have_text(["Second archived", "First archived"])
    expect(page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Archived cards")).to_have_attribute("aria-current", "page")
    assert axe(page) == []
    listing.get_by_role("button", name="Restore First archived").click()
    expect(listing.get_by_role("link")).to_have_text(["Second archived"])
    expect(listing.get_by_role("button", name="Restore Second archived")).to_be_focused()
    eventually(lambda: archived_titles(server) == ["Second archived"])
    assert board_titles(server) == ["Stays", "First archived"]
    # The last one restored, the page says there is none.
    listing.get_by_role("button", name="Restore Second archived").click()
    expect(page.get_by_text("No archived card.")).to_be_visible()
    eventually(lambda: archived_titles(server) == [])
    open_board(page, server)
    expect(page.get_by_role("list", name="Cards in To do").get_by_role("link")).to_have_text(
        ["Stays", "First archived", "Second archived"])


def test_a_restore_into_a_full_column_under_hard_wip_limits_shows_the_refusal(page, server):
    parked = server.card("Parked")
    server.ok("POST", f"/api/cards/{parked['id']}/archive")
    server.card("Filling")
    server.ok("PATCH", f"/api/columns/{server.column('To do')['id']}", {"wipLimit": 1})
    server.ok("PATCH", "/api/settings", {"tenantId": server.tenant, "wipLimits": "HARD"})
    page.goto(f"/w/{server.tenant}/archived")
    listing = page.get_by_role("list", name=f"Archived cards of {workspace_name(server)}")
    listing.get_by_role("button", name="Restore Parked").click()
    status, refused = server.api("POST", f"/api/cards/{parked['id']}/restore")
    assert (status, refused["error"]) == (422, "WIP_LIMIT")
    expect(page.get_by_role("alert")).to_have_text(refused["message"])
    expect(listing.get_by_role("link")).to_have_text(["Parked"])
    expect(listing.get_by_role("button", name="Restore Parked")).to_be_enabled()
    assert archived_titles(server) == ["Parked"]
    assert board_titles(server) == ["Filling"]
    assert axe(page) == []


def test_a_viewer_sees_archived_cards_but_no_restore_button(browser, server):
    server.ok("POST", f"/api/cards/{server.card('Old')['id']}/archive")
    invitation = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": "VIEWER"})
    page = join(browser, server, invitation["url"], "Vera")
    page.get_by_role("navigation", name="Workspace").get_by_role("link", name="Archived cards").click()
    listing = page.get_by_role("list", name=f"Archived cards of {workspace_name(server)}")
    expect(listing.get_by_role("link")).to_have_text(["Old"])
    expect(page.get_by_role("button", name="Restore Old")).to_have_count(0)
    assert axe(page) == []
    assert not page.errors, page.errors
    page.context.close()


def test_more_than_a_page_of_archived_cards_shows_the_rest_on_show_more(page, server):
    column = server.column("To do")["id"]
    for i in range(52):
        card = server.ok("POST", "/api/cards", {"tenantId": server.tenant, "columnId": column, "title": f"Card {i:02}"})
        server.ok("POST", f"/api/cards/{card['id']}/archive")
    page.goto(f"/w/{server.tenant}/archived")
    links = page.get_by_role("list", name=f"Archived cards of {workspace_name(server)}").get_by_role("link")
    expect(links).to_have_count(50)
    expect(links.first).to_have_text("Card 51")
    page.get_by_role("button", name="Show more").click()
    expect(links).to_have_count(52)
    expect(links.last).to_have_text("Card 00")
    expect(links.nth(50)).to_be_focused()
    expect(page.get_by_role("button", name="Show more")).to_be_hidden()
    assert links.all_inner_texts() == archived_titles_all(server)


def archived_titles_all(server):
    titles, cursor = [], ""
    while True:
        res = server.ok("GET", f"/api/cards?tenant={server.tenant}&archived=true&limit=200{cursor}")
        titles += [c["title"] for c in res["cards"]]
        if not res["nextCursor"]:
            return titles
        cursor = f"&cursor={res['nextCursor']}"
