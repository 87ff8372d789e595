"""Login forgery from another site, in real Chromium.

A signed-in person visits a page on another site. The page auto-submits a
plain HTML form (`enctype="text/plain"`, which needs no preflight) whose body
is JSON with the attacker's name and password, to the sign-in route spelled
exactly and spelled with a trailing slash. Neither signs the browser in as the
attacker: the exact route refuses the foreign origin (403 CROSS_ORIGIN), the
other spelling is no route (404), and a JSON route never takes text/plain
(415). The person's session stays their own.
"""

from conftest import new_page

ATTACKER_SITE = "http://attacker.test"


# The attacker's password holds the "=" that text/plain puts between a field's
# name and value, so the body is exactly the JSON of a sign-in.
ATTACKER_PASSWORD = "correct horse=battery staple"


def attacker_page(action, name, password):
    before, after = password.split("=", 1)
    field = f'{{"name":"{name}","password":"{before}'
    return f"""<!doctype html><html><body>
<form method="POST" enctype="text/plain" action="{action}">
<input type="hidden" name='{field}' value='{after}"}}'>
</form>
<script>document.forms[0].submit()</script>
</body></html>"""


def serve(html):
    """A route handler answering every request with `html`."""
    return lambda route: route.fulfill(status=200, content_type="text/html", body=html)


def test_a_foreign_form_never_signs_the_browser_in_as_someone_else(browser, server):
    # The attacker's own account, by invitation.
    invitation = server.ok("POST", "/api/invitations", {"tenantId": server.tenant, "role": "MEMBER"})
    server.ok("POST", "/api/invitations/accept",
              {"code": invitation["code"], "name": "mallory", "password": ATTACKER_PASSWORD},
              token="")

    page = new_page(browser, server)  # the victim: admin, signed in
    context = page.context
    me = context.request.get(f"{server.base}/api/me")
    assert me.json()["name"] == "admin"

    for path in ["/api/session/", "/api/session", "/api/session//", "/api/invitations/accept/"]:
        html = attacker_page(server.base + path, "mallory", ATTACKER_PASSWORD)
        page.route(f"{ATTACKER_SITE}/**", serve(html))
        with page.expect_response(lambda r: r.url.startswith(server.base)) as answer:
            page.goto(f"{ATTACKER_SITE}/{path.strip('/').replace('/', '-')}")
        status = answer.value.status
        assert status in (403, 404, 415), f"{path}: {status}"
        assert "set-cookie" not in answer.value.headers, path
        page.unroute(f"{ATTACKER_SITE}/**")
        me = context.request.get(f"{server.base}/api/me")
        assert me.status == 200 and me.json()["name"] == "admin", f"{path}: {me.status} {me.text()}"
    context.close()
