"""Single sign-on in the browser (§27), against the OpenID provider that
`BOARD_TEST_OIDC_URL` names (`.ci/oidc-provider`); skipped without it. The
provider's own authorization form is filled as a person would: the subject,
then "Authorize"."""

import json
import os
import re
import urllib.request
import uuid

import pytest

from conftest import BACKENDS, Server, new_page, expect, axe

OIDC = os.environ.get("BOARD_TEST_OIDC_URL", "").rstrip("/")
pytestmark = pytest.mark.skipif(not OIDC, reason="BOARD_TEST_OIDC_URL is not set")


@pytest.fixture(params=BACKENDS)
def sso_server(request):
    s = Server(request.param, ["--oidc-issuer", OIDC, "--oidc-client-id", "board-ui",
                                "--oidc-client-secret", "board-ui-secret", "--oidc-name", "Mock ID"])
    yield s
    s.stop()


def person(claims):
    """A fresh subject at the provider, with `claims`."""
    sub = f"ui-{uuid.uuid4().hex[:12]}"
    req = urllib.request.Request(f"{OIDC}/users/{sub}", data=json.dumps(claims).encode(), method="PUT",
                                 headers={"Content-Type": "application/json"})
    urllib.request.urlopen(req).close()
    return sub


def authorize(page, sub):
    """Says yes as `sub` on the provider's page (not board's: its one text field)."""
    page.locator("input[name=sub]").fill(sub)
    page.get_by_role("button", name="Authorize").click()


def test_a_person_is_refused_then_joins_with_the_provider_and_sees_the_identity(browser, sso_server):
    s = sso_server
    sub = person({"preferred_username": "grace"})
    page = new_page(browser, s, signed_in=False)
    page.goto("/")
    expect(page.get_by_role("button", name="Sign in with Mock ID")).to_be_visible()
    assert axe(page) == []
    page.get_by_role("button", name="Sign in with Mock ID").click()
    authorize(page, sub)
    expect(page.get_by_role("alert")).to_contain_text("No account is linked to this identity")
    expect(page.get_by_role("button", name="Sign in", exact=True)).to_be_visible()
    assert axe(page) == []

    _, invitation = s.api("POST", "/api/invitations", {"tenantId": s.tenant, "role": "MEMBER"})
    page.goto(invitation["url"])
    expect(page.get_by_role("button", name="Join with Mock ID")).to_be_visible()
    assert axe(page) == []
    page.get_by_role("button", name="Join with Mock ID").click()
    authorize(page, sub)
    expect(page.get_by_role("region", name="Doing")).to_be_visible()

    page.goto("/account")
    expect(page.get_by_role("cell", name=sub, exact=True)).to_be_visible()
    expect(page.get_by_role("button", name="Link Mock ID")).to_be_visible()
    assert axe(page) == []
    # Its only way in: unlinking it is refused, and says why.
    page.get_by_role("button", name=f"Unlink {sub}").click()
    expect(page.get_by_role("alert")).to_contain_text("last way to sign in")
    expect(page.get_by_role("cell", name=sub, exact=True)).to_be_visible()
    assert page.errors == []


def test_a_member_signs_in_again_and_a_refused_link_says_why(browser, sso_server):
    s = sso_server
    sub = person({"preferred_username": "lin"})
    _, invitation = s.api("POST", "/api/invitations", {"tenantId": s.tenant, "role": "MEMBER"})
    joiner = new_page(browser, s, signed_in=False)
    joiner.goto(invitation["url"])
    joiner.get_by_role("button", name="Join with Mock ID").click()
    authorize(joiner, sub)
    expect(joiner.get_by_role("region", name="Doing")).to_be_visible()
    # Another browser: the sign-in page's button, the provider's page, the board.
    again = new_page(browser, s, signed_in=False)
    again.goto("/")
    again.get_by_role("button", name="Sign in with Mock ID").click()
    authorize(again, sub)
    expect(again.get_by_role("region", name="Doing")).to_be_visible()
    # Signing out goes through the provider's sign-out page, and back.
    again.get_by_role("button", name="Sign out").click()
    expect(again).to_have_url(re.compile("^" + re.escape(f"{OIDC}/oauth2/end_session?") + ".*id_token_hint="))
    again.get_by_role("button", name="End session").click()
    expect(again.get_by_role("button", name="Sign in with Mock ID")).to_be_visible()
    assert [c for c in again.context.cookies() if c["name"] == "board_session"] == []

    # The admin, signed in with a password, tries to link lin's identity.
    page = new_page(browser, s)
    page.goto("/account")
    page.get_by_role("button", name="Link Mock ID").click()
    authorize(page, sub)
    # The server sends every refusal to /?sso=CODE; the UI takes a signed-in
    # person on to the account page, which says why (and drops the code).
    expect(page.get_by_role("heading", name="Your account", level=1)).to_be_visible()
    expect(page).to_have_url(f"{s.base}/account")
    expect(page.get_by_role("alert")).to_contain_text("already linked to another account: nothing changed")
    expect(page.get_by_role("cell", name=sub, exact=True)).to_have_count(0)
    assert axe(page) == []
    assert page.errors == []
