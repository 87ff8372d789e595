"""Sign-in, sign-out, the first run's reset link and an invitation (§23, §25)."""

from conftest import PASSWORD, new_page, expect, axe


def test_the_first_run_link_sets_the_password_and_opens_the_board(browser, server):
    page = new_page(browser, server, signed_in=False)
    page.goto(server.reset_link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    expect(page.get_by_text("Set a new password for admin.")).to_be_visible()
    # A password manager files the new password under the account's name.
    expect(page.locator("input[autocomplete=username]")).to_have_value("admin")
    assert axe(page) == []
    page.get_by_label("New password").fill("password")
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_role("alert")).to_contain_text("password")  # the server's WEAK_PASSWORD message
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_role("button", name="Set password").click()
    for name in ("To do", "Doing", "Done"):
        expect(page.get_by_role("region", name=name)).to_be_visible()
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}")
    assert page.errors == []


def test_sign_in_refusals_show_the_servers_message_and_sign_out_ends_the_session(browser, server):
    server.set_admin_password()
    page = new_page(browser, server, signed_in=False)
    page.goto("/")
    expect(page.get_by_role("heading", name="Sign in to board")).to_be_visible()
    assert axe(page) == []
    page.get_by_label("Name").fill("admin")
    page.get_by_label("Password").fill("not the password")
    page.get_by_role("button", name="Sign in").click()
    _, wrong = server.api("POST", "/api/session", {"name": "admin", "password": "not it either"})
    expect(page.get_by_role("alert")).to_have_text(wrong["message"])
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("region", name="Doing")).to_be_visible()
    # A reload comes back to the same board; "/" opens the last one.
    page.reload()
    expect(page.get_by_role("region", name="Doing")).to_be_visible()
    page.goto("/")
    expect(page).to_have_url(f"{server.base}/w/{server.tenant}")
    page.get_by_role("button", name="Sign out").click()
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()
    assert [c for c in page.context.cookies() if c["name"] == "board_session"] == []
    page.goto(f"/w/{server.tenant}")
    expect(page.get_by_role("button", name="Sign in")).to_be_visible()


def test_too_many_attempts_say_when_to_retry(browser, server):
    server.set_admin_password()
    page = new_page(browser, server, signed_in=False)
    page.goto("/")
    page.get_by_label("Name").fill("admin")
    for _ in range(6):
        page.get_by_label("Password").fill("wrong password")
        page.get_by_role("button", name="Sign in").click()
        expect(page.get_by_role("button", name="Sign in")).to_be_enabled()
    expect(page.get_by_role("alert")).to_contain_text("Try again in")


def test_an_invitation_link_creates_the_account_and_signs_it_in(browser, server):
    invitation = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": "MEMBER"})
    page = new_page(browser, server, signed_in=False)
    page.goto(invitation["url"])
    expect(page.get_by_role("heading", name="Join the workspace")).to_be_visible()
    assert axe(page) == []
    page.get_by_label("Name").fill("Ana Lima")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Join").click()
    expect(page.get_by_role("region", name="To do")).to_be_visible()
    expect(page.get_by_role("link", name="Account: Ana Lima")).to_be_visible()
    # A MEMBER sees no settings, but manages columns.
    expect(page.get_by_role("link", name="Settings")).to_have_count(0)
    expect(page.get_by_role("button", name="Add column")).to_be_visible()
    # The code served once.
    other = new_page(browser, server, signed_in=False)
    other.goto(invitation["url"])
    other.get_by_label("Name").fill("Bruno")
    other.get_by_label("Password").fill(PASSWORD)
    other.get_by_role("button", name="Join").click()
    expect(other.get_by_role("alert")).to_be_visible()


def test_a_reset_link_that_no_longer_serves_says_so_at_once(browser, server):
    server.set_admin_password()
    page = new_page(browser, server, signed_in=False)
    page.goto(server.reset_link)
    expect(page.get_by_role("heading", name="Choose a new password")).to_be_visible()
    expect(page.get_by_role("alert")).to_be_visible()
    expect(page.get_by_label("New password")).to_have_count(0)
    assert axe(page) == []
