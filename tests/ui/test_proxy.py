"""The deployment guide, tested: board-server behind nginx with TLS, as
docs/deploy.md sets it up.

nginx runs with docs/nginx-board.conf itself (the file the guide includes),
with only what differs on a test machine substituted: the ports (unprivileged
ones), the certificate (self-signed, made by openssl in a temporary folder),
the host name (127.0.0.1) and board-server's address. Each substitution must
match, so a change to the snippet that the test no longer understands fails
here instead of drifting. board-server runs as the guide says:
`--secure-cookies=true --trust-proxy=true --public-url https://<the proxy>`.

Then, in Chromium (which accepts the self-signed certificate): the first run's
reset link, opened through the proxy, sets admin's password; a fresh browser
signs in through the UI; the board loads; a card created through the API,
directly against board-server, appears on the page within 2 s, through the
proxy's event stream. And a client that writes its own X-Forwarded-For
(nginx appends the address it sees to it) can neither escape the sign-in
throttle nor lock out the address it names.

Needs nginx and openssl (`bash .ci/install-ui-tests` installs them).
"""

import os
import shutil
import ssl
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from conftest import BACKENDS, PASSWORD, ROOT, Server, end_process, expect

SNIPPET = ROOT / "docs/nginx-board.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
OPENSSL = shutil.which("openssl") or "/usr/bin/openssl"

pytestmark = pytest.mark.skipif(
    not (os.path.exists(NGINX) and os.path.exists(OPENSSL)),
    reason="nginx or openssl is missing: bash .ci/install-ui-tests installs them")


def test_the_deployment_guide_shows_the_tested_nginx_file():
    """docs/deploy.md holds docs/nginx-board.conf verbatim, as one code block."""
    guide = (ROOT / "docs/deploy.md").read_text()
    assert "```nginx\n" + SNIPPET.read_text() + "```" in guide, \
        "docs/deploy.md must show docs/nginx-board.conf verbatim in a ```nginx block"


def get(url):
    """(status, body) of a GET through the proxy, its self-signed certificate accepted."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(url, context=context) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def substitute(text, old, new):
    """Replaces `old` in the snippet, which must hold it."""
    assert old in text, f"docs/nginx-board.conf no longer holds {old!r}: update tests/ui/test_proxy.py"
    return text.replace(old, new)


class Nginx:
    """nginx on unprivileged ports, with the guide's snippet as its only site."""

    def __init__(self, upstream, https_port, http_port):
        self.dir = tempfile.mkdtemp(prefix="board-nginx-")
        os.chmod(self.dir, 0o755)  # nginx's workers (another user, under root) write temp files here
        d = self.dir
        subprocess.run(
            [OPENSSL, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
             "-keyout", f"{d}/key.pem", "-out", f"{d}/cert.pem",
             "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1"],
            check=True, capture_output=True)
        site = SNIPPET.read_text()
        site = substitute(site, "listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
        site = substitute(site, "listen 80;", f"listen 127.0.0.1:{http_port};")
        site = substitute(site, "/etc/letsencrypt/live/board.example.org/fullchain.pem", f"{d}/cert.pem")
        site = substitute(site, "/etc/letsencrypt/live/board.example.org/privkey.pem", f"{d}/key.pem")
        site = substitute(site, "server_name board.example.org;", "server_name 127.0.0.1;")
        site = substitute(site, "proxy_pass http://127.0.0.1:8080;", f"proxy_pass {upstream};")
        directives = "\n".join(l for l in site.splitlines() if not l.lstrip().startswith("#"))
        assert "board.example.org" not in directives and "127.0.0.1:8080" not in directives, directives
        temp = "\n".join(f"    {kind}_temp_path {d}/{kind};"
                         for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        Path(f"{d}/nginx.conf").write_text(f"""
daemon off;
worker_processes 1;
pid {d}/nginx.pid;
error_log {d}/error.log warn;
events {{ worker_connections 256; }}
http {{
    access_log {d}/access.log;
{temp}
{site}
}}
""")
        self.process = subprocess.Popen(
            [NGINX, "-p", d, "-e", f"{d}/error.log", "-c", f"{d}/nginx.conf"],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        end = time.monotonic() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", https_port), timeout=1).close()
                break
            except OSError:
                if self.process.poll() is not None or time.monotonic() > end:
                    raise RuntimeError("nginx did not start:\n" + self.log())
                time.sleep(0.05)

    def log(self):
        path = Path(self.dir, "error.log")
        return path.read_text() if path.exists() else ""

    def stop(self):
        end_process(self.process)
        shutil.rmtree(self.dir, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def proxied(request):
    """board-server as docs/deploy.md runs it, behind nginx: (server, proxy URL, nginx)."""
    https_port, http_port = free_port(), free_port()
    public = f"https://127.0.0.1:{https_port}"
    server = Server(request.param, extra_args=(
        "--secure-cookies=true", "--trust-proxy=true", "--public-url", public))
    nginx = None
    try:
        nginx = Nginx(server.base, https_port, http_port)
        yield server, public, nginx
    finally:
        if nginx:
            nginx.stop()
        server.stop()


def test_behind_nginx_with_tls_sign_in_and_live_events(browser, proxied):
    server, public, nginx = proxied
    # The first run's reset link names the public URL: the proxy's.
    assert server.reset_link.startswith(f"{public}/reset#"), server.reset_link

    # Through the proxy: /healthz answers, /metrics is kept in.
    assert get(f"{public}/healthz")[0] == 200
    assert get(f"{public}/metrics")[0] == 403

    # The reset link, through the proxy, sets admin's password.
    setup = browser.new_context(ignore_https_errors=True)
    page = setup.new_page()
    page.goto(server.reset_link)
    page.get_by_label("New password").fill(PASSWORD)
    page.get_by_role("button", name="Set password").click()
    expect(page.get_by_role("region", name="To do")).to_be_visible()
    setup.close()

    # A fresh browser signs in through the UI; the session cookie is Secure.
    context = browser.new_context(ignore_https_errors=True, base_url=public,
                                  viewport={"width": 1440, "height": 900})
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto("/")
    page.get_by_label("Name").fill("admin")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("region", name="To do")).to_be_visible()
    expect(page).to_have_url(f"{public}/w/{server.tenant}")
    session = next(c for c in context.cookies() if c["name"] == "board_session")
    assert session["secure"] and session["httpOnly"], session

    # A card created directly against board-server reaches the page through
    # nginx's unbuffered event stream, live (a buffering proxy holds it back).
    page.wait_for_function("() => performance.getEntriesByName('board').length > 0")
    page.wait_for_timeout(300)  # the page's event stream is open
    server.card("Made behind the proxy's back")
    todo = page.get_by_role("region", name="To do")
    expect(todo.get_by_role("listitem").filter(has_text="Made behind the proxy's back")) \
        .to_be_visible()

    # The stream went through the proxy, and the proxy answered over TLS.
    access = Path(nginx.dir, "access.log").read_text()
    assert "GET /api/events?" in access, access
    assert errors == [], errors
    context.close()


def sign_in_through(public, password, forwarded_for=None, source="127.0.0.1"):
    """POST /api/session as admin through the proxy from the local address
    `source`, sending `forwarded_for` as the client's own X-Forwarded-For:
    the status."""
    import http.client
    import json
    host, port = public.removeprefix("https://").split(":")
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    connection = http.client.HTTPSConnection(host, int(port), context=context,
                                             source_address=(source, 0), timeout=30)
    headers = {"Content-Type": "application/json"}
    if forwarded_for is not None:
        headers["X-Forwarded-For"] = forwarded_for
    body = json.dumps({"name": "admin", "password": password})
    try:
        connection.request("POST", "/api/session", body=body, headers=headers)
        return connection.getresponse().status
    finally:
        connection.close()


def test_behind_nginx_a_forged_forwarded_for_changes_nothing(proxied):
    """nginx appends the address it sees to what the client sent: a client
    can neither escape the throttle nor lock someone else out by writing its
    own X-Forwarded-For."""
    server, public, _ = proxied
    server.set_admin_password()
    victim = "127.0.0.5"  # another client: it reaches nginx from this address
    forged = [victim, f"{victim}, 203.0.113.2", f"{victim}, not-an-ip", f"{victim}, " + "a" * 5000,
              f"{victim},{victim}"]
    for xff in forged:
        assert sign_in_through(public, "wrong password", xff) == 401, xff[:40]
    # The attacker (127.0.0.1) was counted as itself, whatever it wrote...
    assert sign_in_through(public, PASSWORD, "198.51.100.9") == 429
    assert sign_in_through(public, PASSWORD) == 429
    # ...and the address it forged is not locked out.
    assert sign_in_through(public, PASSWORD, source=victim) == 200
