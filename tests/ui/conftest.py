"""The browser tests of the board UI (api.md §25), in real Chromium.

Each test gets a fresh board-server (the debug binary `cargo test` builds) on
SQLite and, when BOARD_TEST_POSTGRES_URL is set, on a fresh PostgreSQL
database of its own; without it the PostgreSQL variants are skipped (shown as
skipped, never as passed). Controls are found by role and accessible name, as
a screen-reader user finds them.

Run: `python3 -m pytest tests/ui` (after `cargo build -p board-server`).
"""

import json
import os
import re
import shutil
import subprocess
import tempfile
import urllib.request
import uuid
from pathlib import Path

import pytest
from playwright.sync_api import sync_playwright, expect

ROOT = Path(__file__).resolve().parents[2]
SERVER = Path(os.environ.get("BOARD_TEST_SERVER", ROOT / "target/debug/board-server"))
CHROMIUM = os.environ.get("BOARD_TEST_CHROMIUM", shutil.which("chromium") or "/usr/bin/chromium")
PG_URL = os.environ.get("BOARD_TEST_POSTGRES_URL", "")
PASSWORD = "correct horse battery staple"
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking",
    "--disable-component-update", "--disable-sync", "--no-first-run",
]

expect.set_options(timeout=5000)


def end_process(process):
    """Stops a child process: SIGTERM, then SIGKILL after 10 s."""
    process.terminate()
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()


class Server:
    """A running board-server: its address, the first run's token, workspace and reset link."""

    def __init__(self, backend, extra_args=()):
        self.dir = tempfile.mkdtemp(prefix="board-ui-")
        self.database = None
        env = dict(os.environ, RUST_LOG="warn", BOARD_FILES_DIR=f"{self.dir}/files")
        if backend == "postgres":
            self.database = f"board_ui_{uuid.uuid4().hex[:12]}"
            subprocess.run(["psql", PG_URL, "-qc", f"CREATE DATABASE {self.database}"], check=True)
            env["BOARD_DATABASE_URL"] = PG_URL.rsplit("/", 1)[0] + "/" + self.database
        else:
            env["BOARD_DATABASE_URL"] = f"sqlite://{self.dir}/board.db"
        self.process = subprocess.Popen(
            [str(SERVER), "--listen", "127.0.0.1:0", *extra_args],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        lines = []
        for line in self.process.stdout:
            lines.append(line)
            if line.startswith("board-server listening on "):
                self.base = line.split(" on ", 1)[1].strip()
                break
        else:
            raise RuntimeError("board-server stopped before listening:\n" + "".join(lines))
        text = "".join(lines)
        self.token = re.search(r"Bearer token \(shown once\): (\S+)", text).group(1)
        self.tenant = re.search(r"\(tenant (\S+)\)", text).group(1)
        self.reset_link = re.search(r"shown once\): (http\S+/reset#\S+)", text).group(1)

    def api(self, method, path, body=None, token=None):
        """Calls the API with the admin's bearer token (or `token`; "" sends
        none); returns (status, json)."""
        data = json.dumps(body).encode() if body is not None else None
        headers = {"Content-Type": "application/json"}
        token = self.token if token is None else token
        if token:
            headers["Authorization"] = f"Bearer {token}"
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req) as r:
                raw = r.read()
                return r.status, json.loads(raw) if raw else None
        except urllib.error.HTTPError as e:
            raw = e.read()
            return e.code, json.loads(raw) if raw else None

    def ok(self, method, path, body=None, token=None):
        """`api`, asserting a 2xx answer; returns its JSON."""
        status, answer = self.api(method, path, body, token)
        assert 200 <= status < 300, f"{method} {path} answered {status}: {answer}"
        return answer

    def set_admin_password(self):
        code = self.reset_link.split("#", 1)[1]
        req = urllib.request.Request(self.base + "/api/password-reset", method="POST",
                                     data=json.dumps({"code": code, "password": PASSWORD}).encode(),
                                     headers={"Content-Type": "application/json"})
        urllib.request.urlopen(req).read()

    def board(self):
        return self.ok("GET", f"/api/board?tenant={self.tenant}")

    def column(self, name):
        return next(c for c in self.board()["columns"] if c["name"] == name)

    def card(self, title, column="To do"):
        col = self.column(column)
        return self.ok("POST", "/api/cards", {"tenantId": self.tenant, "columnId": col["id"], "title": title})

    def stop(self):
        end_process(self.process)
        if self.database:
            subprocess.run(["psql", PG_URL, "-qc", f"DROP DATABASE IF EXISTS {self.database} WITH (FORCE)"])
        shutil.rmtree(self.dir, ignore_errors=True)


BACKENDS = [
    "sqlite",
    pytest.param("postgres", marks=pytest.mark.skipif(not PG_URL, reason="BOARD_TEST_POSTGRES_URL is not set")),
]


@pytest.fixture(params=BACKENDS)
def server(request):
    s = Server(request.param)
    yield s
    s.stop()


@pytest.fixture(scope="session")
def browser():
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


def new_page(browser, server, signed_in=True, width=1440, height=900, **options):
    """A page in a fresh context; signed in as `admin` unless told otherwise."""
    context = browser.new_context(base_url=server.base, viewport={"width": width, "height": height}, **options)
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    if signed_in:
        server.set_admin_password() if not getattr(server, "password_set", False) else None
        server.password_set = True
        r = context.request.post(f"{server.base}/api/session", data={"name": "admin", "password": PASSWORD})
        assert r.status == 200, r.text()
    return page


@pytest.fixture
def page(browser, server):
    p = new_page(browser, server)
    yield p
    assert not p.errors, p.errors
    p.context.close()


def open_board(page, server):
    page.goto(f"/w/{server.tenant}")
    expect(page.get_by_role("region", name="To do")).to_be_visible()
    page.wait_for_function("() => performance.getEntriesByName('board').length > 0")


def axe(page, context=None):
    """axe-core's serious and critical WCAG 2.1 AA violations on the page (or in `context`)."""
    source = Path(os.environ.get("BOARD_TEST_AXE", "/tmp/axe/node_modules/axe-core/axe.min.js")).read_text()
    page.evaluate(source)
    result = page.evaluate("""async (ctx) => {
        const r = await axe.run(ctx ? document.querySelector(ctx) : document,
            {runOnly: {type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']}});
        return r.violations.filter(v => v.impact === 'serious' || v.impact === 'critical')
            .map(v => ({id: v.id, impact: v.impact, nodes: v.nodes.map(n => n.target.join(' ')).slice(0, 5)}));
    }""", context)
    return result


def location(page):
    """The page's own `location.href`. Playwright's `page.url` can miss a
    same-document navigation made right after another (a card closed: its
    `pushState`, then the filter's `replaceState`) and keep the older URL."""
    return page.evaluate("location.href")


def eventually(check, timeout=5.0, about=None):
    """Waits until `check()` holds (the UI moves at once; the server answers a
    moment later). `about()`, when given, says what the page showed instead."""
    import time
    end = time.monotonic() + timeout
    while True:
        value = check()
        if value or time.monotonic() > end:
            assert value, "the condition never held" + (f": {about()!r}" if about else "")
            return
        time.sleep(0.05)
