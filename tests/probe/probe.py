#!/usr/bin/env python3
"""The regression probe: each hole a probe of the running server once found,
replayed against a fresh server, expecting the fixed answer.

It starts target/debug/board-server (built by `cargo build`) on a free port,
on a fresh SQLite database in a temporary folder, with `--trust-proxy` (as
behind the documented nginx) and its log (BOARD_LOG=info) in a file of that
folder, reads the first run's token, workspace and reset link, sets admin's
password, and runs every case of CASES in order: the HTTP edge's below, then
the people cases of people.py (sign-in, names, reset links, logs, throttle,
invitations). A case may start a second server on the same database
(`p.twin()`) and run the `board` CLI next to the server binary on it
(`p.cli`). Left out: 503 BUSY after a 5 s wait for a password hasher counts
as no failure (too slow for the probe; board-core tests it). A
case is a small function of a `Probe`; it raises AssertionError (with what it
saw) when the server answers what the hole answered. One line per case, then
`N passed, M failed`; the exit status is non-zero on any failure.

Add a case: write `def case_…(p):` using `p.request`, `p.sign_in`,
`p.account`…, and append it to CASES. Each case uses client addresses of its
own (X-Forwarded-For, the right-most entry) and its own accounts when it
counts failed sign-ins, so that no case's throttle reaches another.

Python 3 standard library only. Run: `python3 tests/probe/probe.py`.
"""

import http.client
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(os.environ.get("BOARD_TEST_SERVER", ROOT / "target/debug/board-server"))
CLI = SERVER.parent / "board"
PASSWORD = "correct horse battery staple"
EVIL = "https://evil.example"


class Answer:
    """A response: status, headers (lower-case names; the last of each), body and its JSON."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body
        try:
            self.json = json.loads(body) if body else None
        except ValueError:
            self.json = None

    def header(self, name):
        return self.headers.get(name.lower())

    def __repr__(self):
        return f"{self.status} {self.body[:300]!r}"


class Probe:
    """A fresh board-server and what its first run printed; with `first`, a
    second server on the database of the probe `first` (its twin)."""

    def __init__(self, *flags, first=None):
        self.flags, self.first, self.twins = flags, first, []
        self.dir = first.dir if first else tempfile.mkdtemp(prefix="board-probe-")
        self.database_url = f"sqlite://{self.dir}/board.db"
        self.log_path = Path(self.dir) / f"server{len(first.twins) + 1 if first else ''}.log"
        env = {k: v for k, v in os.environ.items() if not k.startswith("BOARD_")}
        env.update(BOARD_DATABASE_URL=self.database_url,
                   BOARD_FILES_DIR=f"{self.dir}/files", BOARD_LOG="info")
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [str(SERVER), "--listen", "127.0.0.1:0", *flags],
                env=env, stdout=subprocess.PIPE, stderr=log, text=True)
        lines = []
        for line in self.process.stdout:
            lines.append(line)
            if line.startswith("board-server listening on "):
                break
        else:
            raise RuntimeError("board-server stopped before listening:\n" + "".join(lines))
        text = "".join(lines)
        self.base = re.search(r"listening on (http://\S+)", text).group(1)
        self.host, port = self.base.removeprefix("http://").split(":")
        self.port = int(port)
        if first:
            self.token, self.tenant, self.reset_code = first.token, first.tenant, None
            return
        self.token = re.search(r"Bearer token \(shown once\): (\S+)", text).group(1)
        self.tenant = re.search(r"\(tenant (\S+)\)", text).group(1)
        self.reset_code = re.search(r"shown once\): http\S+/reset#(\S+)", text).group(1)

    def twin(self):
        """A second server on this database (started once, stopped with this one)."""
        if not self.twins:
            self.twins.append(Probe(*self.flags, first=self))
        return self.twins[0]

    def stop(self):
        for twin in self.twins:
            twin.stop()
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
        if not self.first:
            shutil.rmtree(self.dir, ignore_errors=True)

    def request(self, method, path, body=None, headers=None, token=None):
        """Sends `path` byte for byte (no client normalises it). A dict or
        list body is sent as JSON (Content-Type: application/json unless
        `headers` names one); `token` "" sends no credential, None the admin's."""
        headers = dict(headers or {})
        if isinstance(body, (dict, list)):
            body = json.dumps(body)
            if not any(k.lower() == "content-type" for k in headers):
                headers["Content-Type"] = "application/json"
        token = self.token if token is None else token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        try:
            connection.putrequest(method, path, skip_accept_encoding=True)
            data = body.encode() if isinstance(body, str) else body
            for name, value in headers.items():
                for one in value if isinstance(value, list) else [value]:
                    connection.putheader(name, one)
            connection.putheader("Content-Length", str(len(data or b"")))
            connection.endheaders(data)
            response = connection.getresponse()
            raw = response.read().decode("utf-8", "replace")
            return Answer(response.status, {k.lower(): v for k, v in response.getheaders()}, raw)
        finally:
            connection.close()

    def log(self):
        """What the server logged so far (BOARD_LOG=info, its stderr)."""
        return self.log_path.read_text(encoding="utf-8", errors="replace")

    def cli(self, *args, env=None):
        """Runs `board ARGS --database-url <the probe's database>` with no
        BOARD_* variable but those of `env`; returns the finished process."""
        clean = {k: v for k, v in os.environ.items() if not k.startswith("BOARD_")}
        clean.update(env or {})
        return subprocess.run([str(CLI), *args, "--database-url", self.database_url],
                              env=clean, capture_output=True, text=True, timeout=60)

    def ok(self, method, path, body=None, **options):
        """`request`, asserting a 2xx answer; returns its JSON."""
        answer = self.request(method, path, body, **options)
        assert 200 <= answer.status < 300, f"{method} {path}: {answer}"
        return answer.json

    def sign_in(self, name, password, forwarded_for=None, headers=None):
        """POST /api/session without a credential, from the client address
        `forwarded_for` (an X-Forwarded-For value, or a list of headers)."""
        headers = dict(headers or {})
        if forwarded_for is not None:
            headers["X-Forwarded-For"] = forwarded_for
        return self.request("POST", "/api/session", {"name": name, "password": password},
                            headers=headers, token="")

    def account(self, name):
        """A new account `name` with the password PASSWORD, a member of the
        workspace, made by invitation."""
        invitation = self.ok("POST", "/api/invitations", {"tenantId": self.tenant, "role": "MEMBER"})
        self.ok("POST", "/api/invitations/accept",
                {"code": invitation["code"], "name": name, "password": PASSWORD}, token="")
        return name

    def card_count(self):
        board = self.ok("GET", f"/api/board?tenant={self.tenant}")
        return sum(len(column["cards"]) for column in board["columns"])

    def card(self, **fields):
        return self.ok("POST", "/api/cards", {"tenantId": self.tenant, "title": "probe", **fields})


def expect(answer, status, what):
    assert answer.status == status, f"{what}: expected {status}, got {answer}"


# The cases: each replays one reproduction and expects the fixed answer.

def case_a_forged_forwarded_for_neither_escapes_nor_locks_out(p):
    """Behind the proxy a client's own X-Forwarded-For entries (left of the
    one the proxy appends, 10.77.0.1 here) count for nothing."""
    name = p.account("probe-forger")
    victim, attacker = "10.77.0.2", "10.77.0.1"
    for forged in [f"{victim}, {attacker}", f"{victim},{attacker}", f"{victim}, 6.6.6.6, {attacker}",
                   [victim, attacker], f"{victim}, 198.51.100.{7}, {attacker}"]:
        expect(p.sign_in(name, "wrong password", forged), 401, f"wrong password, XFF {forged}")
    expect(p.sign_in(name, PASSWORD, f"9.9.9.9, {attacker}"), 429, "the attacker, under another forged address")
    expect(p.sign_in(name, PASSWORD, victim), 200, "the victim whose address was forged")


def case_a_forwarded_for_that_is_no_address_counts_as_the_peer(p):
    name = p.account("probe-garbage")
    for garbage in ["not-an-ip", "a" * 5000, "10.78.0.9, not-an-ip", "1.2.3.4:80", "10.78.0.9,"]:
        expect(p.sign_in(name, "wrong password", garbage), 401, f"XFF {garbage[:20]}")
    expect(p.sign_in(name, PASSWORD), 429, "all five counted under the peer")


def case_no_other_spelling_of_a_sign_in_path_is_served(p):
    body = {"name": "admin", "password": PASSWORD}
    for path in ["/api/session/", "/api/session//", "//api/session", "/api/./session",
                 "/api/x/../session", "/api/%2e%2e/api/session", "/api%2Fsession",
                 "/api/invitations/accept/", "/api/password-reset/"]:
        answer = p.request("POST", path, body, headers={"Origin": EVIL, "X-Forwarded-For": "10.79.0.1"},
                           token="")
        expect(answer, 404, f"POST {path} from {EVIL}")
        assert answer.header("set-cookie") is None, f"POST {path} set a cookie"


def case_a_text_plain_body_is_415(p):
    own = p.base
    answer = p.request("POST", "/api/session", json.dumps({"name": "admin", "password": PASSWORD}),
                       headers={"Content-Type": "text/plain", "Origin": own, "X-Forwarded-For": "10.80.0.1"},
                       token="")
    expect(answer, 415, "a sign-in sent as text/plain")
    assert answer.json["error"] == "UNSUPPORTED_MEDIA_TYPE", answer
    assert answer.header("set-cookie") is None, "a refused sign-in set a cookie"
    p.card()
    before = p.card_count()
    answer = p.request("POST", "/api/cards", json.dumps({"tenantId": p.tenant, "title": "forged"}),
                       headers={"Content-Type": "text/plain"})
    expect(answer, 415, "a card sent as text/plain")
    after = p.card_count()
    assert before == after, f"a refused write made a card: {before} → {after}"


def case_api_answers_are_no_store_and_nosniff(p):
    for path, token, status in [("/api/me", None, 200), ("/api/me", "", 401), ("/api/nope", None, 404)]:
        answer = p.request("GET", path, token=token)
        expect(answer, status, f"GET {path}")
        assert answer.header("cache-control") == "no-store", f"GET {path}: {answer.headers}"
        assert answer.header("x-content-type-options") == "nosniff", f"GET {path}: {answer.headers}"


def case_markdown_images_only_from_a_file_and_bare_urls_linked(p):
    card = p.card(description="![x](/api/files/../../api/session)\n\n"
                              "See https://example.com/a and www.example.org.\n\n<input disabled> `https://code.example`")
    html = p.ok("GET", f"/api/cards/{card['id']}?html=true")["descriptionHtml"]
    assert "<img" not in html, f"an image of another route: {html}"
    assert '<a href="/api/files/../../api/session"' in html, f"not a link: {html}"
    assert '<a href="https://example.com/a"' in html, f"a bare URL is not a link: {html}"
    assert '<a href="http://www.example.org"' in html, f"a www. URL is not a link: {html}"
    assert "<input" not in html, f"a raw <input> survived: {html}"
    assert "<code>https://code.example</code>" in html, f"a code span was linked: {html}"


CASES = [
    case_a_forged_forwarded_for_neither_escapes_nor_locks_out,
    case_a_forwarded_for_that_is_no_address_counts_as_the_peer,
    case_no_other_spelling_of_a_sign_in_path_is_served,
    case_a_text_plain_body_is_415,
    case_api_answers_are_no_store_and_nosniff,
    case_markdown_images_only_from_a_file_and_bare_urls_linked,
]

# people.py imports its helpers from this module: let it find this one, run as a script.
sys.modules.setdefault("probe", sys.modules[__name__])
from people import PEOPLE_CASES  # noqa: E402

CASES += PEOPLE_CASES


def main():
    if not SERVER.exists():
        print(f"probe: {SERVER} is missing: run `cargo build` first", file=sys.stderr)
        return 2
    probe = Probe("--trust-proxy")
    passed = failed = 0
    try:
        probe.ok("POST", "/api/password-reset", {"code": probe.reset_code, "password": PASSWORD}, token="")
        for case in CASES:
            name = case.__name__.removeprefix("case_")
            try:
                case(probe)
                passed += 1
                print(f"ok    {name}")
            except AssertionError as e:
                failed += 1
                print(f"FAIL  {name}: {e}")
            except Exception:  # a crash of the probe itself counts as a failure
                failed += 1
                print(f"FAIL  {name}: {traceback.format_exc(limit=3)}")
    finally:
        probe.stop()
    print(f"probe: {passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
