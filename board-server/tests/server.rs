//! The server process: graceful shutdown on SIGTERM, the first run printing
//! its token, a busy listen address, the request log, several servers on one
//! database; and the metrics (in-process).

use std::time::Duration;

use serde_json::json;
use testkit::process::{first_run, start_server};
use testkit::sse::EventStream;
use testkit::{self as common, on_both_backends, Backend, TestDb};

/// The `board-server` binary cargo built for these tests.
const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

on_both_backends! {
    async fn sigterm_stops_the_server_with_exit_0(backend) {
        let db = TestDb::new(backend).await;
        let mut server = start_server(SERVER, &db, &[]).await;
        let pid = server.child.id().expect("pid").to_string();
        let status = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(status.success());
        let exit = tokio::time::timeout(Duration::from_secs(30), server.child.wait())
            .await
            .expect("server stops after SIGTERM")
            .unwrap();
        assert!(exit.success(), "{exit:?}");
    }

    async fn a_listen_address_in_use_is_named_with_the_way_out(backend) {
        let app = common::spawn_app(backend).await;
        let (base, db) = (&app.base, &app.db);
        let addr = base.strip_prefix("http://").expect("http base").to_string();
        let second = tokio::process::Command::new(SERVER)
            .env("BOARD_DATABASE_URL", &db.url)
            .env("BOARD_FILES_DIR", db.files_dir())
            .env("BOARD_LISTEN", &addr)
            .env("BOARD_LOG", "warn")
            .stdin(std::process::Stdio::null())
            .kill_on_drop(true)
            .output();
        let out = tokio::time::timeout(Duration::from_secs(60), second)
            .await
            .expect("the second server gives up")
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{:?}: {stderr}", out.status);
        assert!(
            stderr.contains(&format!("cannot listen on {addr}: ")),
            "names the address: {stderr}"
        );
        assert!(
            stderr.contains("choose another address with --listen or BOARD_LISTEN"),
            "says how to choose another: {stderr}"
        );
        // The first server is unharmed.
        let res = reqwest::get(format!("{base}/healthz")).await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
    }

    async fn request_log_latency_has_at_most_3_decimals(backend) {
        let db = TestDb::new(backend).await;
        let server = start_server(SERVER, &db, &[("BOARD_LOG", "info")]).await;
        for _ in 0..5 {
            let res = reqwest::get(format!("{}/healthz", server.base)).await.unwrap();
            assert_eq!(res.status().as_u16(), 200);
        }
        let log = std::fs::read_to_string(testkit::process::log_path(&db)).unwrap();
        let latencies: Vec<&str> = log
            .lines()
            .filter_map(|l| l.split(" latency_ms=").nth(1))
            .map(|rest| rest.split(' ').next().unwrap())
            .collect();
        assert!(latencies.len() >= 5, "{log}");
        for l in latencies {
            let ms: f64 = l.parse().unwrap_or_else(|_| panic!("{l} is a number"));
            assert!(ms >= 0.0, "{l}");
            let decimals = l.split_once('.').map_or(0, |(_, d)| d.len());
            assert!(decimals <= 3, "latency_ms={l} has more than 3 decimals");
        }
    }
}

/// Several `board-server` processes started together on one empty PostgreSQL
/// database: exactly one bootstraps.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn racing_first_starts_bootstrap_once_on_postgres() {
    let db = TestDb::new(Backend::Postgres).await;
    let (a, b, c, d) = tokio::join!(
        start_server(SERVER, &db, &[]),
        start_server(SERVER, &db, &[]),
        start_server(SERVER, &db, &[]),
        start_server(SERVER, &db, &[])
    );
    let servers = [a, b, c, d];
    let tokens = servers
        .iter()
        .filter(|s| first_run(&s.lines).is_some())
        .count();
    assert_eq!(tokens, 1, "exactly one server bootstraps");
    let board = db.open().await;
    assert_eq!(board.admin().list_workspaces().await.unwrap().len(), 1);
    board.close().await;
}

/// Two servers on one PostgreSQL database, one of them another process:
/// racing requests split between them keep one done column per set and lose
/// no card.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn two_servers_on_one_postgres_keep_the_column_invariants() {
    let app = std::sync::Arc::new(common::spawn_app(Backend::Postgres).await);
    let second = start_server(SERVER, &app.db, &[]).await;
    let bases = [app.base.clone(), second.base.clone()];
    let mut columns = Vec::new();
    for i in 0..10 {
        let r = app
            .call(
                "POST",
                "/api/columns",
                Some(json!({"tenantId": app.tenant, "name": format!("S{i}")})),
            )
            .await;
        assert_eq!(r.status, 201);
        columns.push(r.body["id"].as_str().unwrap().to_string());
    }
    for (i, col) in columns.iter().take(4).enumerate() {
        for n in 0..5 {
            let body =
                json!({"tenantId": app.tenant, "title": format!("{i}-{n}"), "columnId": col});
            assert_eq!(app.call("POST", "/api/cards", Some(body)).await.status, 201);
        }
    }
    // Done marks on S4..S9 and crosswise deletions S0<->S1, S2<->S3, all at once,
    // alternating between the two servers.
    let mut requests = Vec::new();
    for col in &columns[4..] {
        requests.push((
            "PATCH",
            format!("/api/columns/{col}"),
            json!({"done": true}),
        ));
    }
    for (a, b) in [(0, 1), (2, 3)] {
        for (x, y) in [(a, b), (b, a)] {
            requests.push((
                "DELETE",
                format!("/api/columns/{}", columns[x]),
                json!({"cards": "MOVE", "targetColumnId": columns[y]}),
            ));
        }
    }
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(requests.len()));
    let mut tasks = Vec::new();
    for (i, (method, path, body)) in requests.into_iter().enumerate() {
        let (app, barrier, base) = (app.clone(), barrier.clone(), bases[i % 2].clone());
        tasks.push(tokio::spawn(async move {
            let token = app.token.clone();
            assert_eq!(
                app.call_at(&base, &token, "GET", "/healthz", None)
                    .await
                    .status,
                200
            );
            barrier.wait().await;
            app.call_at(&base, &token, method, &path, Some(body)).await
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        let r = t.await.unwrap();
        assert!([200, 404, 422].contains(&r.status), "{r:?}");
        statuses.push(r.status);
    }
    assert_eq!(
        statuses.iter().take(6).filter(|s| **s == 200).count(),
        6,
        "{statuses:?}"
    );
    let r = app
        .call("GET", &format!("/api/board?tenant={}", app.tenant), None)
        .await;
    let cols = r.body["columns"].as_array().unwrap();
    assert_eq!(cols.iter().filter(|c| c["done"] == true).count(), 1);
    assert_eq!(
        cols.len(),
        13 - 2,
        "one deletion of each crosswise pair wins"
    );
    let cards: usize = cols
        .iter()
        .map(|c| c["cards"].as_array().unwrap().len())
        .sum();
    assert_eq!(cards, 20, "no card lost");
}

/// api.md §16 across processes: 48 placements in one column, sent
/// alternately to two `board-server` processes on one PostgreSQL database, at
/// once (see `testkit::order::race_placements` for what is checked). Without
/// the column set's row lock the placements read stale neighbours: duplicate
/// positions (409 `CONFLICT` from `cards_position`) or cards not beside their
/// anchors.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn racing_placements_on_two_server_processes_stay_beside_their_anchors() {
    let app = std::sync::Arc::new(common::spawn_app(Backend::Postgres).await);
    let one = start_server(SERVER, &app.db, &[]).await;
    let two = start_server(SERVER, &app.db, &[]).await;
    let todo = app.columns().await[0]["id"].as_str().unwrap().to_string();
    let bases = [one.base.clone(), two.base.clone()];
    testkit::order::race_placements(app.clone(), &bases, &todo, 48).await;
}

/// api.md §20: 48 moves raced into one column with a hard WIP limit of 5,
/// over two server processes on one PostgreSQL database; exactly 5 land, every
/// other one is `WIP_LIMIT`. Without the column set's lock (a move opened with
/// `write_unlocked`) the column ends over its limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn racing_moves_on_two_server_processes_never_exceed_a_hard_wip_limit() {
    let app = std::sync::Arc::new(common::spawn_app(Backend::Postgres).await);
    let one = start_server(SERVER, &app.db, &[]).await;
    let two = start_server(SERVER, &app.db, &[]).await;
    let columns = app.columns().await;
    let id = |i: usize| columns[i]["id"].as_str().unwrap().to_string();
    app.settings(json!({"tenantId": app.tenant, "wipLimits": "HARD"}))
        .await;
    let limit = json!({ "wipLimit": 5 });
    let r = app
        .call("PATCH", &format!("/api/columns/{}", id(1)), Some(limit))
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let bases = [one.base.clone(), two.base.clone()];
    testkit::wip::race_moves(app.clone(), &bases, &id(0), &id(1), 48, 5).await;
}

/// Comments (with images), attachments and checklist items written and
/// deleted at once through two server processes keep every card's counts
/// equal to a recount (testkit `counts`).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn racing_count_changes_on_two_server_processes_keep_every_count() {
    let app = std::sync::Arc::new(common::spawn_app(Backend::Postgres).await);
    let one = start_server(SERVER, &app.db, &[]).await;
    let two = start_server(SERVER, &app.db, &[]).await;
    let bases = [one.base.clone(), two.base.clone()];
    testkit::counts::race_count_changes(app.clone(), &bases).await;
}

on_both_backends! {
    async fn first_run_bootstraps_once(backend) {
        let db = TestDb::new(backend).await;
        let mut first = start_server(SERVER, &db, &[]).await;
        let (token, tenant) = first_run(&first.lines).expect("first run prints a token");
        first.child.kill().await.ok();
        first.child.wait().await.ok();

        let mut second = start_server(SERVER, &db, &[]).await;
        let (base, lines) = (&second.base, &second.lines);
        assert!(first_run(lines).is_none(), "second start printed a token: {lines:?}");
        let res = reqwest::Client::new()
            .get(format!("{base}/api/columns?tenant={tenant}"))
            .bearer_auth(&token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200);
        let cols: serde_json::Value = res.json().await.unwrap();
        let names: Vec<_> = cols.as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
        assert_eq!(names, vec![json!("To do"), json!("Doing"), json!("Done")]);
        let done: Vec<_> = cols.as_array().unwrap().iter().map(|c| c["done"].clone()).collect();
        assert_eq!(done, vec![json!(false), json!(false), json!(true)]);
        let accents: Vec<_> = cols.as_array().unwrap().iter().map(|c| c["accent"].clone()).collect();
        assert_eq!(accents, vec![json!("slate"), json!("blue"), json!("green")]);
        second.child.kill().await.ok();

        let board = db.open().await;
        let ws = board.admin().list_workspaces().await.unwrap();
        assert_eq!(ws.len(), 1, "one Default workspace: {ws:?}");
        board.close().await;
    }

    async fn no_bootstrap_when_an_account_exists(backend) {
        let db = TestDb::new(backend).await;
        // What `board init` and `board account create early` do.
        let board = db.open().await;
        board.admin().create_account(&board_core::Name::parse("early").unwrap()).await.unwrap();
        let mut server = start_server(SERVER, &db, &[]).await;
        assert!(first_run(&server.lines).is_none(), "{:?}", server.lines);
        server.child.kill().await.ok();
        assert!(board.admin().list_workspaces().await.unwrap().is_empty());
        board.close().await;
    }

    async fn metrics_count_requests_per_route_and_request_ids_are_echoed(backend) {
        let app = common::spawn_app(backend).await;
        let cols = format!("/api/columns?tenant={}", app.tenant);
        for _ in 0..3 {
            assert_eq!(app.call("GET", &cols, None).await.status, 200);
        }
        assert_eq!(app.call_as("", "GET", &cols, None).await.status, 401);
        let card = app.card("m").await;
        let id = card["id"].as_str().unwrap();
        for _ in 0..2 {
            app.call("GET", &format!("/api/cards/{id}/history"), None).await;
        }
        let res = reqwest::Client::new()
            .get(format!("{}/metrics", app.base))
            .header("x-request-id", "trace-me-42")
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 200);
        assert_eq!(res.headers()["x-request-id"], "trace-me-42");
        let text = res.text().await.unwrap();
        for line in [
            "board_http_requests_total{method=\"GET\",route=\"/api/columns\",status=\"200\"} 3",
            "board_http_requests_total{method=\"GET\",route=\"/api/columns\",status=\"401\"} 1",
            "board_http_requests_total{method=\"POST\",route=\"/api/cards\",status=\"201\"} 1",
            "board_http_requests_total{method=\"GET\",route=\"/api/cards/{id}/history\",status=\"200\"} 2",
            "board_http_request_duration_seconds_count{method=\"GET\",route=\"/api/columns\"} 4",
        ] {
            assert!(text.contains(line), "missing {line} in\n{text}");
        }
        assert!(text.contains("board_db_pool_connections "), "{text}");
        // Without a request id, the server makes one.
        let res = reqwest::Client::new().get(format!("{}/healthz", app.base)).send().await.unwrap();
        let generated = res.headers()["x-request-id"].to_str().unwrap().to_string();
        assert_eq!(generated.len(), 24, "{generated}");
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["version"], env!("CARGO_PKG_VERSION"));
    }
}

on_both_backends! {
    // docs/deploy.md, *Upgrades*: what an operator reads before and after an
    // upgrade, without running anything that migrates.
    async fn healthz_answers_the_version_and_the_schema_it_runs(backend) {
        let app = common::spawn_app(backend).await;
        let res = reqwest::get(format!("{}/healthz", app.base)).await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        let body: serde_json::Value = res.json().await.unwrap();
        let last = last_migration(backend);
        assert_eq!(
            body,
            json!({"status": "ok", "version": env!("CARGO_PKG_VERSION"), "schema": last})
        );
        // The schema the database holds: the server migrated it at start.
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        let applied: i64 = sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations")
            .fetch_one(&pool)
            .await
            .unwrap();
        pool.close().await;
        assert_eq!(applied, last);
    }
}

/// The highest `NNNN` of `migrations/<backend>/NNNN_….sql`, read from the folder.
fn last_migration(backend: Backend) -> i64 {
    let dir = match backend {
        Backend::Sqlite => "sqlite",
        Backend::Postgres => "postgres",
    };
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../migrations")
        .join(dir);
    std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| {
            let name = e.unwrap().file_name().into_string().unwrap();
            name.strip_suffix(".sql")?.split('_').next()?.parse().ok()
        })
        .max()
        .unwrap_or_else(|| panic!("no migration in {}", dir.display()))
}

/// `board-server --version` names the program and its version, one line.
#[test]
fn version_names_the_program_and_its_version() {
    let out = std::process::Command::new(SERVER)
        .arg("--version")
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        format!("board-server {}\n", env!("CARGO_PKG_VERSION"))
    );
}

/// api.md §11: a change through one server process reaches an event stream
/// of another server process on the same PostgreSQL database within 1 s
/// (`NOTIFY`), and the other way round.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_change_on_one_server_process_reaches_a_stream_on_another_within_a_second() {
    let app = common::spawn_app(Backend::Postgres).await;
    let second = start_server(SERVER, &app.db, &[]).await;
    let path = format!("/api/events?tenant={}", app.tenant);
    for (through, listening) in [(&app.base, &second.base), (&second.base, &app.base)] {
        let mut stream = EventStream::open(&app.http, listening, &app.token, &path, None).await;
        let started = std::time::Instant::now();
        let r = common::request(
            &app.http,
            through,
            &app.token,
            "POST",
            "/api/cards",
            Some(json!({"tenantId": app.tenant, "title": "across"})),
        )
        .await;
        assert_eq!(r.status, 201);
        let frame = stream
            .next(Duration::from_secs(5))
            .await
            .expect("the event from the other server");
        assert_eq!(frame.data["subject"]["id"], r.body["id"]);
        assert!(
            started.elapsed() < Duration::from_secs(1),
            "{:?}",
            started.elapsed()
        );
    }
}

/// Many writers on two server processes at once, each on its own card (so no
/// card lock orders them): a stream on each server receives every event once,
/// with seqs that follow each other without a gap, in the order of their
/// commits. Each event takes its seq under the outbox lock, held until the
/// commit; without it, writers that commit out of seq order would leave a
/// reader past a seq whose event commits later (or, with `MAX(seq) + 1`, two
/// writers would take the same seq).
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn many_writers_on_two_servers_give_every_stream_every_event_in_seq_order() {
    const WRITERS: usize = 16;
    const EACH: usize = 12;
    let app = common::spawn_app(Backend::Postgres).await;
    let second = start_server(SERVER, &app.db, &[]).await;
    let bases = [app.base.clone(), second.base.clone()];
    let path = format!("/api/events?tenant={}", app.tenant);
    let mut streams = Vec::new();
    for base in &bases {
        streams.push(EventStream::open(&app.http, base, &app.token, &path, None).await);
    }
    let mut cards = Vec::new();
    for i in 0..WRITERS {
        let r = common::request(
            &app.http,
            &app.base,
            &app.token,
            "POST",
            "/api/cards",
            Some(json!({"tenantId": app.tenant, "title": format!("card {i}")})),
        )
        .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        cards.push(r.body["id"].as_str().unwrap().to_string());
    }
    // Each stream's last seq before the comments: that of the cards' events.
    let mut lasts = Vec::new();
    for s in &mut streams {
        let seen = s.take(WRITERS, Duration::from_secs(5)).await;
        lasts.push(seen.last().unwrap().id.unwrap());
    }
    let mut writers = Vec::new();
    for (i, card) in cards.iter().enumerate() {
        let (http, token, card) = (app.http.clone(), app.token.clone(), card.clone());
        let base = bases[i % 2].clone();
        writers.push(tokio::spawn(async move {
            let mut ids = Vec::new();
            for n in 0..EACH {
                let r = common::request(
                    &http,
                    &base,
                    &token,
                    "POST",
                    &format!("/api/cards/{card}/comments"),
                    Some(json!({"content": format!("comment {n}")})),
                )
                .await;
                assert_eq!(r.status, 201, "{:?}", r.body);
                ids.push(r.body["id"].as_str().unwrap().to_string());
            }
            ids
        }));
    }
    let mut written = std::collections::BTreeSet::new();
    for w in writers {
        written.extend(w.await.unwrap());
    }
    assert_eq!(written.len(), WRITERS * EACH);
    for (stream, last) in streams.iter_mut().zip(lasts) {
        let frames = stream.take(WRITERS * EACH, Duration::from_secs(5)).await;
        let seqs: Vec<i64> = frames.iter().map(|f| f.id.unwrap()).collect();
        let expected: Vec<i64> = (last + 1..=last + (WRITERS * EACH) as i64).collect();
        assert_eq!(seqs, expected, "seqs follow each other without a gap");
        let got: std::collections::BTreeSet<String> = frames
            .iter()
            .map(|f| f.data["subject"]["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(got, written, "every comment's event, once");
        assert!(
            stream.next(Duration::from_millis(300)).await.is_none(),
            "no event twice"
        );
    }
}

on_both_backends! {
    // api.md §21 on the binary, with its default timeouts: a connection that
    // sends nothing is closed 10 s after it opened, and clients that go away
    // (mid-head, mid-body, mid-upload) are logged at debug level, never as
    // errors (one probe once left 3,004 ERROR lines).
    async fn slow_and_vanishing_clients_on_the_binary(backend) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        use tokio::net::TcpStream;
        let db = TestDb::new(backend).await;
        let server = start_server(SERVER, &db, &[("BOARD_LOG", "info")]).await;
        let (token, tenant) = first_run(&server.lines).expect("first run");
        let addr = server.base.trim_start_matches("http://").to_string();
        let opened = std::time::Instant::now();
        let mut silent = TcpStream::connect(&addr).await.unwrap();
        let http = reqwest::Client::new();
        let body = Some(json!({"tenantId": tenant, "title": "t"}));
        let card = testkit::request(&http, &server.base, &token, "POST", "/api/cards", body).await;
        let card = card.body["id"].as_str().unwrap();
        let vanishing = [
            "GET /healthz HTTP/1.1\r\nHost".to_string(),
            format!(
                "POST /api/cards HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer {token}\r\n\
                 Content-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"tenantId\""
            ),
            format!(
                "POST /api/cards/{card}/attachments HTTP/1.1\r\nHost: x\r\n\
                 Authorization: Bearer {token}\r\nContent-Type: multipart/form-data; boundary=b\r\n\
                 Content-Length: 100000\r\n\r\n--b\r\nContent-Disposition: form-data; name=\"files\"; \
                 filename=\"a.txt\"\r\n\r\nsome text that never ends"
            ),
            "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".to_string(),
        ];
        for _ in 0..10 {
            for request in &vanishing {
                let mut s = TcpStream::connect(&addr).await.unwrap();
                s.write_all(request.as_bytes()).await.unwrap();
                tokio::time::sleep(Duration::from_millis(20)).await;
                drop(s);
            }
        }
        let mut buf = [0u8; 64];
        let read = tokio::time::timeout(Duration::from_secs(15), silent.read(&mut buf)).await;
        let took = opened.elapsed();
        assert!(matches!(read, Ok(Ok(0)) | Ok(Err(_))), "closed, not {read:?}");
        assert!(
            took >= Duration::from_millis(9_500) && took < Duration::from_secs(13),
            "closed after {took:?}, not about 10 s"
        );
        let res = reqwest::get(format!("{}/healthz", server.base)).await.unwrap();
        assert_eq!(res.status().as_u16(), 200);
        let log = std::fs::read_to_string(testkit::process::log_path(&db)).unwrap();
        let errors: Vec<&str> = log.lines().filter(|l| l.contains("ERROR")).collect();
        assert!(errors.is_empty(), "no ERROR for a client that went away:\n{}", errors.join("\n"));
        assert!(db.files_dir().read_dir().unwrap().next().is_none(), "no file left behind");
    }
}

// api.md §22: 8 PATCHes with the same `If-Match`, split over two server
// processes on one database, 5 rounds on a card and 5 on a comment: one
// wins, the 7 others get 412 and change nothing. The tag is checked under
// the write's lock; checked on a read before it, several of the 8 won
// (the module docs of board-core/src/etag.rs).
on_both_backends! {
    async fn racing_if_match_patches_on_two_server_processes_let_one_through(backend) {
        let app = std::sync::Arc::new(common::spawn_app(backend).await);
        let one = start_server(SERVER, &app.db, &[]).await;
        let two = start_server(SERVER, &app.db, &[]).await;
        let card = app.card("A").await["id"].as_str().unwrap().to_string();
        let path = format!("/api/cards/{card}");
        let c = app.call("POST", &format!("{path}/comments"), Some(json!({"content": "0"}))).await;
        let comment = format!("/api/comments/{}", c.body["id"].as_str().unwrap());
        let lists = [(path.clone(), path.clone(), "title"), (comment, format!("{path}/comments"), "content")];
        for round in 0..5 {
            for (target, list, field) in &lists {
                let res = app.http.get(format!("{}{list}", one.base)).bearer_auth(&app.token).send().await.unwrap();
                let tag = res.headers()["etag"].to_str().unwrap().to_string();
                let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
                let mut tasks = Vec::new();
                for i in 0..8 {
                    let base = if i % 2 == 0 { one.base.clone() } else { two.base.clone() };
                    let (app, barrier, tag) = (app.clone(), barrier.clone(), tag.clone());
                    let url = format!("{base}{target}");
                    let body = json!({ *field: format!("r{round} w{i}") });
                    tasks.push(tokio::spawn(async move {
                        barrier.wait().await;
                        let r = app.http.patch(url).bearer_auth(&app.token).header("if-match", tag).json(&body).send().await.unwrap();
                        r.status().as_u16()
                    }));
                }
                let mut statuses = Vec::new();
                for t in tasks {
                    statuses.push(t.await.unwrap());
                }
                statuses.sort_unstable();
                assert_eq!(statuses, [200, 412, 412, 412, 412, 412, 412, 412], "round {round}, {target}");
            }
        }
    }
}

/// `--files-url` with no AWS settings stops the server with the one error that
/// says what to set: no warnings of the SDK's look for a region first, and
/// no `board-data/` folder left where it ran (the bucket is checked before
/// the database is made).
#[tokio::test]
async fn an_unreachable_bucket_stops_the_server_before_it_makes_a_database() {
    let dir = std::env::temp_dir().join(format!("board-s3-start-{}", cuid2::create_id()));
    std::fs::create_dir_all(&dir).unwrap();
    let mut cmd = tokio::process::Command::new(SERVER);
    cmd.args([
        "--files-url",
        "s3://no-such-bucket",
        "--listen",
        "127.0.0.1:0",
    ])
    .current_dir(&dir)
    .env_remove("BOARD_DATABASE_URL")
    .env_remove("BOARD_FILES_DIR")
    .env_remove("BOARD_FILES_URL")
    .env_remove("BOARD_LOG");
    for (key, _) in std::env::vars().filter(|(k, _)| k.starts_with("AWS_")) {
        cmd.env_remove(key);
    }
    let out = cmd.output().await.unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.starts_with("board-server: --files-url s3://no-such-bucket: "),
        "{stderr}"
    );
    assert!(stderr.contains("AWS_REGION"), "{stderr}");
    let left: Vec<_> = std::fs::read_dir(&dir).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// A start on a PostgreSQL database that is already migrated logs no
/// server notice (`relation "_sqlx_migrations" already exists, skipping`):
/// nothing is wrong, so nothing is said, even at the most talkative level.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_second_start_on_postgres_logs_no_notice() {
    let db = TestDb::new(Backend::Postgres).await;
    for _ in 0..2 {
        let server = start_server(SERVER, &db, &[("BOARD_LOG", "trace")]).await;
        drop(server);
    }
    let log = std::fs::read_to_string(testkit::process::log_path(&db)).unwrap();
    // The migrator's statements are in the log (at debug), its notice not.
    assert!(log.contains("_sqlx_migrations"), "{log}");
    assert!(!log.contains("already exists"), "{log}");
}

/// A start on a PostgreSQL server without the URL's database stops with the
/// message `board` gives (board-cli's `a_missing_postgres_database_is_named`):
/// the database named, how to create it, no `(INTERNAL)`.
#[tokio::test]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_missing_postgres_database_stops_the_server_with_its_name() {
    let url = common::postgres_url().expect("BOARD_TEST_POSTGRES_URL");
    let name = format!("board_missing_{}", cuid2::create_id());
    let url = common::replace_database(&url, &name);
    let dir = common::TempDir::new();
    let out = tokio::process::Command::new(SERVER)
        .args(["--database-url", &url, "--listen", "127.0.0.1:0"])
        .current_dir(dir.path())
        .env("BOARD_FILES_DIR", dir.path().join("files"))
        .env_remove("BOARD_FILES_URL")
        .env_remove("BOARD_LOG")
        .stdin(std::process::Stdio::null())
        .output();
    let out = tokio::time::timeout(Duration::from_secs(60), out)
        .await
        .expect("the server gives up")
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{:?}: {stderr}", out.status);
    assert_eq!(
        stderr.lines().last(),
        Some(
            format!(
                "board-server: database \"{name}\" does not exist: create it first \
                 (docs/deploy.md, \"PostgreSQL and several servers\": createdb)"
            )
            .as_str()
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("INTERNAL"), "{stderr}");
}
