#!/usr/bin/env python3
"""Runs README.md's shell blocks, in order, as a newcomer pastes them.

Every ```sh block of README.md runs, in the order of the file, in ONE bash
session (`set -eo pipefail`, so a block's variables and functions serve the
blocks after it), in a fresh temporary folder standing in for the repository
folder the README's reader works in. The run fails on the first block that
exits non-zero, and on a block whose output lacks what one of its
`# → TEXT` comments promises (TEXT must appear in what the block printed,
background jobs' output included). At the end it checks, through the API and
the CLI, that the state the walk-through built is there.

What is mapped, and how:

- A block preceded by `<!-- server: … -->` starts the server: it must be
  `cargo run --release -p board-server [-- FLAGS]`. This script stops the
  server it runs (if any) and starts target/debug/board-server FLAGS in the
  background, in the folder, on a fresh SQLite database (board-data/board.db,
  as the README says), listening on a free port instead of 127.0.0.1:8080.
- A block preceded by `<!-- not run: REASON -->` is skipped (installs, servers
  this machine does not have). Any other block that calls `cargo` fails the run:
  the README must not hide a compile inside a walk-through block.
- `board` and `board-server` are target/debug/board and
  target/debug/board-server (a folder of links first on PATH): what
  `cargo install --path …` installs, built by `cargo build`.
- The blocks reach the server through the variable `B`, which the README
  sets once (`B=http://127.0.0.1:8080`): this script sets it to the test
  server's address, on another port, in that line alone, and fails on any
  other block line that names `127.0.0.1:8080` (a reader who runs the server
  elsewhere changes one line). `8099` (the webhook receiver's port) becomes a
  free port, and the placeholders `brd_…` and `ckv7…` the token and tenant id
  the first start printed.
- `curl` runs with `--fail-with-body` (an error answer fails its block), except
  a call given `-w`/`--write-out`: that block prints the status itself, and
  its `# →` comment says which it expects.

Run: `python3 tests/readme/run_readme.py` (after `cargo build`), from anywhere.
"""

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
SERVER = ROOT / "target/debug/board-server"
CLI = ROOT / "target/debug/board"
BLOCK_TIMEOUT = 60


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def blocks(text):
    """(line, marker kind, marker text, body) of each ```sh block, in order."""
    out = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            start = i
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            prev = next((lines[k].strip() for k in range(start - 1, -1, -1) if lines[k].strip()), "")
            m = re.fullmatch(r"<!--\s*(not run|server):\s*(.*?)\s*-->", prev)
            kind, why = (m.group(1), m.group(2)) if m else ("run", "")
            indent = len(lines[i]) - len(lines[i].lstrip())
            body = "\n".join(l[indent:] for l in lines[i + 1:j])
            out.append((start + 1, kind, why, body))
            i = j
        i += 1
    return out


def expectations(body):
    """The TEXT of each `# → TEXT` comment of a block."""
    return [m.group(1).strip() for m in re.finditer(r"#\s*→\s*(.+)$", body, re.M)]


class Run:
    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="board-readme-"))
        self.bin = self.dir / ".bin"
        self.bin.mkdir()
        (self.bin / "board").symlink_to(CLI)
        (self.bin / "board-server").symlink_to(SERVER)
        self.env = {k: v for k, v in os.environ.items() if not k.startswith(("BOARD_", "AWS_"))}
        self.env["PATH"] = f"{self.bin}:{self.env['PATH']}"
        self.port = free_port()
        self.hook_port = free_port()
        self.server = None
        self.token = self.tenant = None
        self.log = self.dir / ".session.log"
        self.log.touch()
        self.shell = subprocess.Popen(
            ["bash", "--norc", "--noprofile"], cwd=self.dir, env=self.env,
            stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
        self.send("set -eo pipefail\n"
                  "curl() { case \" $* \" in *' -w '*|*' --write-out '*) command curl \"$@\" ;;"
                  " *) command curl --fail-with-body \"$@\" ;; esac; }\n")

    def send(self, text):
        self.shell.stdin.write(text)
        self.shell.stdin.flush()

    def start_server(self, body):
        m = re.fullmatch(r"cargo run --release -p board-server(?: -- (.*))?", body.strip())
        if not m:
            sys.exit(f"readme: a server block must be `cargo run --release -p board-server [-- FLAGS]`, not:\n{body}")
        self.stop_server()
        flags = (m.group(1) or "").split()
        self.server = subprocess.Popen(
            [str(SERVER), "--listen", f"127.0.0.1:{self.port}", *flags], cwd=self.dir, env=self.env,
            stdout=subprocess.PIPE, stderr=open(self.dir / ".server.log", "a"), text=True)
        printed = []
        for line in self.server.stdout:
            printed.append(line)
            if line.startswith("board-server listening on "):
                break
        else:
            sys.exit("readme: board-server stopped before listening:\n" + "".join(printed)
                     + (self.dir / ".server.log").read_text())
        text = "".join(printed)
        if self.token is None:
            self.token = re.search(r"Bearer token \(shown once\): (\S+)", text).group(1)
            self.tenant = re.search(r"\(tenant (\S+)\)", text).group(1)
            assert re.search(rf"Set admin's password .*: http://127\.0\.0\.1:{self.port}/reset#\w+", text), text
        print(f"readme:   board-server {' '.join(flags)} listening on 127.0.0.1:{self.port}", flush=True)

    def stop_server(self):
        if self.server:
            self.server.send_signal(signal.SIGTERM)
            self.server.wait(20)
            self.server = None

    def run_block(self, n, line, body):
        text = re.sub(r"^B=http://127\.0\.0\.1:8080\b", f"B=http://127.0.0.1:{self.port}", body,
                      flags=re.M)
        if "127.0.0.1:8080" in text:
            self.fail(line, body, self.log.stat().st_size,
                      "it names 127.0.0.1:8080: reach the server through $B")
        text = text.replace("8099", str(self.hook_port))
        if self.token:
            text = text.replace("brd_…", self.token).replace("ckv7…", self.tenant)
        script = self.dir / f".block{n}.sh"
        script.write_text(text + "\n")
        done = self.dir / f".block{n}.done"
        before = self.log.stat().st_size
        self.send(f"{{ echo '$ # README.md line {line}'; source {script}; }} >>{self.log} 2>&1; touch {done}\n")
        end = time.monotonic() + BLOCK_TIMEOUT
        while not done.exists():
            if self.shell.poll() is not None:
                self.fail(line, body, before, f"the block exited with status {self.shell.returncode}")
            if time.monotonic() > end:
                self.fail(line, body, before, f"the block ran over {BLOCK_TIMEOUT} s")
            time.sleep(0.05)
        time.sleep(0.1)  # background jobs' last lines
        output = self.output(before)
        for want in expectations(body):
            want_here = want.replace("127.0.0.1:8080", f"127.0.0.1:{self.port}")
            if want_here not in output:
                self.fail(line, body, before, f"its output lacks {want!r}")

    def output(self, since):
        with open(self.log, encoding="utf-8", errors="replace") as f:
            f.seek(since)
            return f.read()

    def fail(self, line, body, since, why):
        print(f"readme: FAILED: the block at README.md line {line}: {why}\n--- block ---\n{body}\n"
              f"--- output ---\n{self.output(since)}", file=sys.stderr, flush=True)
        self.close()
        sys.exit(1)

    def api(self, path):
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}",
                                     headers={"Authorization": f"Bearer {self.token}"})
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())

    def cli(self, *args):
        out = subprocess.run(["board", "--json", *args], cwd=self.dir, env=self.env,
                             capture_output=True, text=True, check=True)
        return json.loads(out.stdout)

    def close(self):
        try:
            self.shell.stdin.close()
        except OSError:
            pass
        try:
            self.shell.wait(5)
        except subprocess.TimeoutExpired:
            self.shell.kill()
        self.stop_server()
        if os.environ.get("BOARD_README_KEEP"):
            print(f"readme: kept {self.dir}")
        else:
            shutil.rmtree(self.dir, ignore_errors=True)


def main():
    for binary in (SERVER, CLI):
        if not binary.exists():
            sys.exit(f"readme: {binary} is missing: cargo build first")
    found = blocks(README.read_text())
    run = Run()
    print(f"readme: {len(found)} sh blocks of README.md in {run.dir}", flush=True)
    for n, (line, kind, why, body) in enumerate(found):
        if kind == "not run":
            print(f"readme: line {line}: not run ({why})", flush=True)
            continue
        if kind == "server":
            print(f"readme: line {line}: server start", flush=True)
            run.start_server(body)
            continue
        if run.server is None:
            sys.exit(f"readme: the block at line {line} runs before any server block")
        if re.search(r"(^|[\s;&|(])cargo\s", body):
            sys.exit(f"readme: the block at line {line} calls cargo (a hidden compile): mark it or move it")
        print(f"readme: line {line}: run", flush=True)
        run.run_block(n, line, body)

    # The state the walk-through built.
    try:
        board = run.api(f"/api/board?tenant={run.tenant}")
        titles = {c["title"]: col["name"] for col in board["columns"] for c in col["cards"]}
        assert titles.get("Mine") == "Done", titles              # renamed, moved by the webhook block
        assert titles.get("Review the docs") == "Doing", titles
        assert titles.get("One too many") == "To do", titles     # the WIP limit refused its move
        hooks = run.api(f"/api/webhooks?tenant={run.tenant}")
        assert len(hooks) == 1 and hooks[0]["lastStatus"] == 204 and hooks[0]["lastDeliveredSeq"], hooks
        names = [w["name"] for w in run.cli("workspace", "list")]
        assert "Acme" in names, names
        acme = run.cli("card", "list", "--workspace", "Acme")
        assert "Urgent" in json.dumps(acme) and "A card" in json.dumps(acme), acme
        assert (run.dir / "board-export/manifest.json").exists()
        assert (run.dir / "flow.svg").exists()
    except (AssertionError, KeyError, StopIteration) as e:
        print(f"readme: FAILED: the final state: {e!r}", file=sys.stderr)
        run.close()
        sys.exit(1)
    run.close()
    print("readme: every block ran and the walk-through's state is there")


if __name__ == "__main__":
    main()
