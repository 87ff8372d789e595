"""E-mail in the browser (§26), against the SMTP server that `BOARD_TEST_SMTP_URL`
names (`.ci/smtp-server`); skipped without it: the account page's address and
preferences, and "Forgot password?" on the sign-in page."""

import os

import pytest

from conftest import BACKENDS, Server, new_page, expect, axe

SMTP = os.environ.get("BOARD_TEST_SMTP_URL", "")
pytestmark = pytest.mark.skipif(not SMTP, reason="BOARD_TEST_SMTP_URL is not set")


@pytest.fixture(params=BACKENDS)
def mail_server(request):
    s = Server(request.param, ["--smtp-url", SMTP, "--mail-from", "board@example.test"])
    yield s
    s.stop()


def test_the_account_page_sets_the_address_and_what_to_send(browser, mail_server):
    server = mail_server
    page = new_page(browser, server)
    page.goto("/account")
    section = page.get_by_role("region", name="E-mail")
    expect(section.get_by_text("No address: notifications stay in the app.")).to_be_visible()
    section.get_by_label("E-mail address").fill("admin@example.test")
    section.get_by_role("button", name="Save address").click()
    expect(page.get_by_role("region", name="E-mail").get_by_text("Not verified yet")).to_be_visible()
    me = server.ok("GET", "/api/me")
    assert (me["email"], me["emailVerified"], me["mail"]) == ("admin@example.test", False, True)

    section = page.get_by_role("region", name="E-mail")
    expect(section.get_by_role("checkbox", name="I am mentioned")).to_be_checked()
    expect(section.get_by_role("checkbox", name="A comment on a card I watch")).not_to_be_checked()
    section.get_by_role("checkbox", name="A comment on a card I watch").check()
    section.get_by_role("checkbox", name="I am mentioned").uncheck()
    section.get_by_label("Gather e-mails for").fill("0")
    section.get_by_role("button", name="Save preferences").click()
    expect(section.get_by_text("Preferences saved.")).to_be_visible()
    prefs = server.ok("GET", "/api/me/notifications")
    assert prefs["email"]["commented"] is True and prefs["email"]["mentioned"] is False
    assert prefs["batchMinutes"] == 0
    assert axe(page) == []

    # A bad value is refused with the server's words, and nothing changes.
    section.get_by_label("Gather e-mails for").fill("5000")
    section.get_by_role("button", name="Save preferences").click()
    expect(section.get_by_role("alert")).to_contain_text("1440")
    assert server.ok("GET", "/api/me/notifications")["batchMinutes"] == 0
    assert page.errors == []


def test_forgot_password_asks_for_a_link_and_says_the_same_either_way(browser, mail_server):
    server = mail_server
    server.set_admin_password()
    page = new_page(browser, server, signed_in=False)
    page.goto("/")
    expect(page.get_by_role("heading", name="Sign in to board")).to_be_visible()
    page.get_by_text("Forgot password?").click()
    page.get_by_label("Name or e-mail address").fill("nobody-at-all")
    page.get_by_role("button", name="Send a reset link").click()
    said = page.get_by_role("status").filter(has_text="a reset link is on its way")
    expect(said).to_be_visible()
    assert axe(page) == []
    assert page.errors == []


def test_without_mail_there_is_no_forgotten_password_link(browser, server):
    page = new_page(browser, server, signed_in=False)
    page.goto("/")
    expect(page.get_by_role("heading", name="Sign in to board")).to_be_visible()
    expect(page.get_by_text("Forgot password?")).to_have_count(0)
    signed_in = new_page(browser, server)
    signed_in.goto("/account")
    expect(signed_in.get_by_role("heading", name="Your account")).to_be_visible()
    expect(signed_in.get_by_role("region", name="Name")).to_be_visible()
    expect(signed_in.get_by_role("region", name="E-mail")).to_have_count(0)
