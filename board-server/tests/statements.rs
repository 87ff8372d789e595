//! The round-trip budget: how many times each route talks to the database,
//! counted from sqlx's own statement log (`sqlx::query` at debug level) of a
//! server that logs it. sqlx logs one line per send, and a send may carry
//! several statements (a write's `BEGIN` rides with its first lock; its
//! deferred statements and outbox rows ride with its `COMMIT`), so a line is
//! a round trip. The counts are pinned, so none can creep up unseen; lower one
//! here when a route gets cheaper. A `BEGIN`, `COMMIT` or `ROLLBACK` sent on
//! its own is not counted, nor is a new connection's set-up.

use serde_json::{json, Value};
use testkit::process::{first_run, log_path, start_server, ServerProcess};
use testkit::{on_both_backends, Res, TestDb};

/// The `board-server` binary cargo built for these tests.
const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

/// A `board-server` process whose log is the count (the log is the process's
/// own: its subscriber, its filter), and the first run's credential.
struct App {
    db: TestDb,
    server: ServerProcess,
    token: String,
    tenant: String,
    http: reqwest::Client,
}

impl App {
    async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Res {
        testkit::request(
            &self.http,
            &self.server.base,
            &self.token,
            method,
            path,
            body,
        )
        .await
    }
}

/// Whether a logged line is one the budget does not count: a transaction
/// control statement sent on its own, or one of the statements named above.
/// A send that fuses `BEGIN` with a lock (`BEGIN IMMEDIATE; UPDATE …`, whose
/// summary starts with `BEGIN`) is counted: it is the round trip of the lock.
fn uncounted(line: &str) -> bool {
    let Some(start) = line.find("summary=\"") else {
        return false;
    };
    let rest = &line[start + "summary=\"".len()..];
    let summary = &rest[..rest.find('"').unwrap_or(rest.len())];
    ["BEGIN", "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK"].contains(&summary)
        || ["NOTIFY", "PRAGMA", "SET jit"]
            .iter()
            .any(|c| summary.starts_with(c))
}

/// The round trips the server logged so far.
fn logged(app: &App) -> usize {
    logged_lines(app).len()
}

/// The lines of the round trips the server logged so far.
fn logged_lines(app: &App) -> Vec<String> {
    std::fs::read_to_string(log_path(&app.db))
        .unwrap_or_default()
        .lines()
        .filter(|l| l.contains("sqlx::query"))
        // Transaction control is not a statement of the route's own (and only
        // some drivers log it). Nor is the `NOTIFY` that PostgreSQL writes
        // are followed by: it is sent after the response's commit, by a task
        // that one NOTIFY serves for every commit made meanwhile, so it lands
        // in whichever request's window it falls. Nor is a new pool
        // connection's set-up (sqlx's and our `PRAGMA`s on SQLite, `SET jit`
        // on PostgreSQL): the pool opens one whenever no idle connection is
        // free, which the warm-up makes rare but cannot rule out on a slow
        // machine.
        .filter(|l| !uncounted(l))
        .map(str::to_string)
        .collect()
}

/// PostgreSQL: the statements of the round trips logged since `before` lines
/// that ran a prepared statement by name, and those that sent `text` itself.
fn by_name(app: &App, before: usize, text: &str) -> (usize, usize) {
    let lines = logged_lines(app);
    let sent = &lines[before..];
    // Counted in the statement's text, not in its summary (its first words).
    let statement = |l: &str| {
        l.split_once("db.statement=")
            .map_or(String::new(), |(_, t)| t.to_string())
    };
    let named = sent
        .iter()
        .map(|l| statement(l).matches("EXECUTE board_p").count())
        .sum();
    (named, sent.iter().filter(|l| l.contains(text)).count())
}

/// Runs one request, warmed up first on the same route so that no pool
/// connection is opened (its set-up statements are not the route's), and
/// returns its body and the statements it ran.
async fn count(app: &App, method: &str, path: &str, body: Option<Value>) -> (Value, usize) {
    let before = logged(app);
    let r = app.call(method, path, body).await;
    assert!(r.status < 300, "{method} {path}: {} {:?}", r.status, r.body);
    (r.body, logged(app) - before)
}

/// Runs one `GET` with `If-None-Match` naming the tag a first `GET` of the same
/// path returned (api.md §22), asserts the 304, and returns the statements
/// the 304 ran.
async fn count_304(app: &App, path: &str) -> usize {
    let get = |tag: Option<String>| {
        let mut req = app
            .http
            .get(format!("{}{path}", app.server.base))
            .bearer_auth(&app.token);
        if let Some(t) = tag {
            req = req.header("if-none-match", t);
        }
        req.send()
    };
    let first = get(None).await.expect("request");
    assert_eq!(first.status(), 200, "GET {path}");
    let tag = first.headers()["etag"].to_str().unwrap().to_string();
    let before = logged(app);
    let again = get(Some(tag)).await.expect("request");
    assert_eq!(again.status(), 304, "GET {path} with its tag");
    logged(app) - before
}

/// The `ETag` of a `GET path`.
async fn current_tag(app: &App, path: &str) -> String {
    let r = app
        .http
        .get(format!("{}{path}", app.server.base))
        .bearer_auth(&app.token)
        .send()
        .await
        .expect("request");
    r.headers()["etag"].to_str().unwrap().to_string()
}

/// Runs one `PATCH` (with `If-Match` when `tag` is given), asserts the 200 and
/// returns the statements it ran.
async fn patch_count(app: &App, path: String, tag: Option<String>, body: Value) -> usize {
    let before = logged(app);
    let mut req = app
        .http
        .patch(format!("{}{path}", app.server.base))
        .bearer_auth(&app.token)
        .json(&body);
    if let Some(t) = tag {
        req = req.header("if-match", t);
    }
    let r = req.send().await.expect("request");
    assert_eq!(r.status(), 200, "PATCH {path}");
    logged(app) - before
}

/// Makes `n` new members of the app's workspace watch `card` (written
/// straight into the database: fixtures, not the route counted).
async fn watchers(app: &App, card: &str, n: usize) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let at = "2026-01-01T00:00:00.000Z";
    for i in 0..n {
        let id = format!("w{i:023}");
        let name = format!("watcher {i}");
        sqlx::query(
            "INSERT INTO accounts (id, name, name_key, created_at) VALUES ($1, $2, $2, $3)",
        )
        .bind(&id)
        .bind(&name)
        .bind(at)
        .execute(&pool)
        .await
        .unwrap();
        sqlx::query("INSERT INTO memberships (workspace_id, account_id, role, created_at) VALUES ($1, $2, 'VIEWER', $3)")
            .bind(&app.tenant).bind(&id).bind(at).execute(&pool).await.unwrap();
        sqlx::query("INSERT INTO card_watches (card_id, account_id, watching, chosen_at) VALUES ($1, $2, 1, $3)")
            .bind(card).bind(&id).bind(at).execute(&pool).await.unwrap();
    }
    pool.close().await;
}

/// How many notifications the database holds.
async fn notifications(app: &App) -> i64 {
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM notifications")
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    n
}

on_both_backends! {
    async fn each_route_keeps_its_statement_budget(backend) {
        let db = TestDb::new(backend).await;
        // The webhook worker looks for work at start, then not again for an
        // hour: none of its statements falls into a route's count.
        let env = [("BOARD_LOG", "warn,sqlx::query=debug"), ("BOARD_WEBHOOK_SCAN", "1h"), ("BOARD_DUE_SCAN", "1h")];
        let server = start_server(SERVER, &db, &env).await;
        let (token, tenant) = first_run(&server.lines).expect("first run");
        let app = App { db, server, token, tenant, http: reqwest::Client::new() };
        let t = app.tenant.clone();
        // Warm the pool: several connections open (and run their set-up) now.
        for _ in 0..4 {
            let _ = tokio::join!(
                app.call("GET", "/healthz", None),
                app.call("GET", "/healthz", None),
                app.call("GET", "/healthz", None),
                app.call("GET", "/healthz", None),
            );
        }
        let cols = app.call("GET", &format!("/api/columns?tenant={t}"), None).await.body;
        // A token's lastUsedAt moves at most once a minute, in the background
        // (api.md §23): its first use's statement lands before any count.
        for _ in 0..250 {
            let tokens = app.call("GET", "/api/tokens", None).await.body;
            if tokens.as_array().unwrap().iter().any(|t| t["lastUsedAt"].is_string()) {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
        let mut counts = Vec::new();
        let (_, n) = count(&app, "GET", &format!("/api/columns?tenant={t}"), None).await;
        counts.push(("GET /api/columns", n));
        let (card, n) = count(&app, "POST", "/api/cards", Some(json!({"tenantId": t, "title": "x"}))).await;
        counts.push(("POST /api/cards", n));
        let card = card["id"].as_str().unwrap().to_string();
        let (_, n) = count(&app, "PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": cols[1]["id"]}))).await;
        counts.push(("PATCH /api/cards/[id] (move)", n));
        let (other, _) = count(&app, "POST", "/api/cards", Some(json!({"tenantId": t, "title": "y"}))).await;
        let body = json!({"columnId": cols[1]["id"], "beforeId": card});
        let (_, n) = count(&app, "PATCH", &format!("/api/cards/{}", other["id"].as_str().unwrap()), Some(body)).await;
        counts.push(("PATCH /api/cards/[id] (placed move)", n));
        let before = logged(&app);
        let (_, n) = count(&app, "POST", &format!("/api/cards/{card}/comments"), Some(json!({"content": "hi"}))).await;
        counts.push(("POST …/comments", n));
        if backend == testkit::Backend::Postgres {
            // The comment's INSERT, its word and its event run prepared, by
            // name (their texts are never sent); so do a move's gate, re-read,
            // column lock (with its commit), history entry and event.
            // On a card that nobody but its author watches, no notification
            // statement runs, for a comment or a move (api.md §26; with
            // watchers, see below).
            assert_eq!(by_name(&app, before, "INSERT INTO comments"), (4, 0), "comment POST");
            let before = logged(&app);
            let (_, n) = count(&app, "PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": cols[0]["id"]}))).await;
            assert_eq!(n, 4, "a move's round trips");
            assert_eq!(by_name(&app, before, "INSERT INTO history"), (7, 0), "move");
            count(&app, "PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": cols[1]["id"]}))).await;
        }
        // api.md §26: a comment on a card with 20 watchers (who are told,
        // in the same commit) costs the round trips of one with none.
        let plain = counts.iter().find(|(name, _)| *name == "POST …/comments").unwrap().1;
        watchers(&app, &card, 20).await;
        let before = logged(&app);
        let (_, n) = count(&app, "POST", &format!("/api/cards/{card}/comments"), Some(json!({"content": "hi all"}))).await;
        assert_eq!(n, plain, "a comment on a card with 20 watchers");
        if backend == testkit::Backend::Postgres {
            // Its notifications' two statements, prepared too, in the same send.
            assert_eq!(by_name(&app, before, "INSERT INTO comments"), (6, 0), "comment POST, watched");
        }
        let told = app.call("GET", &format!("/api/cards/{card}/comments"), None).await;
        assert_eq!(told.status, 200);
        assert_eq!(notifications(&app).await, 20, "each watcher is told once");
        if backend == testkit::Backend::Postgres {
            let before = logged(&app);
            let (_, n) = count(&app, "PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": cols[0]["id"]}))).await;
            assert_eq!(n, 4, "a watched move's round trips");
            assert_eq!(by_name(&app, before, "INSERT INTO history"), (9, 0), "move, watched");
        }
        let (_, n) = count(&app, "GET", &format!("/api/cards/{card}/comments"), None).await;
        counts.push(("GET …/comments", n));
        let (_, n) = count(&app, "GET", &format!("/api/cards/{card}/history"), None).await;
        counts.push(("GET …/history", n));
        let (_, n) = count(&app, "GET", &format!("/api/board?tenant={t}"), None).await;
        counts.push(("GET /api/board", n));
        // api.md §22: a 304 costs at most one statement after authentication.
        // The fused reads check the token in that one statement.
        let mut fused = Vec::new();
        fused.push(count_304(&app, &format!("/api/board?tenant={t}")).await);
        fused.push(count_304(&app, &format!("/api/columns?tenant={t}")).await);
        for tail in ["/comments", "/history"] {
            fused.push(count_304(&app, &format!("/api/cards/{card}{tail}")).await);
        }
        counts.push(("304s (board, columns, comments, history): most", fused.iter().copied().max().unwrap_or(0)));
        let card_paths = ["", "/relations", "/attachments"];
        let mut not_modified = Vec::new();
        not_modified.push(count_304(&app, "/api/columns").await);
        // A project's set in effect (two statements for its 200).
        let operator = app.db.open().await;
        let ws = board_core::WorkspaceId::parse(&t).expect("tenant id");
        let name = board_core::Name::parse("Apollo").expect("name");
        let project = operator.admin().create_project(&ws, &name).await.expect("project");
        operator.close().await;
        let path = format!("/api/columns?tenant={t}&project={}", project.id.as_str());
        not_modified.push(count_304(&app, &path).await);
        for tail in card_paths {
            not_modified.push(count_304(&app, &format!("/api/cards/{card}{tail}")).await);
        }
        // If-Match costs no statement: the card's tag is checked on the card the
        // write re-reads under its lock; the comments' on the version the card
        // lock's own statement returns.
        let cpath = format!("/api/cards/{card}");
        counts.push(("PATCH /api/cards/[id] (rename)", patch_count(&app, cpath.clone(), None, json!({"title": "r1"})).await));
        let tag = current_tag(&app, &cpath).await;
        counts.push(("PATCH /api/cards/[id] (rename, If-Match)", patch_count(&app, cpath.clone(), Some(tag), json!({"title": "r2"})).await));
        // api.md §24: a label or an assignee put on a card costs no more than a rename.
        let label = app.call("POST", "/api/labels", Some(json!({"tenantId": t, "name": "Bug"}))).await.body;
        let (_, n) = count(&app, "PUT", &format!("{cpath}/labels/{}", label["id"].as_str().unwrap()), None).await;
        counts.push(("PUT /api/cards/[id]/labels/[labelId]", n));
        let members = app.call("GET", &format!("/api/members?tenant={t}"), None).await.body;
        let me = members[0]["accountId"].as_str().unwrap().to_string();
        let (_, n) = count(&app, "PUT", &format!("{cpath}/assignees/{me}"), None).await;
        counts.push(("PUT /api/cards/[id]/assignees/[accountId]", n));
        let list = app.call("GET", &format!("/api/cards/{card}/comments"), None).await.body;
        let comment = format!("/api/comments/{}", list[0]["id"].as_str().unwrap());
        counts.push(("PATCH /api/comments/[id]", patch_count(&app, comment.clone(), None, json!({"content": "c1"})).await));
        let tag = current_tag(&app, &format!("/api/cards/{card}/comments")).await;
        counts.push(("PATCH /api/comments/[id] (If-Match)", patch_count(&app, comment.clone(), Some(tag), json!({"content": "c2"})).await));
        counts.push(("304s (all columns, project columns, card, relations, attachments): most", not_modified.iter().copied().max().unwrap_or(0)));
        // api.md §20: the same move and create into a column with a hard WIP limit.
        app.call("PATCH", "/api/settings", Some(json!({"tenantId": t, "wipLimits": "HARD"}))).await;
        let done = cols[2]["id"].as_str().unwrap();
        let r = app.call("PATCH", &format!("/api/columns/{done}"), Some(json!({"wipLimit": 10}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        // The column write advanced the workspace's version: the listing is
        // read again once, then kept.
        let (listed, n) = count(&app, "GET", &format!("/api/columns?tenant={t}"), None).await;
        assert_eq!(listed[2]["wipLimit"], 10, "{listed:?}");
        counts.push(("GET /api/columns (after a column write)", n));
        let (_, n) = count(&app, "GET", &format!("/api/columns?tenant={t}"), None).await;
        counts.push(("GET /api/columns (again)", n));
        let (_, n) = count(&app, "PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": done}))).await;
        // PostgreSQL takes a hard-limited column's lock in a round trip of
        // its own, with the card's read again (the count is read under it),
        // where other moves to an end take it with their commit.
        let own_lock = usize::from(backend == testkit::Backend::Postgres);
        counts.push(("PATCH /api/cards/[id] (move, hard WIP limit)", n - own_lock));
        let (_, n) = count(&app, "POST", "/api/cards", Some(json!({"tenantId": t, "title": "z", "columnId": done}))).await;
        counts.push(("POST /api/cards (hard WIP limit)", n));
        // api.md §18: the webhook routes (a public address literal: no DNS).
        let body = json!({"tenantId": t, "url": "http://93.184.216.34/hook"});
        let (hook, n) = count(&app, "POST", "/api/webhooks", Some(body)).await;
        counts.push(("POST /api/webhooks", n));
        let hook = hook["id"].as_str().unwrap().to_string();
        let (_, n) = count(&app, "GET", &format!("/api/webhooks?tenant={t}"), None).await;
        counts.push(("GET /api/webhooks", n));
        let (_, n) = count(&app, "PATCH", &format!("/api/webhooks/{hook}"), Some(json!({"active": false}))).await;
        counts.push(("PATCH /api/webhooks/[id]", n));
        let (_, n) = count(&app, "GET", &format!("/api/webhooks/{hook}/deliveries"), None).await;
        counts.push(("GET /api/webhooks/[id]/deliveries", n));
        let (_, n) = count(&app, "DELETE", &format!("/api/webhooks/{hook}"), None).await;
        counts.push(("DELETE /api/webhooks/[id]", n));
        // api.md §19: archive, the archived list, restore (into that limited column).
        let (_, n) = count(&app, "POST", &format!("/api/cards/{card}/archive"), None).await;
        counts.push(("POST /api/cards/[id]/archive", n));
        let (_, n) = count(&app, "GET", &format!("/api/cards?tenant={t}&archived=true"), None).await;
        counts.push(("GET /api/cards?archived=true", n));
        let (_, n) = count(&app, "POST", &format!("/api/cards/{card}/restore"), None).await;
        counts.push(("POST /api/cards/[id]/restore", n));
        // The comment reads "c2" (edited above): a search that finds it reads its snippet.
        let (_, n) = count(&app, "GET", &format!("/api/search?tenant={t}&q=c2"), None).await;
        counts.push(("GET /api/search", n));
        assert_eq!(
            counts,
            BUDGET,
            "statements per route changed: lower BUDGET when a route got cheaper"
        );
    }
}

/// Round trips per route, on both backends (see the module's docs). Issue 32
/// made them round trips rather than statements: `Board::write` sends its
/// `BEGIN` with its first lock, and a card write (`write_card`) and a card
/// create send the read that decides (the card re-read, with a move's target
/// column, names and WIP room; the new card's column) in that same round trip,
/// so the lock's line now carries a `BEGIN` that was not counted and a read
/// that was. Statements whose answer nobody reads (a comment's or card's words
/// in the search index, a history entry, a created comment's `INSERT`, an
/// archive's stay) are deferred to the commit's send, with the events and
/// `COMMIT`. A comment `POST` is the credential, the card's reach, `BEGIN` +
/// lock, and the comment, its words, its event and `COMMIT` in one send: 6 → 4
/// lines (7 → 4 round trips). Moves 8 → 5 (placed 9 → 6), creates 8 → 5, renames
/// 8 → 5, a comment `PATCH` 9 → 6 (its `UPDATE … RETURNING` replaces the
/// re-read), archive 7 → 5, restore 8 → 6. Then a comment `POST` checks its
/// bearer token in the statement that finds the card (`reach_card_as`, as the
/// fused reads): 4 → 3; and a plain comment takes no lock, its `BEGIN` sent
/// with its commit (`Board::write_at_commit`): 3 → 2. The round trips stay
/// the same when PostgreSQL runs the hot statements of those sends by name
/// (`EXECUTE`, prepared by every connection: `store/prepared.rs`), which the
/// test checks for a comment `POST` and a move. A move to a column's end then
/// reads the end with the card under the lock and defers its `UPDATE` (every
/// value of the moved card is known): 5 → 4. On PostgreSQL that move then
/// takes its column's lock in its commit's round trip (the end computed
/// there), and a move into a column with a hard WIP limit takes it in one
/// round trip more (5), its count read under it. What follows is the
/// history of the statement counts before that.
///
/// Statements per route, on both backends. Before the budget (issue #13's
/// count): columns 3, card create 11, move 14, comment create 7, comments 5,
/// history 4, board 5. A write has one statement more since live events: its
/// event, appended to the outbox (with its seq) by one statement before COMMIT.
/// A placed move (api.md §16, `beforeId`) reads its anchor and the anchor's
/// neighbour in one statement more, and nothing else: the position is bound
/// into the move's `UPDATE`, where a plain move computes the column's end
/// inline. (A used-up gap adds the renumbering's few statements, rarely: not
/// on this route's first placement.) A move or create into a column with a hard
/// WIP limit (api.md §20) costs no statement more: the limit and the count are
/// read by the statement that already reads the target column. The webhook
/// routes (api.md §18) are new: an access check (and, by id, the webhook's
/// read before it), then their statements.
/// A `304` (api.md §22) is the credential's statement and one more: the
/// card (its tag is the hash of its JSON), the card with its list's versions,
/// the set in effect with its versions, or the one statement of a workspace's
/// columns (hashed).
/// Archive (api.md §19) reads the card with its reach, locks and re-reads it
/// as a move does, then sets `archived_at` and opens its stay in
/// `card_archives` (two statements: SQLite has no data-modifying CTE), and the
/// event; restore reads its column (or the set's first) with the WIP room in one
/// statement, then the card's `UPDATE`, the stay's close and the event. The
/// archived list is the access check and one keyset read.
/// Search (§19) writes the words of a card title or a comment into its index in
/// the write's transaction: one multi-row `INSERT` more for a card or comment
/// created (card create 7 → 8, comment create 5 → 6; SQLite has no
/// data-modifying CTE to fuse it into the row's own `INSERT`), a `DELETE` and an
/// `INSERT` more for a title or comment edited, one `DELETE` more for a comment
/// deleted (a card's rows go with it by foreign key). Their cost: BENCHMARKS.md.
/// The search itself is the access check, one statement over the index, and
/// one read of the found cards' comments for the snippets.
/// Fused reads (issue 32): `GET /api/columns?tenant=`, `GET /api/board`, a
/// card's comments and history check the bearer token in their first
/// statement (the workspace's columns; the set in effect; the card with its
/// list's versions) instead of a statement of its own before it: one statement
/// less each (columns 2 → 1, comments 4 → 3, history 3 → 2, board 4 → 3), and
/// their 304s are that one statement. Every other route authenticates first.
/// A workspace's columns are then kept by each process, keyed by the
/// workspace's version, which every column write advances (`Lock::Workspace`):
/// the token and the version are one statement over three primary keys, and
/// the columns' statement runs only for a version the process has not read
/// (1, or 2 after a column write).
const BUDGET: [(&str, usize); 29] = [
    ("GET /api/columns", 1),
    ("POST /api/cards", 5),
    ("PATCH /api/cards/[id] (move)", 4),
    ("PATCH /api/cards/[id] (placed move)", 6),
    ("POST …/comments", 2),
    ("GET …/comments", 3),
    ("GET …/history", 2),
    ("GET /api/board", 3),
    ("304s (board, columns, comments, history): most", 1),
    ("PATCH /api/cards/[id] (rename)", 5),
    ("PATCH /api/cards/[id] (rename, If-Match)", 5),
    ("PUT /api/cards/[id]/labels/[labelId]", 5),
    ("PUT /api/cards/[id]/assignees/[accountId]", 5),
    ("PATCH /api/comments/[id]", 6),
    ("PATCH /api/comments/[id] (If-Match)", 6),
    (
        "304s (all columns, project columns, card, relations, attachments): most",
        2,
    ),
    ("GET /api/columns (after a column write)", 2),
    ("GET /api/columns (again)", 1),
    ("PATCH /api/cards/[id] (move, hard WIP limit)", 4),
    ("POST /api/cards (hard WIP limit)", 5),
    ("POST /api/webhooks", 3),
    ("GET /api/webhooks", 2),
    ("PATCH /api/webhooks/[id]", 6),
    ("GET /api/webhooks/[id]/deliveries", 3),
    ("DELETE /api/webhooks/[id]", 5),
    ("POST /api/cards/[id]/archive", 5),
    ("GET /api/cards?archived=true", 2),
    ("POST /api/cards/[id]/restore", 6),
    ("GET /api/search", 3),
];
