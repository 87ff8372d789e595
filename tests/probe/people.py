"""The people cases of the regression probe: sign-in, names, reset links, log
injection, over-long names, the throttle, invitations, unknown keys, members'
404 before 403 and the reset-link note of the CLI. probe.py runs them after
its own cases (PEOPLE_CASES).

Left out: a sign-in that waits over 5 s for a password hasher answers 503
BUSY and counts as no failure. Saturating the hashers for that long does not
fit a probe of a few seconds; board-core tests it.

The throttle cases race threads over two servers on one database (the
probe's twin), as several servers share one in production.
"""

import contextlib
import re
import sqlite3
import threading

from probe import PASSWORD, expect

WRONG = "wrong password"
OTHER = "plaid unicorn orbits the lighthouse"


def invitation(p, token=None, headers=None):
    return p.ok("POST", "/api/invitations", {"tenantId": p.tenant, "role": "MEMBER"},
                token=token, headers=headers)["code"]


def accept(p, code, name, password=PASSWORD):
    return p.request("POST", "/api/invitations/accept",
                     {"code": code, "name": name, "password": password}, token="")


def cookie_of(answer):
    """The headers that act with the session `answer` set (its cookie, from the board's origin)."""
    cookie = answer.header("set-cookie")
    assert cookie, f"no session cookie: {answer}"
    return {"Cookie": cookie.split(";")[0]}


def browser(p, session):
    return {**session, "Origin": p.base}


def member(p, name):
    """A new MEMBER `name` (password PASSWORD): its id and its browser headers."""
    answer = accept(p, invitation(p), name)
    expect(answer, 200, f"accept as {name}")
    return answer.json["account"]["id"], browser(p, cookie_of(answer))


def reset_link(p, name):
    done = p.cli("account", "reset-link", name)
    assert done.returncode == 0, f"board account reset-link {name}: {done.stderr}"
    return done.stdout.strip().rsplit("#", 1)[1]


def reset(p, code, password=PASSWORD):
    return p.request("POST", "/api/password-reset", {"code": code, "password": password}, token="")


def error(answer, code, what):
    assert answer.json and answer.json.get("error") == code, f"{what}: expected {code}, got {answer}"


def at_once(calls):
    """Runs the calls in threads started together; their results in order."""
    results = [None] * len(calls)
    start = threading.Barrier(len(calls))

    def run(i):
        start.wait()
        results[i] = calls[i]()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(len(calls))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return results


def case_a_look_alike_of_a_name_is_taken(p):
    code = invitation(p)
    for name in ["ADMIN", "Admin", "ａｄｍｉｎ"]:
        answer = accept(p, code, name)
        expect(answer, 409, f"accept as {name!r}")
        error(answer, "NAME_TAKEN", f"accept as {name!r}")


def case_invisible_and_direction_characters_are_refused_in_names(p):
    code = invitation(p)
    for name in ["admin\u200b", "\u202eadmin", "\u2066admin", "\ufe0fadmin"]:
        answer = accept(p, code, name)
        expect(answer, 422, f"accept as {name!r}")
        error(answer, "VALIDATION_FAILED", f"accept as {name!r}")
    expect(accept(p, code, "probe-visible"), 200, "the code stays open after the refusals")


def case_a_renamed_account_keeps_names_apart(p):
    answer = accept(p, invitation(p), "Zoë")
    expect(answer, 200, "accept as Zoë")
    assert answer.json["account"]["name"] == "Zoë", f"not kept as typed: {answer}"
    zoe = browser(p, cookie_of(answer))
    answer = p.request("PATCH", "/api/me", {"name": "ＡＤＭＩＮ"}, headers=zoe, token="")
    expect(answer, 409, "rename to ＡＤＭＩＮ")
    error(answer, "NAME_TAKEN", "rename to ＡＤＭＩＮ")
    answer = p.request("PATCH", "/api/me", {"name": "ZOË"}, headers=zoe, token="")
    expect(answer, 200, "rename to its own key")
    assert answer.json["name"] == "ZOË", answer


def case_the_cli_refuses_a_look_alike_name(p):
    done = p.cli("account", "create", "ADMIN")
    assert done.returncode == 1, f"board account create ADMIN: exit {done.returncode} {done.stdout}"
    assert "already exists" in done.stderr, f"board account create ADMIN: {done.stderr!r}"


def case_sign_in_finds_the_account_by_the_names_key(p):
    p.account("probe-keyed")
    answer = p.sign_in("PROBE-Keyed", PASSWORD, "10.81.0.1")
    expect(answer, 200, "sign in as PROBE-Keyed")
    assert answer.json["account"]["name"] == "probe-keyed", answer


def case_look_alike_names_race_to_one_account(p):
    names = ["race", "Race", "RACE", "ｒａｃｅ", "rAce", "RaCe"]
    codes = [invitation(p) for _ in names]
    answers = at_once([lambda c=c, n=n: accept(p, c, n) for c, n in zip(codes, names)])
    statuses = sorted(a.status for a in answers)
    assert statuses == [200] + [409] * 5, f"six look-alike accepts: {answers}"
    for answer in answers:
        if answer.status == 409:
            error(answer, "NAME_TAKEN", "a losing accept")


def case_a_reset_link_is_void_after_another_or_a_password_change(p):
    name = p.account("probe-reset")
    first, second = reset_link(p, name), reset_link(p, name)
    expect(reset(p, first), 200, "the first link")
    answer = reset(p, second)
    expect(answer, 404, "the second link after the first served")
    error(answer, "NOT_FOUND", "the second link")
    third = reset_link(p, name)
    session = browser(p, cookie_of(p.sign_in(name, PASSWORD, "10.82.0.1")))
    expect(p.request("PATCH", "/api/me", {"password": {"current": PASSWORD, "new": OTHER}},
                     headers=session, token=""), 200, "change the password")
    answer = reset(p, third)
    expect(answer, 404, "a link made before the password changed")
    error(answer, "NOT_FOUND", "the third link")


def case_a_name_cannot_forge_a_log_line(p):
    forged = "mallory\nFORGED signed in account=admin"
    answer = p.sign_in(forged, WRONG, "10.83.0.1")
    expect(answer, 401, "a sign-in with a new line in the name")
    error(answer, "BAD_CREDENTIALS", "a new line in the name")
    log = p.log()
    assert not any(line.startswith("FORGED") for line in log.splitlines()), "a log line starts with FORGED"
    assert 'account="mallory\\nFORGED signed in account=admin"' in log, "the name is not logged quoted"


def case_a_forwarded_address_is_logged_quoted(p):
    answer = p.sign_in("probe-nobody", WRONG, '10.84.0.1" forged="1')
    expect(answer, 401, "a sign-in with a quote in X-Forwarded-For")
    lines = [line for line in p.log().splitlines() if "probe-nobody" in line]
    assert lines, "the refused sign-in is not logged"
    assert all(re.search(r' address="[^"]*"', line) for line in lines), f"a bare address: {lines}"
    assert not any(' forged="1"' in line for line in lines), f"the header forged a field: {lines}"


def case_an_over_long_name_costs_no_room(p):
    nobody = p.sign_in("nobody", PASSWORD, "10.85.0.100")
    expect(nobody, 401, "an unknown name")
    size = database_size(p)
    long = "y" * 1_000_000
    for i in range(10):
        answer = p.sign_in(long, PASSWORD, f"10.85.0.{i + 1}")
        expect(answer, 401, "a million-character name")
        assert answer.body == nobody.body, f"not the answer to an unknown name: {answer}"
    grown = database_size(p) - size
    assert grown < 64 * 1024, f"ten failures grew the database by {grown} bytes"
    with database(p) as db:
        kept = [s for (s,) in db.execute("SELECT subject FROM auth_failures WHERE address LIKE '10.85.%'")]
    hashed = [s for s in kept if re.fullmatch("sha256:[0-9a-f]{64}", s)]
    assert len(kept) == 11 and len(hashed) == 10, f"the failures keep {[s[:80] for s in kept]}"
    log = p.log()
    assert "y" * 101 not in log, "a logged name is longer than 100 characters"
    assert f'account="{"y" * 100}…"' in log, "the cut name is not logged with …"


def database(p):
    return contextlib.closing(sqlite3.connect(f"file:{p.dir}/board.db?mode=ro", uri=True))


def database_size(p):
    """The database's own size (its pages, the write-ahead log's included)."""
    with database(p) as db:
        return db.execute("PRAGMA page_count").fetchone()[0] * db.execute("PRAGMA page_size").fetchone()[0]


def case_sign_ins_in_progress_are_no_failures(p):
    name = p.account("probe-parallel")
    for _ in range(4):
        expect(p.sign_in(name, WRONG, "10.86.0.1"), 401, "a wrong password")
    servers = [p, p.twin()] * 4
    answers = at_once([lambda s=s: s.sign_in(name, PASSWORD, "10.86.0.1") for s in servers])
    assert all(a.status == 200 for a in answers), f"eight right sign-ins at once: {answers}"


def case_failures_at_once_stop_at_the_limit(p):
    name = p.account("probe-burst")
    servers = [p, p.twin()] * 8
    answers = at_once([lambda s=s: s.sign_in(name, WRONG, "10.87.0.1") for s in servers])
    statuses = sorted(a.status for a in answers)
    assert statuses == [401] * 5 + [429] * 11, f"sixteen wrong sign-ins at once: {statuses}"
    for answer in answers:
        if answer.status == 429:
            error(answer, "TOO_MANY_ATTEMPTS", "a throttled sign-in")
            assert answer.header("retry-after"), f"429 without Retry-After: {answer.headers}"
    for server in [p, p.twin()]:
        expect(server.sign_in(name, PASSWORD, "10.87.0.1"), 429, "the right password after the limit")


def case_an_invitation_outlives_no_admin_role(p):
    ann, session = member(p, "probe-ann")
    role = f"/api/members/{ann}"
    p.ok("PATCH", role, {"tenantId": p.tenant, "role": "ADMIN"})
    c1, c2, c3 = (invitation(p, token="", headers=session) for _ in range(3))
    p.ok("PATCH", role, {"tenantId": p.tenant, "role": "MEMBER"})
    unknown = accept(p, "no-such-code", "probe-bo")
    answer = accept(p, c1, "probe-bo")
    expect(answer, 404, "a code of a demoted admin")
    assert answer.body == unknown.body, f"not the answer to an unknown code: {answer} / {unknown}"
    p.ok("PATCH", role, {"tenantId": p.tenant, "role": "ADMIN"})
    expect(accept(p, c3, "probe-bo"), 200, "a code of an admin again")
    p.ok("DELETE", f"{role}?tenant={p.tenant}")
    expect(accept(p, c2, "probe-cy"), 404, "a code of a removed member")
    assert p.sign_in("probe-cy", PASSWORD, "10.88.0.1").status == 401, "the refused accept made an account"


def case_people_routes_refuse_unknown_keys(p):
    name = p.account("probe-keys")
    code = reset_link(p, name)
    answer = p.request("POST", "/api/password-reset", {"code": code, "password": PASSWORD, "name": "x"},
                       token="")
    expect(answer, 422, "a reset with an unknown key")
    assert "Unrecognized key(s) in object: 'name'" in answer.body, f"the key is not named: {answer}"
    expect(reset(p, code), 200, "the link after the refused reset")
    session = browser(p, cookie_of(p.sign_in(name, PASSWORD, "10.89.0.1")))
    expect(p.request("PATCH", "/api/me", {"password": {"current": PASSWORD, "new": OTHER, "extra": 1}},
                     headers=session, token=""), 422, "a password change with an unknown key")
    expect(p.request("POST", "/api/session", {"name": name, "password": PASSWORD, "x": 1},
                     headers={"X-Forwarded-For": "10.89.0.1"}, token=""), 422, "a sign-in with an unknown key")
    expect(p.request("POST", "/api/tokens", {"label": "CI", "x": 1}), 422, "a token with an unknown key")
    expect(p.request("POST", "/api/invitations", {"tenantId": p.tenant, "role": "MEMBER", "x": 1}), 422,
           "an invitation with an unknown key")


def case_members_answer_404_before_403(p):
    _, session = member(p, "probe-plain")
    admin = p.ok("GET", "/api/me")["id"]
    for target, status in [("ckabcdefghijklmnopqrstuv", 404), (admin, 403)]:
        answer = p.request("PATCH", f"/api/members/{target}", {"tenantId": p.tenant, "role": "ADMIN"},
                           headers=session, token="")
        expect(answer, status, f"a MEMBER changes the role of {target}")
        answer = p.request("DELETE", f"/api/members/{target}?tenant={p.tenant}", headers=session, token="")
        expect(answer, status, f"a MEMBER removes {target}")
        if status == 403:
            error(answer, "FORBIDDEN", "a MEMBER removes admin")


def case_the_cli_reset_link_names_the_public_url_setting(p):
    done = p.cli("account", "reset-link", "admin")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("http://127.0.0.1:8080/reset#"), f"stdout {done.stdout!r}"
    assert "BOARD_PUBLIC_URL" in done.stderr and "--public-url" in done.stderr, f"stderr {done.stderr!r}"
    done = p.cli("account", "reset-link", "admin", env={"BOARD_PUBLIC_URL": "https://b.example"})
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("https://b.example/reset#"), f"stdout {done.stdout!r}"
    assert done.stderr == "", f"stderr {done.stderr!r}"


PEOPLE_CASES = [
    case_a_look_alike_of_a_name_is_taken,
    case_invisible_and_direction_characters_are_refused_in_names,
    case_a_renamed_account_keeps_names_apart,
    case_the_cli_refuses_a_look_alike_name,
    case_sign_in_finds_the_account_by_the_names_key,
    case_look_alike_names_race_to_one_account,
    case_a_reset_link_is_void_after_another_or_a_password_change,
    case_a_name_cannot_forge_a_log_line,
    case_a_forwarded_address_is_logged_quoted,
    case_an_over_long_name_costs_no_room,
    case_sign_ins_in_progress_are_no_failures,
    case_failures_at_once_stop_at_the_limit,
    case_an_invitation_outlives_no_admin_role,
    case_people_routes_refuse_unknown_keys,
    case_members_answer_404_before_403,
    case_the_cli_reset_link_names_the_public_url_setting,
]
