//! Moving an installation (api.md §15) with the `board` binary: `board copy`
//! in every direction between the backends, `board export` / `board import`,
//! and the refusals (a target that holds data, a corrupt export, an
//! interrupted copy). A board filled through the API must answer the same on
//! the target, every read route, and take new writes without clashes.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use testkit::process::Cli;
use testkit::sse::{EventStream, Frame};
use testkit::{self as common, App, Backend, Files, Running, Target, TestDb};
use tokio::io::{AsyncBufReadExt, BufReader};

/// The `board` binary cargo built for these tests.
const BOARD: &str = env!("CARGO_BIN_EXE_board");

async fn cli(db: &TestDb, args: &[&str]) -> Cli {
    testkit::process::cli(BOARD, db, args).await
}

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

fn png() -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
    v.extend_from_slice(&[0x1f, 0x15, 0xc4, 0x89]);
    v
}

/// POSTs one file as multipart to `path`; returns the stored attachments.
async fn upload(app: &App, path: &str, name: &str, bytes: Vec<u8>) -> Vec<Value> {
    let part = reqwest::multipart::Part::bytes(bytes).file_name(name.to_string());
    let form = reqwest::multipart::Form::new().part("files", part);
    let res = app
        .http
        .post(format!("{}{path}", app.base))
        .bearer_auth(&app.token)
        .multipart(form)
        .send()
        .await
        .expect("upload");
    assert_eq!(res.status().as_u16(), 201);
    let body: Value = res.json().await.expect("json");
    body.as_array().expect("array").clone()
}

async fn ok(app: &App, method: &str, path: &str, body: Value) -> Value {
    let r = app.call(method, path, Some(body)).await;
    assert!((200..300).contains(&r.status), "{method} {path}: {r:?}");
    r.body
}

/// What the story made: the ids to read back, the tokens.
struct Story {
    cards: Vec<String>,
    project: String,
    member_token: String,
    revoked_token: String,
    /// A webhook (api.md §18), turned off at once so that its fields stay
    /// as they are; the copy must carry it with its secret and position.
    webhook: String,
}

/// The secret of the story's webhook.
const WEBHOOK_SECRET: &str = "the-webhook-secret-of-the-story";

/// Fills the source through the API: moves, a deleted column, comments with
/// images, attachments, relations, a project set with columnScope PROJECT,
/// changed settings, a revoked token.
async fn fill(app: &App) -> Story {
    let t = app.tenant.clone();
    let cols = app.columns().await;
    let (todo, doing, done) = (id(&cols[0]), id(&cols[1]), id(&cols[2]));
    let a = id(&app.card("Alpha").await);
    let b = id(&app.card("Beta").await);
    let c = id(&app.card("Gamma").await);
    for to in [&doing, &done, &doing] {
        ok(
            app,
            "PATCH",
            &format!("/api/cards/{a}"),
            json!({"columnId": to}),
        )
        .await;
    }
    let review = ok(
        app,
        "POST",
        "/api/columns",
        json!({"tenantId": t, "name": "Review"}),
    )
    .await;
    ok(
        app,
        "PATCH",
        &format!("/api/cards/{b}"),
        json!({"columnId": id(&review)}),
    )
    .await;
    ok(
        app,
        "DELETE",
        &format!("/api/columns/{}", id(&review)),
        json!({"cards": "MOVE", "targetColumnId": todo}),
    )
    .await;
    // Order within a column (api.md §16): To do is Gamma, Beta; Gamma goes
    // below Beta. The copy keeps every position: the boards read before and
    // after are compared, positions included.
    ok(
        app,
        "PATCH",
        &format!("/api/cards/{c}"),
        json!({"afterId": b}),
    )
    .await;
    let image = upload(
        app,
        &format!("/api/cards/{a}/comments/uploads"),
        "a.png",
        png(),
    )
    .await;
    ok(
        app,
        "POST",
        &format!("/api/cards/{a}/comments"),
        json!({"content": "see ![a](x)", "attachmentIds": [id(&image[0])]}),
    )
    .await;
    ok(
        app,
        "POST",
        &format!("/api/cards/{a}/comments"),
        json!({"content": "second"}),
    )
    .await;
    upload(
        app,
        &format!("/api/cards/{b}/attachments"),
        "notes.txt",
        b"plain notes\n".to_vec(),
    )
    .await;
    ok(
        app,
        "POST",
        &format!("/api/cards/{a}/relations"),
        json!({"targetId": b, "kind": "PARENT"}),
    )
    .await;
    ok(
        app,
        "POST",
        &format!("/api/cards/{c}/relations"),
        json!({"targetId": b, "kind": "BLOCKS"}),
    )
    .await;
    // A public address literal: the source server may try it (it cannot
    // reach it here), and turns it off at once.
    let hook = ok(
        app,
        "POST",
        "/api/webhooks",
        json!({"tenantId": t, "url": "http://93.184.216.34/hook", "secret": WEBHOOK_SECRET}),
    )
    .await;
    ok(
        app,
        "PATCH",
        &format!("/api/webhooks/{}", id(&hook)),
        json!({"active": false}),
    )
    .await;
    let project = app.project(&t, "Web").await;
    ok(
        app,
        "PATCH",
        "/api/settings",
        json!({"tenantId": t, "columnScope": "PROJECT", "allowCrossProjectLinks": true, "wipLimits": "HARD"}),
    )
    .await;
    ok(
        app,
        "POST",
        "/api/columns",
        json!({"tenantId": t, "projectId": project, "name": "Backlog", "wipLimit": 5}),
    )
    .await;
    let site = ok(
        app,
        "POST",
        "/api/cards",
        json!({"tenantId": t, "projectId": project, "title": "Site"}),
    )
    .await;
    let member_token = app.account_in(&t, "ana", "member").await;
    let revoked_token = app.account_in(&t, "bob", "viewer").await;
    app.operator()
        .admin()
        .revoke_token(&board_core::TokenId::from_token_or_id(&revoked_token).unwrap())
        .await
        .expect("revoke");
    // Notifications (api.md §26): each is told of the other's assignment;
    // the admin stops watching a card it created.
    let admin = app
        .operator()
        .admin()
        .find_account("admin")
        .await
        .unwrap()
        .id;
    let ana = app.operator().admin().find_account("ana").await.unwrap().id;
    let assign = |card: &str, account: &str| format!("/api/cards/{card}/assignees/{account}");
    let r = app
        .call_as(&member_token, "PUT", &assign(&b, admin.as_str()), None)
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = app.call("PUT", &assign(&c, ana.as_str()), None).await;
    assert_eq!(r.status, 200, "{r:?}");
    let r = app
        .call("DELETE", &format!("/api/cards/{c}/watch"), None)
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    // E-mail and single sign-on (api.md §26, §27): the admin's verified
    // address, its preferences, and an identity at a provider.
    app.operator()
        .admin()
        .set_email(&admin, "admin@example.test", true)
        .await
        .expect("an address");
    let r = app
        .call(
            "PATCH",
            "/api/me/notifications",
            Some(json!({"email": {"moved": true, "assigned": false}, "batchMinutes": 30})),
        )
        .await;
    assert_eq!(r.status, 200, "{r:?}");
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    sqlx::query(
        "INSERT INTO identities (id, account_id, issuer, subject, email, linked_at) \
         VALUES ('i1', $1, 'https://id.example.test', 'sub-1', 'admin@example.test', '2026-01-01T00:00:00.000Z')",
    )
    .bind(admin.as_str())
    .execute(&pool)
    .await
    .expect("an identity");
    pool.close().await;
    let me = app.call("GET", "/api/me", None).await.body;
    assert_eq!(
        (
            me["emailVerified"].clone(),
            me["identities"][0]["subject"].clone()
        ),
        (json!(true), json!("sub-1")),
        "what the copy must carry: {me}"
    );
    Story {
        cards: vec![a, b, c, id(&site)],
        project,
        member_token,
        revoked_token,
        webhook: id(&hook),
    }
}

/// Every read route of the story, and each attachment's bytes.
async fn read_all(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    tenant: &str,
    s: &Story,
) -> BTreeMap<String, Value> {
    let p = &s.project;
    let mut paths = vec![
        format!("/api/board?tenant={tenant}"),
        format!("/api/board?tenant={tenant}&project={p}"),
        format!("/api/columns?tenant={tenant}"),
        format!("/api/columns?tenant={tenant}&project={p}"),
        format!("/api/settings?tenant={tenant}"),
        format!("/api/webhooks?tenant={tenant}"),
        "/api/notifications".to_string(),
        "/api/me".to_string(),
        "/api/me/notifications".to_string(),
    ];
    for card in &s.cards {
        for suffix in ["", "/history", "/comments", "/attachments", "/relations"] {
            paths.push(format!("/api/cards/{card}{suffix}"));
        }
    }
    let mut out = BTreeMap::new();
    for path in paths {
        let r = common::request(http, base, token, "GET", &path, None).await;
        assert_eq!(r.status, 200, "{path}: {:?}", r.body);
        out.insert(path, r.body);
    }
    let mut urls = Vec::new();
    out.values().for_each(|v| file_urls(v, &mut urls));
    urls.sort();
    urls.dedup();
    assert!(urls.len() >= 2, "the story has files: {urls:?}");
    for url in urls {
        let res = http
            .get(format!("{base}{url}"))
            .bearer_auth(token)
            .send()
            .await
            .expect("download");
        assert_eq!(res.status().as_u16(), 200, "{url}");
        let bytes = res.bytes().await.expect("bytes");
        out.insert(url, json!(bytes.to_vec()));
    }
    out
}

/// Every `/api/files/…` URL anywhere in `v`.
fn file_urls(v: &Value, out: &mut Vec<String>) {
    match v {
        Value::Object(map) => {
            for (key, value) in map {
                match value.as_str() {
                    Some(url) if key == "url" && url.starts_with("/api/files/") => {
                        out.push(url.to_string())
                    }
                    _ => file_urls(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|i| file_urls(i, out)),
        _ => {}
    }
}

/// Every event of `tenant` after `after`, as (seq, type, data).
async fn events(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    tenant: &str,
    after: i64,
) -> Vec<Frame> {
    let path = format!("/api/events?tenant={tenant}&after={after}");
    let mut stream = EventStream::open(http, base, token, &path, None).await;
    let mut frames = Vec::new();
    while let Some(f) = stream.next(Duration::from_millis(800)).await {
        frames.push(f);
    }
    frames
}

#[derive(Clone, Copy)]
enum Via {
    Copy,
    ExportImport,
}

/// The story: fill `from`, move it to a fresh database on `to`, and check a
/// server there answers the same and takes new writes.
async fn moves_everything(from: Backend, to: impl Into<Target>, via: Via) {
    let app = common::spawn_app(from).await;
    let story = fill(&app).await;
    let target = TestDb::new(to).await;
    // The target's own files location: a folder, or a prefix of the test bucket.
    let files_to = target
        .files_url
        .clone()
        .unwrap_or_else(|| target.files_dir().display().to_string());
    let report = match via {
        Via::Copy => cli(
            &app.db,
            &[
                "--json",
                "copy",
                "--to",
                &target.url,
                "--files-to",
                &files_to,
            ],
        )
        .await
        .ok(),
        Via::ExportImport => {
            let out = app.db.dir.path().join("export");
            let out = out.to_str().unwrap();
            let exported = cli(&app.db, &["--json", "export", "--out", out]).await.ok();
            let imported = cli(&target, &["--json", "import", out]).await.ok();
            assert_eq!(exported, imported);
            imported
        }
    };
    assert_eq!(report["tables"]["cards"], 4, "{report}");
    assert_eq!(report["tables"]["history"], 9, "{report}");
    assert_eq!(report["tables"]["comments"], 2, "{report}");
    assert_eq!(report["tables"]["attachments"], 2, "{report}");
    assert_eq!(report["tables"]["relations"], 2, "{report}");
    assert_eq!(report["tables"]["webhooks"], 1, "{report}");
    assert_eq!(report["tables"]["notifications"], 2, "{report}");
    assert_eq!(report["tables"]["card_watches"], 1, "{report}");
    assert_eq!(report["files"], 2, "{report}");
    assert_eq!(
        target.stored_files().await.len(),
        2,
        "both files are in the target's store, published"
    );

    let server: Running = common::start(common::config(
        &target,
        &[("BOARD_WEBHOOK_ALLOW_PRIVATE", "true")],
    ))
    .await;
    assert!(
        server.first_run.is_none(),
        "the copied installation is not a first run"
    );
    let http = &app.http;
    let (t, token) = (app.tenant.as_str(), app.token.as_str());
    let before = read_all(http, &app.base, token, t, &story).await;
    let after = read_all(http, &server.base, token, t, &story).await;
    for (path, body) in &before {
        assert_eq!(Some(body), after.get(path), "{path}");
    }
    // The target's triggers kept the counts as the rows went in.
    let kept = target.open().await;
    assert_eq!(kept.admin().check_counts().await.unwrap(), vec![]);
    kept.close().await;
    // WIP limits (api.md §20) are part of what those reads compare.
    let p = &story.project;
    assert_eq!(
        after[&format!("/api/settings?tenant={t}")]["wipLimits"],
        "HARD"
    );
    let backlog = &after[&format!("/api/columns?tenant={t}&project={p}")][0];
    assert_eq!(
        (&backlog["name"], &backlog["wipLimit"]),
        (&json!("Backlog"), &json!(5))
    );
    let old_events = events(http, &app.base, token, t, 0).await;
    let new_events = events(http, &server.base, token, t, 0).await;
    let shape = |f: &[Frame]| {
        f.iter()
            .map(|f| (f.id, f.event.clone(), f.data.clone()))
            .collect::<Vec<_>>()
    };
    assert!(old_events.len() > 10);
    assert_eq!(shape(&old_events), shape(&new_events));
    let last_seq = old_events.last().unwrap().id.unwrap();

    // Old tokens: the member's works, the revoked one does not.
    let settings = format!("/api/settings?tenant={t}");
    let r = common::request(
        http,
        &server.base,
        &story.member_token,
        "GET",
        &settings,
        None,
    )
    .await;
    assert_eq!(r.status, 200);
    let r = common::request(
        http,
        &server.base,
        &story.revoked_token,
        "GET",
        &settings,
        None,
    )
    .await;
    assert_eq!(r.status, 401);

    // New writes continue after the copied ids and seqs.
    let a = &story.cards[0];
    let path = format!("/api/cards/{a}/comments");
    let r = common::request(
        http,
        &server.base,
        token,
        "POST",
        &path,
        Some(json!({"content": "after the move"})),
    )
    .await;
    assert_eq!(r.status, 201, "{r:?}");
    let cols = common::request(
        http,
        &server.base,
        token,
        "GET",
        &format!("/api/columns?tenant={t}"),
        None,
    )
    .await;
    let r = common::request(
        http,
        &server.base,
        token,
        "PATCH",
        &format!("/api/cards/{a}"),
        Some(json!({"columnId": cols.body[0]["id"]})),
    )
    .await;
    assert_eq!(r.status, 200, "{r:?}");
    let history = common::request(
        http,
        &server.base,
        token,
        "GET",
        &format!("/api/cards/{a}/history"),
        None,
    )
    .await;
    let history = history.body.as_array().unwrap();
    assert_eq!(history.len(), 5);
    assert_eq!(
        (
            history[4]["fromName"].as_str(),
            history[4]["toName"].as_str()
        ),
        (Some("Doing"), Some("To do"))
    );
    let comments = common::request(http, &server.base, token, "GET", &path, None).await;
    assert_eq!(comments.body.as_array().unwrap().len(), 3);
    let fresh = events(http, &server.base, token, t, last_seq).await;
    let seqs: Vec<i64> = fresh.iter().map(|f| f.id.unwrap()).collect();
    assert_eq!(seqs, [last_seq + 1, last_seq + 2], "{fresh:?}");

    // The webhook came with its position and its secret: turned on towards
    // a receiver, it delivers every event after its position, signed with
    // the secret the source was given.
    let hooks = &after[&format!("/api/webhooks?tenant={t}")];
    let position = hooks[0]["lastDeliveredSeq"].as_i64().unwrap();
    assert!(position > 0 && position < last_seq, "{hooks}");
    let receiver = testkit::receiver::Receiver::start().await;
    let r = common::request(
        http,
        &server.base,
        token,
        "PATCH",
        &format!("/api/webhooks/{}", story.webhook),
        Some(json!({"url": receiver.url, "active": true})),
    )
    .await;
    assert_eq!(
        (r.status, r.body["skipped"].clone()),
        (200, json!(0)),
        "{r:?}"
    );
    // A notification is its account's, never a webhook's (api.md §26).
    let want: Vec<i64> = new_events
        .iter()
        .chain(&fresh)
        .filter(|f| f.event != "notification.created")
        .filter_map(|f| f.id)
        .filter(|s| *s > position)
        .collect();
    let got = receiver
        .wait_for(Duration::from_secs(20), |s| s.len() >= want.len())
        .await;
    assert_eq!(got, want);
    for hit in receiver.hits() {
        let ts: i64 = hit.timestamp.parse().unwrap();
        let signed = board_core::webhook_signature(WEBHOOK_SECRET, ts, &hit.body);
        assert_eq!(hit.signature, signed, "the copied secret signs");
    }
    server.stop().await;
}

macro_rules! story {
    ($($name:ident: $from:ident -> $to:ident via $via:ident;)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        async fn $name() {
            moves_everything(Backend::$from, Backend::$to, Via::$via).await
        }
    )*};
    (postgres $($name:ident: $from:ident -> $to:ident via $via:ident;)*) => {$(
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        #[cfg_attr(not(board_test_postgres), ignore = "BOARD_TEST_POSTGRES_URL is not set")]
        async fn $name() {
            moves_everything(Backend::$from, Backend::$to, Via::$via).await
        }
    )*};
}

story! {
    copy_sqlite_to_sqlite: Sqlite -> Sqlite via Copy;
    export_import_sqlite_to_sqlite: Sqlite -> Sqlite via ExportImport;
}

story! {
    postgres
    copy_sqlite_to_postgres: Sqlite -> Postgres via Copy;
    copy_postgres_to_sqlite: Postgres -> Sqlite via Copy;
    copy_postgres_to_postgres: Postgres -> Postgres via Copy;
    export_import_sqlite_to_postgres: Sqlite -> Postgres via ExportImport;
    export_import_postgres_to_sqlite: Postgres -> Sqlite via ExportImport;
}

/// `--files-to s3://…`: the files go into the bucket, and a server on the
/// target serves their bytes from it.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(all(board_test_postgres, board_test_s3)),
    ignore = "BOARD_TEST_POSTGRES_URL and BOARD_TEST_S3_URL are needed"
)]
async fn copy_sqlite_to_postgres_with_the_files_into_a_bucket() {
    let to = Target {
        db: Backend::Postgres,
        files: Files::S3,
    };
    moves_everything(Backend::Sqlite, to, Via::Copy).await
}

/// A source with a little of everything, for the refusals.
async fn small_source() -> App {
    let app = common::spawn_app(Backend::Sqlite).await;
    let card = id(&app.card("Alpha").await);
    upload(
        &app,
        &format!("/api/cards/{card}/attachments"),
        "n.txt",
        b"notes\n".to_vec(),
    )
    .await;
    app
}

/// The workspaces of `db` through board-core (none: the target holds nothing).
async fn workspaces(db: &TestDb) -> usize {
    let board = db.open().await;
    let n = board.admin().list_workspaces().await.expect("list").len();
    board.close().await;
    n
}

testkit::on_both_backends! {
    async fn copy_refuses_a_target_that_holds_data(backend) {
        let source = small_source().await;
        // A server's first run made a workspace: that is data.
        let busy = common::spawn_app(backend).await;
        let out = cli(&source.db, &["copy", "--to", &busy.db.url]).await;
        assert!(!out.success);
        assert!(out.stderr.contains("already holds data (table workspaces)"), "{}", out.stderr);
        let board = busy.board().await;
        assert_eq!(board.admin().list_workspaces().await.unwrap().len(), 1, "nothing was copied");
        board.close().await;

        // `board init` alone makes no data: the copy goes in.
        let fresh = TestDb::new(backend).await;
        cli(&fresh, &["init"]).await.ok();
        let report = cli(&source.db, &["--json", "copy", "--to", &fresh.url]).await.ok();
        assert_eq!(report["tables"]["cards"], 1);
        assert_eq!(report["files"], 0, "no --files-to: the files stay where they are");
        // A second copy into it is refused.
        let again = cli(&source.db, &["copy", "--to", &fresh.url]).await;
        assert!(!again.success && again.stderr.contains("already holds data"), "{}", again.stderr);
    }

    async fn an_interrupted_copy_leaves_the_target_empty(backend) {
        let source = small_source().await;
        let target = TestDb::new(backend).await;
        let files_to = target.files_dir().display().to_string();
        let mut child = tokio::process::Command::new(BOARD)
            .args(["copy", "--to", &target.url, "--files-to", &files_to])
            .env("BOARD_DATABASE_URL", &source.db.url)
            .env("BOARD_FILES_DIR", source.db.files_dir())
            .env("BOARD_COPY_PAUSE_BEFORE_COMMIT", "60")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .expect("spawn board");
        let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
        let paused = tokio::time::timeout(Duration::from_secs(60), async {
            while let Some(line) = lines.next_line().await.unwrap() {
                if line.contains("before commit") {
                    return true;
                }
            }
            false
        })
        .await
        .expect("the copy pauses before its commit");
        assert!(paused, "the copy ended without pausing");
        // Every row is written, not committed: kill the process.
        child.kill().await.expect("kill");
        assert_eq!(workspaces(&target).await, 0, "the killed copy left rows");
        let published: Vec<_> = std::fs::read_dir(target.files_dir())
            .map(|d| d.flatten().filter(|e| !e.file_name().to_string_lossy().starts_with('.')).collect())
            .unwrap_or_default();
        assert!(published.is_empty(), "no file is published without its row");

        // Run again: it goes through.
        let report = cli(&source.db, &["--json", "copy", "--to", &target.url, "--files-to", &files_to]).await.ok();
        assert_eq!((report["tables"]["cards"].as_u64(), report["files"].as_u64()), (Some(1), Some(1)));
        assert_eq!(workspaces(&target).await, 1);
    }

    async fn import_refuses_a_corrupt_export_and_writes_nothing(backend) {
        let source = small_source().await;
        let export = source.db.dir.path().join("export");
        cli(&source.db, &["export", "--out", export.to_str().unwrap()]).await.ok();
        let refused = cli(&source.db, &["export", "--out", export.to_str().unwrap()]).await;
        assert!(!refused.success && refused.stderr.contains("not empty"), "{}", refused.stderr);

        type Damage = fn(&std::path::Path);
        let cases: Vec<(&str, Damage, &str)> = vec![
            ("a truncated table", |d| {
                let f = d.join("cards.jsonl");
                let text = std::fs::read(&f).unwrap();
                std::fs::write(&f, &text[..text.len() - 5]).unwrap();
            }, "cut"),
            ("a changed row", |d| {
                let f = d.join("workspaces.jsonl");
                let text = std::fs::read_to_string(&f).unwrap().replace("Default", "Defaulx");
                std::fs::write(&f, text).unwrap();
            }, "checksum"),
            ("a changed file", |d| {
                let dir = d.join("files");
                let f = std::fs::read_dir(&dir).unwrap().next().unwrap().unwrap().path();
                std::fs::write(&f, b"other\n").unwrap();
            }, "checksum"),
            ("no manifest", |d| std::fs::remove_file(d.join("manifest.json")).unwrap(), "manifest.json"),
            ("a future format", |d| {
                let f = d.join("manifest.json");
                let text = std::fs::read_to_string(&f).unwrap().replace("\"formatVersion\": 7", "\"formatVersion\": 8");
                std::fs::write(&f, text).unwrap();
            }, "version 8"),
        ];
        for (what, damage, says) in cases {
            let copy = source.db.dir.path().join(format!("damaged-{}", cuid2::create_id()));
            copy_dir(&export, &copy);
            damage(&copy);
            let target = TestDb::new(backend).await;
            let out = cli(&target, &["import", copy.to_str().unwrap()]).await;
            assert!(!out.success, "{what}: imported");
            assert!(out.stderr.contains(says), "{what}: {}", out.stderr);
            assert_eq!(workspaces(&target).await, 0, "{what}: rows were written");
            let files = std::fs::read_dir(target.files_dir()).map(|d| d.count()).unwrap_or(0);
            assert_eq!(files, 0, "{what}: files were written");
        }
        // The intact export goes in, once.
        let target = TestDb::new(backend).await;
        cli(&target, &["import", export.to_str().unwrap()]).await.ok();
        let again = cli(&target, &["import", export.to_str().unwrap()]).await;
        assert!(!again.success && again.stderr.contains("already holds data"), "{}", again.stderr);
    }
}

testkit::on_both_backends! {
    // Contracts §24 and §23: an export carries a card's description, labels
    // and assignees, and passwords; one of format 3 (before them) imports
    // with none.
    async fn an_export_carries_cards_in_full_and_format_3_imports_without(backend) {
        let source = small_source().await;
        let t = source.tenant.clone();
        let label = ok(&source, "POST", "/api/labels", json!({"tenantId": t, "name": "Bug"})).await;
        let body = json!({"tenantId": t, "title": "Full", "description": "*so*", "dueAt": "2027-01-01",
                          "labelIds": [id(&label)]});
        let card = ok(&source, "POST", "/api/cards", body).await;
        let card_id = board_core::CardId::parse(&id(&card)).unwrap();
        // Format 5 carries passwords (api.md §23).
        let admin = source.operator().admin().find_account("admin").await.unwrap();
        source.operator().admin().set_password(&admin.id, PASSWORD).await.unwrap();
        let export = source.db.dir.path().join("export");
        cli(&source.db, &["export", "--out", export.to_str().unwrap()]).await.ok();
        let target = TestDb::new(backend).await;
        cli(&target, &["import", export.to_str().unwrap()]).await.ok();
        let board = target.open().await;
        let op = &board_core::Actor::Operator;
        let got = board.card(op, &card_id).await.unwrap();
        assert_eq!(serde_json::to_value(&got).unwrap(), card, "format 5 carries the whole card");
        board.sign_in(sign_in(), "test", HOUR).await.expect("format 5 carries the password");
        board.close().await;

        // A format 5 export made before name keys: the import computes them.
        to_format(&export, 5);
        let target = TestDb::new(backend).await;
        cli(&target, &["import", export.to_str().unwrap()]).await.ok();
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&target.url).await.unwrap();
        let keys: Vec<Option<String>> = sqlx::query_scalar("SELECT name_key FROM accounts")
            .fetch_all(&pool)
            .await
            .unwrap();
        pool.close().await;
        assert!(!keys.is_empty() && keys.iter().all(Option::is_some), "{keys:?}");
        let board = target.open().await;
        let by_key = board_core::SignIn { name: "ADMIN".into(), password: PASSWORD.into() };
        board.sign_in(by_key, "test", HOUR).await.expect("the key filled at the import");
        board.close().await;

        to_format(&export, 3);
        let target = TestDb::new(backend).await;
        let report = cli(&target, &["--json", "import", export.to_str().unwrap()]).await.ok();
        assert_eq!(report["tables"]["labels"], 0, "{report}");
        let board = target.open().await;
        let got = board.card(op, &card_id).await.unwrap();
        assert_eq!((got.description.as_str(), &got.due_at), ("", &None));
        assert!(got.label_ids.is_empty());
        let refused = board.sign_in(sign_in(), "test", HOUR).await.unwrap_err();
        assert_eq!(refused.code(), "BAD_CREDENTIALS", "format 3 predates passwords");
        board.close().await;
    }

    async fn an_export_of_format_2_imports_without_webhooks(backend) {
        let source = small_source().await;
        let body = json!({"tenantId": source.tenant, "url": "http://93.184.216.34/hook"});
        ok(&source, "POST", "/api/webhooks", body).await;
        let export = source.db.dir.path().join("export");
        let exported = cli(&source.db, &["--json", "export", "--out", export.to_str().unwrap()]).await.ok();
        assert_eq!(exported["tables"]["webhooks"], 1, "{exported}");
        to_format(&export, 2);
        let target = TestDb::new(backend).await;
        let report = cli(&target, &["--json", "import", export.to_str().unwrap()]).await.ok();
        assert_eq!(report["tables"]["cards"], 1, "{report}");
        assert_eq!(report["tables"]["webhooks"], 0, "{report}");
        assert_eq!(workspaces(&target).await, 1);
    }

    // Migration 0017 (the search index without its foreign key) changed no
    // column: an export made before it imports; one at another migration
    // that did change the schema is refused, as before.
    async fn an_export_made_before_a_neutral_migration_imports(backend) {
        let source = small_source().await;
        let export = source.db.dir.path().join("export");
        cli(&source.db, &["export", "--out", export.to_str().unwrap()]).await.ok();
        let path = export.join("manifest.json");
        let manifest: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        let without = |gone: &[i64]| {
            let mut m = manifest.clone();
            m["migrations"].as_array_mut().unwrap().retain(|v| !gone.contains(&v.as_i64().unwrap()));
            m["migrationVersion"] = m["migrations"].as_array().unwrap().last().unwrap().clone();
            std::fs::write(&path, serde_json::to_vec_pretty(&m).unwrap()).unwrap();
        };
        without(&[16, 17]);
        let target = TestDb::new(backend).await;
        let refused = cli(&target, &["import", export.to_str().unwrap()]).await;
        assert!(!refused.success && refused.stderr.contains("migration version"), "{}", refused.stderr);
        without(&[17]);
        let report = cli(&target, &["--json", "import", export.to_str().unwrap()]).await.ok();
        assert_eq!(report["tables"]["cards"], 1, "{report}");
        assert_eq!(workspaces(&target).await, 1);
    }

    async fn an_export_of_format_1_imports_with_null_actors(backend) {
        let source = small_source().await;
        let card = id(&source.card("Beta").await);
        let export = source.db.dir.path().join("export");
        cli(&source.db, &["export", "--out", export.to_str().unwrap()]).await.ok();
        let made = source.operator().card_history(&board_core::Actor::Operator,
            &board_core::CardId::parse(&card).unwrap()).await.unwrap();
        assert!(made[0].actor_id.is_some(), "format 2 keeps the actor");
        to_format(&export, 1);
        let target = TestDb::new(backend).await;
        let report = cli(&target, &["--json", "import", export.to_str().unwrap()]).await.ok();
        assert_eq!(report["tables"]["cards"], 2, "{report}");
        let board = target.open().await;
        let card = board_core::CardId::parse(&card).unwrap();
        let got = board.card(&board_core::Actor::Operator, &card).await.unwrap();
        assert_eq!(got.created_by, None);
        let history = board.card_history(&board_core::Actor::Operator, &card).await.unwrap();
        assert_eq!(history.len(), 1);
        assert_eq!(history[0].actor_id, None, "rows that predate §17 have null");
        board.close().await;
    }
}

testkit::on_both_backends! {
    async fn an_export_keeps_archived_cards_and_format_2_imports_without(backend) {
        let source = small_source().await;
        let card = board_core::CardId::parse(&id(&source.card("Parked").await)).unwrap();
        let op = &board_core::Actor::Operator;
        let archived = source.operator().archive_card(op, &card).await.unwrap();
        let export = source.db.dir.path().join("export");
        cli(&source.db, &["export", "--out", export.to_str().unwrap()]).await.ok();
        let target = TestDb::new(backend).await;
        cli(&target, &["import", export.to_str().unwrap()]).await.ok();
        let board = target.open().await;
        let got = board.card(op, &card).await.unwrap();
        assert_eq!(got.archived_at, archived.archived_at, "format 3 keeps archivedAt");
        assert!(got.archived_at.is_some());
        let query = board_core::SearchQuery::new(board_core::SetQuery::workspace(got.workspace_id.clone()), "parked")
            .archived(true);
        let found = board.search(op, &query).await.unwrap();
        assert_eq!(found.results.len(), 1, "format 3 carries the search index: {found:?}");
        board.close().await;

        to_format(&export, 2);
        let target = TestDb::new(backend).await;
        let report = cli(&target, &["--json", "import", export.to_str().unwrap()]).await.ok();
        assert_eq!(report["tables"]["card_archives"], 0, "{report}");
        let board = target.open().await;
        let got = board.card(op, &card).await.unwrap();
        assert_eq!(got.archived_at, None, "format 2 predates archiving");
        // Its search index is rebuilt by the import.
        let query = board_core::SearchQuery::new(board_core::SetQuery::workspace(got.workspace_id.clone()), "parke");
        let found = board.search(op, &query).await.unwrap();
        assert_eq!(found.results.len(), 1, "{found:?}");
        assert_eq!(found.results[0].card.id, card);
        board.close().await;
    }
}

const PASSWORD: &str = "correct horse battery staple";
const HOUR: std::time::Duration = std::time::Duration::from_secs(3600);

/// The sign-in of `admin` with [`PASSWORD`].
fn sign_in() -> board_core::SignIn {
    board_core::SignIn {
        name: "admin".into(),
        password: PASSWORD.into(),
    }
}

/// Rewrites a format 7 export as format `version` (7 to 1) wrote it:
/// without the migrations, tables and columns added since, with new
/// checksums. Format 6 and older lack 0024 (e-mail) and 0025 (single sign-on); format 5
/// and older 0022 (notifications). Every one lacks 0021 (name keys, pending attempts: a format 5
/// export made before it too); format 4 lacks 0019 (people); format 3 also 0018 (cards in
/// full); format 2 also 0012 archive and search, 0013 webhooks, 0014
/// versions, 0015 comment seqs, 0016 column versions and 0017 the search
/// index unchecked; format 1 also 0011.
fn to_format(dir: &std::path::Path, version: u32) {
    use sha2::{Digest, Sha256};
    let mut added = vec![("accounts", "name_key"), ("auth_failures", "pending")];
    let mut migrations = vec![21];
    let mut added_tables = vec![];
    if version <= 6 {
        added.extend([
            ("accounts", "email"),
            ("accounts", "email_key"),
            ("accounts", "email_verified_at"),
            ("notifications", "mail_batch_id"),
        ]);
        migrations.push(24);
        added_tables.extend(["email_verifications", "mail_preferences", "mail_batches"]);
        added.push(("tokens", "id_token"));
        migrations.push(25);
        added_tables.extend(["identities", "sso_states"]);
    }
    if version <= 5 {
        added.push(("events", "account_id"));
        migrations.extend([22, 23]);
        added_tables.extend([
            "card_watches",
            "notifications",
            "due_reminders",
            "trello_ids",
        ]);
    }
    if version <= 4 {
        added.extend([
            ("accounts", "password_hash"),
            ("tokens", "kind"),
            ("tokens", "label"),
            ("tokens", "last_used_at"),
        ]);
        migrations.push(19);
        added_tables.extend(["auth_failures", "invitations", "password_resets"]);
    }
    if version <= 3 {
        added.extend([("cards", "description"), ("cards", "due_at")]);
        migrations.push(18);
        added_tables.extend(["labels", "card_labels", "card_assignees", "checklist_items"]);
    }
    if version <= 2 {
        added.extend([
            ("cards", "archived_at"),
            ("workspaces", "version"),
            ("settings", "version"),
            ("column_sets", "version"),
            ("cards", "version"),
        ]);
        migrations.extend([12, 13, 14, 15, 16, 17]);
        added_tables.extend([
            "card_archives",
            "search_terms",
            "search_state",
            "webhooks",
            "webhook_deliveries",
            "column_versions",
        ]);
    }
    if version == 1 {
        added.extend([
            ("history", "actor_id"),
            ("cards", "created_by"),
            ("relations", "created_by"),
            ("attachments", "uploaded_by"),
        ]);
        migrations.push(11);
    }
    let path = dir.join("manifest.json");
    let mut manifest: Value = serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
    // Rewritten from this build's version, or again from an older one.
    assert!(manifest["formatVersion"].as_u64().unwrap() >= u64::from(version));
    manifest["formatVersion"] = json!(version);
    manifest["migrationVersion"] = json!([0, 10, 11, 17, 18, 19, 20, 23][version as usize]);
    manifest["migrations"]
        .as_array_mut()
        .unwrap()
        .retain(|v| !migrations.contains(&v.as_i64().unwrap()));
    let tables = manifest["tables"].as_array_mut().unwrap();
    let added_table = |t: &Value| added_tables.iter().any(|n| t["name"] == *n);
    for table in tables.iter().filter(|t| added_table(t)) {
        std::fs::remove_file(dir.join(table["file"].as_str().unwrap())).unwrap();
    }
    tables.retain(|t| !added_table(t));
    for table in tables {
        let name = table["name"].as_str().unwrap().to_string();
        let columns: Vec<&str> = added
            .iter()
            .filter(|(t, _)| *t == name)
            .map(|(_, c)| *c)
            .collect();
        if columns.is_empty() {
            continue;
        }
        table["columns"]
            .as_array_mut()
            .unwrap()
            .retain(|c| !columns.iter().any(|col| c == col));
        let file = dir.join(table["file"].as_str().unwrap());
        let mut text = String::new();
        for line in std::fs::read_to_string(&file).unwrap().lines() {
            let mut row: Value = serde_json::from_str(line).unwrap();
            for column in &columns {
                let gone = row.as_object_mut().unwrap().remove(*column).is_some();
                // 0021's, 0022's and 0024's columns may be gone already (rewritten twice).
                assert!(
                    gone || [
                        "name_key",
                        "pending",
                        "account_id",
                        "email",
                        "email_key",
                        "email_verified_at",
                        "mail_batch_id",
                        "id_token"
                    ]
                    .contains(column),
                    "{name}.{column}"
                );
            }
            text.push_str(&format!("{row}\n"));
        }
        std::fs::write(&file, &text).unwrap();
        let sha: String = Sha256::digest(text.as_bytes())
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        table["sha256"] = json!(sha);
    }
    std::fs::write(&path, serde_json::to_vec_pretty(&manifest).unwrap()).unwrap();
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            copy_dir(&path, &to.join(entry.file_name()));
        } else {
            std::fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}
