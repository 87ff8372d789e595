//! Write and read latency under load, every request timed (not wrk's corrected
//! histogram), each figure beside a reference measured in the same run:
//!
//! ```text
//! cargo build --release -p board-server --example bare_warp
//! cargo run --release --example latency                         # SQLite
//! cargo run --release --example latency -- postgres://…/EMPTY_DB # PostgreSQL
//! ```
//!
//! 1. `POST /api/cards/[id]/comments` at 32 connections, beside raw sqlx
//!    single-row commits from 32 tasks on the same kind of database;
//! 2. `PATCH /api/cards/[id]` moves at 32 connections over 64 cards;
//! 3. `GET /api/columns` at 32 connections, beside a bare warp route, and the
//!    same bare server's route that reads the database once per request (a
//!    primary-key lookup in the same database: what any route with one
//!    statement can reach on this machine);
//! 4. `GET …/history` of 10,000 entries, `GET …/comments` of 4,000 comments and
//!    `GET /api/board` of 1,000 cards in full (3 labels, 2 assignees, 5 checklist items,
//!    10 comments each), beside the raw read of the same rows
//!    through sqlx (on SQLite also beside the same rows read as one JSON text,
//!    as the server reads them there).
//!
//! Prints req/s, p50, p99 and the slowest request. Bounded request counts.
//! `LATENCY_ONLY=columns` (a comma-separated list of `comments`, `moves`,
//! `columns`, `reads`) runs only those parts, e.g. to profile one of them
//! (without `comments`, `reads` writes the thread it reads straight into the
//! table).
//! `LATENCY_ONLY=mixed` (never run by default) times card creations, one at a
//! time, while the spread moves run: a creation waits for the moves that
//! share its set.
//! `LATENCY_RAW_COMMITS=20000` runs that many raw commits as the comments'
//! reference (4,000 by default, as many as the comments): a longer run of the
//! reference, steadier where its commits race for SQLite's lock.
//! `LATENCY_COMMENTS=20000` posts that many comments (4,000 by default; the
//! thread the comments read reads is then that long too): with
//! `LATENCY_RAW_COMMITS`, a longer A/B run of the comment `POST`.
//! `LATENCY_BIG_READS=500` runs that many of each big read (60 by default), and
//! `LATENCY_SERVER_LOG=sqlx::query=debug` passes its filter to the server and
//! shows the server's log (there: every statement with its time) on standard
//! error.

use std::process::Stdio;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use sqlx::any::AnyPoolOptions;
use sqlx::{AnyPool, Row};
use testkit::bench::Run;

const CONNECTIONS: usize = 32;
const WRITES: usize = 4_000;
const MOVE_CARDS: usize = 64;
const COLUMN_READS: usize = 20_000;
/// The big reads, each one at a time (`LATENCY_BIG_READS` to change, e.g. for a
/// profile of them).
fn big_reads() -> usize {
    std::env::var("LATENCY_BIG_READS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(60)
}
const HISTORY: usize = 10_000;

/// Runs `total` calls of `call(i)` from `CONNECTIONS` tasks.
async fn load<F, Fut>(total: usize, call: F) -> Run
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    testkit::bench::load(CONNECTIONS, total, call).await
}

/// Starts a release binary, its standard output piped.
fn start(exe: &std::path::Path, env: &[(&str, String)], args: &[&str]) -> tokio::process::Child {
    assert!(
        exe.exists(),
        "{} is missing: cargo build --release -p board-server --example bare_warp",
        exe.display()
    );
    let mut cmd = tokio::process::Command::new(exe);
    let log = std::env::var("LATENCY_SERVER_LOG").is_ok();
    cmd.args(args)
        .stdout(Stdio::piped())
        .stderr(if log { Stdio::inherit() } else { Stdio::null() })
        .kill_on_drop(true);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.spawn().expect("start")
}

#[tokio::main]
async fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("board-latency-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("sqlite://{}/board.db", dir.display()));
    let env = [
        ("BOARD_DATABASE_URL", url.clone()),
        ("BOARD_FILES_DIR", dir.join("files").display().to_string()),
        ("BOARD_LISTEN", "127.0.0.1:0".to_string()),
        (
            "BOARD_LOG",
            std::env::var("LATENCY_SERVER_LOG").unwrap_or_else(|_| "warn".to_string()),
        ),
    ];
    let mut server = start(&root.join("target/release/board-server"), &env, &[]);
    let first = testkit::process::read_first_run(&mut server).await;
    let (token, tenant) = (Arc::new(first.token), first.tenant);
    let base = Arc::new(first.base);
    sqlx::any::install_default_drivers();
    let pool = AnyPoolOptions::new()
        .max_connections(CONNECTIONS as u32)
        .connect(&url)
        .await
        .expect("connect");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .unwrap();
    println!("database: {url}");

    // The columns and the cards that the runs use.
    let columns: Value = get(
        &http,
        &base,
        &token,
        &format!("/api/columns?tenant={tenant}"),
    )
    .await;
    let column_ids: Arc<Vec<String>> = Arc::new(
        columns
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect(),
    );
    let mut cards = Vec::new();
    for i in 0..MOVE_CARDS + 1 {
        let body = json!({"tenantId": tenant, "title": format!("card {i}")});
        cards.push(create_card(&http, &base, &token, &body).await);
    }
    let hot = Arc::new(cards.pop().unwrap());
    let cards = Arc::new(cards);

    let only = std::env::var("LATENCY_ONLY").ok();
    let named = |part: &str| {
        only.as_deref()
            .is_some_and(|o| o.split(',').any(|p| p == part))
    };
    let runs = |part: &str| only.is_none() || named(part);

    // 1. Comment POSTs, beside raw single-row commits.
    if runs("comments") {
        sqlx::query(
            "CREATE TABLE IF NOT EXISTS bench_raw (id TEXT PRIMARY KEY, body TEXT NOT NULL)",
        )
        .execute(&pool)
        .await
        .unwrap();
        let raw_commits = std::env::var("LATENCY_RAW_COMMITS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(WRITES);
        let raw = {
            let pool = pool.clone();
            load(raw_commits, move |i| {
                let pool = pool.clone();
                async move {
                    let mut tx = pool.begin().await.unwrap();
                    let ok = sqlx::query("INSERT INTO bench_raw (id, body) VALUES ($1, $2)")
                        .bind(format!("raw-{i}"))
                        .bind("A comment with **Markdown** and some text to store.")
                        .execute(&mut *tx)
                        .await
                        .is_ok();
                    ok && tx.commit().await.is_ok()
                }
            })
            .await
        };
        let posts = std::env::var("LATENCY_COMMENTS")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(WRITES);
        let comments = {
            let (http, base, token, hot) = (http.clone(), base.clone(), token.clone(), hot.clone());
            load(posts, move |_| {
                let (http, base, token, hot) =
                    (http.clone(), base.clone(), token.clone(), hot.clone());
                async move {
                    http.post(format!("{base}/api/cards/{hot}/comments"))
                    .bearer_auth(token.as_str())
                    .json(
                        &json!({"content": "A comment with **Markdown** and some text to store."}),
                    )
                    .send()
                    .await
                    .is_ok_and(|r| r.status().as_u16() == 201)
                }
            })
            .await
        };
        println!("{}", comments.line("POST /api/cards/[id]/comments"));
        println!("{}", raw.line("  reference: raw sqlx single-row commits"));
        println!(
            "  board / raw: {:.0} %",
            100.0 * comments.rate() / raw.rate()
        );
    }

    // 2. Card moves over 64 cards, each to the next column.
    if runs("moves") {
        let targets = {
            let (cards, column_ids) = (cards.clone(), column_ids.clone());
            move |i: usize| {
                let card = cards[i % cards.len()].clone();
                (
                    card,
                    column_ids[(i / cards.len() + 1) % column_ids.len()].clone(),
                )
            }
        };
        let moves = load_moves(&http, &base, &token, targets).await;
        println!("{}", moves.line("PATCH /api/cards/[id] (move), 64 cards"));

        // The same moves, but the cards start spread over the columns, so the
        // moves in flight at once go to every column (above, each round of 64
        // sends every card to one column: the 32 moves in flight all target it).
        let targets = spread_moves(&http, &base, &token, &tenant, &column_ids).await;
        let moves = load_moves(&http, &base, &token, targets).await;
        println!(
            "{}",
            moves.line("  the same, the cards spread over the columns")
        );
    }

    // 2b. Card creations while the spread moves run: a creation takes the
    // whole set, which moves to a column's end only share; how long it waits.
    if named("mixed") {
        let targets = spread_moves(&http, &base, &token, &tenant, &column_ids).await;
        let done = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let creations = {
            let (http, base, token, tenant) =
                (http.clone(), base.clone(), token.clone(), tenant.clone());
            let done = done.clone();
            tokio::spawn(async move {
                let (mut times, mut failures) = (Vec::new(), 0);
                let started = Instant::now();
                while !done.load(Ordering::Relaxed) {
                    let t = Instant::now();
                    let ok = http
                        .post(format!("{base}/api/cards"))
                        .bearer_auth(token.as_str())
                        .json(&json!({"tenantId": tenant, "title": "created meanwhile"}))
                        .send()
                        .await
                        .is_ok_and(|r| r.status().as_u16() == 201);
                    times.push(t.elapsed());
                    failures += usize::from(!ok);
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Run {
                    latencies: times,
                    failures,
                    wall: started.elapsed(),
                }
            })
        };
        let moves = load_moves(&http, &base, &token, targets).await;
        done.store(true, Ordering::Relaxed);
        let creations = creations.await.unwrap();
        println!(
            "{}",
            moves.line("PATCH (move), cards spread, with creations")
        );
        println!(
            "{}",
            creations.line("  POST /api/cards, one at a time, meanwhile")
        );
    }

    // 3. Column listing, beside a bare warp route.
    if runs("columns") {
        let path = Arc::new(format!("/api/columns?tenant={tenant}"));
        let listing = {
            let (http, base, token, path) =
                (http.clone(), base.clone(), token.clone(), path.clone());
            load(COLUMN_READS, move |_| {
                let (http, base, token, path) =
                    (http.clone(), base.clone(), token.clone(), path.clone());
                async move {
                    match http
                        .get(format!("{base}{path}"))
                        .bearer_auth(token.as_str())
                        .send()
                        .await
                    {
                        Ok(r) => r.status().as_u16() == 200 && r.bytes().await.is_ok(),
                        Err(_) => false,
                    }
                }
            })
            .await
        };
        let mut bare = start(
            &root.join("target/release/examples/bare_warp"),
            &[],
            &["127.0.0.1:18097", url.as_str()],
        );
        testkit::process::read_until(&mut bare, "bare warp listening")
            .await
            .expect("bare_warp listening");
        let bare = {
            let http = http.clone();
            load(COLUMN_READS, move |_| {
                let http = http.clone();
                async move {
                    match http.get("http://127.0.0.1:18097/healthz").send().await {
                        Ok(r) => r.status().as_u16() == 200 && r.bytes().await.is_ok(),
                        Err(_) => false,
                    }
                }
            })
            .await
        };
        // The same bare route reading the database once per request.
        let one = {
            let (http, url) = (
                http.clone(),
                format!("http://127.0.0.1:18097/one?id={tenant}"),
            );
            load(COLUMN_READS, move |_| {
                let (http, url) = (http.clone(), url.clone());
                async move {
                    match http.get(url).send().await {
                        Ok(r) => r.status().as_u16() == 200 && r.bytes().await.is_ok(),
                        Err(_) => false,
                    }
                }
            })
            .await
        };
        println!("{}", listing.line("GET /api/columns"));
        println!("{}", bare.line("  reference: bare warp route"));
        println!(
            "  board / bare: {:.0} %",
            100.0 * bare.wall.as_secs_f64() / listing.wall.as_secs_f64()
        );
        println!("{}", one.line("  reference: bare route, one statement"));
        println!(
            "  board / one statement: {:.0} %; one statement / bare: {:.0} %",
            100.0 * one.wall.as_secs_f64() / listing.wall.as_secs_f64(),
            100.0 * bare.wall.as_secs_f64() / one.wall.as_secs_f64()
        );
    }

    // 4. Big reads, one at a time, beside the raw read of the same rows.
    if runs("reads") {
        fill_history(&pool, &url, &cards[0]).await;
        // One big read: the route, then the raw read of the same rows, then
        // (SQLite) the same rows as one JSON text (`as_json`), parsed into a
        // JSON value per field, as the server reads them there.
        let big_read = |what: &'static str,
                        rows: &'static str,
                        path: String,
                        sql: &'static str,
                        key: String| {
            let (http, token, pool) = (http.clone(), token.clone(), pool.clone());
            let (url, sqlite) = (format!("{base}{path}"), url.starts_with("sqlite"));
            async move {
                let route = one_at_a_time(|| {
                    let (http, url, token) = (http.clone(), url.clone(), token.clone());
                    async move {
                        let r = http
                            .get(url)
                            .bearer_auth(token.as_str())
                            .send()
                            .await
                            .unwrap();
                        assert_eq!(r.status().as_u16(), 200);
                        r.bytes().await.unwrap();
                    }
                })
                .await;
                let raw = one_at_a_time(|| async {
                    let rows = sqlx::query(sql)
                        .bind(key.as_str())
                        .fetch_all(&pool)
                        .await
                        .unwrap();
                    let n: usize = rows.iter().map(|r| r.len()).sum();
                    assert!(n > 0);
                })
                .await;
                println!("{}", route.line(what));
                println!(
                    "{}",
                    raw.line(&format!("  reference: raw read of the same {rows}"))
                );
                if sqlite {
                    let json_sql = as_json(sql);
                    let json = one_at_a_time(|| async {
                        let json: String =
                            sqlx::query_scalar(sqlx::AssertSqlSafe(json_sql.as_str()))
                                .bind(key.as_str())
                                .fetch_one(&pool)
                                .await
                                .unwrap();
                        let rows: Vec<Vec<Value>> = serde_json::from_str(&json).unwrap();
                        assert!(!rows.is_empty());
                    })
                    .await;
                    println!(
                        "{}",
                        json.line("  reference: the same rows as one JSON text")
                    );
                }
            }
        };
        let history = format!("/api/cards/{}/history", cards[0]);
        big_read(
            "GET …/history, 10,000+ entries",
            "rows",
            history,
            HISTORY_SQL,
            cards[0].clone(),
        )
        .await;
        if !runs("comments") {
            // The thread the comment POSTs would have written.
            fill_thread(&pool, &url, &hot).await;
        }
        let thread = format!("/api/cards/{hot}/comments");
        big_read(
            "GET …/comments, 4,000 comments",
            "rows",
            thread,
            THREAD_SQL,
            hot.to_string(),
        )
        .await;
        fill_board(&pool, &url, &tenant, &column_ids[0]).await;
        let board = format!("/api/board?tenant={tenant}");
        // The cards are in full: a filled card's labels, assignees, checklist, comments.
        let read = get(&http, &base, &token, &board).await;
        let cards = read["columns"][0]["cards"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let last = cards.iter().find(|c| c["title"] == "Card 1000");
        let last = last.expect("a filled card on the board");
        assert_eq!(last["labelIds"].as_array().map(Vec::len), Some(3), "{last}");
        assert_eq!(
            last["assigneeIds"].as_array().map(Vec::len),
            Some(2),
            "{last}"
        );
        assert_eq!(last["checklist"], json!({"done": 2, "total": 5}), "{last}");
        assert_eq!(last["commentCount"], 10, "{last}");
        big_read(
            "GET /api/board, 1,000+ cards",
            "cards",
            board,
            BOARD_SQL,
            column_ids[0].clone(),
        )
        .await;
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// [`big_reads`] calls of `read`, one at a time, each timed.
async fn one_at_a_time<F, Fut>(mut read: F) -> Run
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    let mut latencies = Vec::new();
    let started = Instant::now();
    for _ in 0..big_reads() {
        let t = Instant::now();
        read().await;
        latencies.push(t.elapsed());
    }
    Run {
        latencies,
        failures: 0,
        wall: started.elapsed(),
    }
}

/// The raw reads of the big reads' rows.
const HISTORY_SQL: &str =
    "SELECT id, from_name, to_name, moved_at FROM history WHERE card_id = $1 ORDER BY seq";
const THREAD_SQL: &str = "SELECT id, card_id, content, created_at, updated_at FROM comments \
     WHERE card_id = $1 ORDER BY created_at, seq";
/// The board's rows, read raw: each card's columns and, as every card read
/// of the server computes them (api.md §24), its labels, assignees,
/// checklist progress and counts.
const BOARD_SQL: &str = "SELECT id, project_id, column_id, title, description, due_at, \
     (SELECT COALESCE(string_agg(l.id, ',' ORDER BY l.position, l.id), '') FROM card_labels cl \
      JOIN labels l ON l.id = cl.label_id WHERE cl.card_id = cards.id), \
     (SELECT COALESCE(string_agg(a.account_id, ',' ORDER BY a.assigned_at, a.account_id), '') \
      FROM card_assignees a WHERE a.card_id = cards.id), \
     (SELECT CAST(COALESCE(SUM(n.items_done), 0) AS TEXT) || '/' || \
      CAST(COALESCE(SUM(n.items), 0) AS TEXT) FROM card_counts n WHERE n.card_id = cards.id), \
     (SELECT CAST(COALESCE(SUM(n.comments), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id = cards.id), \
     (SELECT CAST(COALESCE(SUM(n.attachments), 0) AS BIGINT) FROM card_counts n \
      WHERE n.card_id = cards.id), \
     position, created_at, updated_at, created_by \
     FROM cards WHERE column_id IN (SELECT id FROM columns WHERE set_id = \
     (SELECT set_id FROM columns WHERE id = $1)) AND archived_at IS NULL \
     ORDER BY position, created_at";

/// A raw read `SELECT cols FROM … ORDER BY o` as SQLite's one JSON text of
/// its rows, as the server reads a big list there (`store::big_read`).
fn as_json(sql: &str) -> String {
    // The top level's FROM: the first outside parentheses.
    let mut depth = 0i32;
    let mut from = None;
    for (i, c) in sql.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ' ' if depth == 0 && sql[i..].starts_with(" FROM ") => {
                from = Some(i);
                break;
            }
            _ => {}
        }
    }
    let from = from.expect("FROM");
    let order = sql.rfind(" ORDER BY ").expect("ORDER BY");
    format!(
        "SELECT json_group_array(json_array({}) ORDER BY {}){}",
        &sql["SELECT ".len()..from],
        &sql[order + " ORDER BY ".len()..],
        &sql[from..order]
    )
}

/// Runs [`WRITES`] moves, the `i`-th of the card and to the column
/// `target(i)` names.
async fn load_moves<T>(
    http: &reqwest::Client,
    base: &Arc<String>,
    token: &Arc<String>,
    target: T,
) -> Run
where
    T: Fn(usize) -> (String, String) + Clone + Send + Sync + 'static,
{
    let (http, base, token) = (http.clone(), base.clone(), token.clone());
    load(WRITES, move |i| {
        let (http, base, token) = (http.clone(), base.clone(), token.clone());
        let (card, to) = target(i);
        async move {
            http.patch(format!("{base}/api/cards/{card}"))
                .bearer_auth(token.as_str())
                .json(&json!({ "columnId": to }))
                .send()
                .await
                .is_ok_and(|r| r.status().as_u16() == 200)
        }
    })
    .await
}

/// Creates 63 cards, card `c` in column `c % 3` (of `columns`), and gives the
/// `i`-th move of them: card `i % 63` to the column after the one it is in, so
/// that the moves in flight at once go to every column.
async fn spread_moves(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    tenant: &str,
    columns: &Arc<Vec<String>>,
) -> impl Fn(usize) -> (String, String) + Clone + Send + Sync + 'static {
    let mut cards = Vec::new();
    for c in 0..MOVE_CARDS - 1 {
        let column = &columns[c % columns.len()];
        let body = json!({"tenantId": tenant, "title": format!("spread {c}"), "columnId": column});
        cards.push(create_card(http, base, token, &body).await);
    }
    let (cards, columns) = (Arc::new(cards), columns.clone());
    move |i: usize| {
        let (c, round) = (i % cards.len(), i / cards.len());
        let to = columns[(c + round + 1) % columns.len()].clone();
        (cards[c].clone(), to)
    }
}

/// Creates a card from `body` and gives its id.
async fn create_card(http: &reqwest::Client, base: &str, token: &str, body: &Value) -> String {
    let card = testkit::request(http, base, token, "POST", "/api/cards", Some(body.clone())).await;
    card.body["id"]
        .as_str()
        .expect("a created card")
        .to_string()
}

async fn get(http: &reqwest::Client, base: &str, token: &str, path: &str) -> Value {
    testkit::request(http, base, token, "GET", path, None)
        .await
        .body
}

/// Puts 1,000 more cards into `column`, set-based, each with 3 labels, 2
/// assignees, 5 checklist items (2 done) and 10 comments (api.md §24's
/// board).
async fn fill_board(pool: &AnyPool, url: &str, tenant: &str, column: &str) {
    let sqlite = url.starts_with("sqlite");
    let (series, random_id) = if sqlite {
        (
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) ",
            "substr(lower(hex(randomblob(12))), 1, 23)",
        )
    } else {
        ("", "substr(md5(random()::text || i::text), 1, 23)")
    };
    let from = if sqlite {
        "FROM n"
    } else {
        "FROM generate_series(1, 1000) AS i"
    };
    let t = "'2026-01-01T00:00:00.000Z'";
    let statements = [
        format!(
            "{series}INSERT INTO cards (id, workspace_id, project_id, column_id, title, description, \
             position, created_at, updated_at) \
             SELECT 'b' || {random_id}, $1, NULL, $2, 'Card ' || i, \
                    'What is to be done, with **Markdown**.', 1000 + i, {t}, {t} {from}"
        ),
        format!(
            "INSERT INTO labels (id, workspace_id, name, name_key, accent, position, created_at) \
             SELECT 'lbench' || k || substr($2, 1, 12), $1, 'Bench ' || k, 'bench ' || k, 'slate', k, {t} \
             FROM (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3) x"
        ),
        format!(
            "INSERT INTO accounts (id, name, created_at) \
             SELECT 'abench' || k || substr($2, 1, 12), 'bench ' || k || ' ' || $2, {t} \
             FROM (SELECT 1 AS k UNION ALL SELECT 2) x WHERE $1 <> ''"
        ),
        "INSERT INTO memberships (workspace_id, account_id, role, created_at) \
         SELECT $1, id, 'MEMBER', '2026-01-01T00:00:00.000Z' FROM accounts \
         WHERE id LIKE 'abench%' AND name LIKE '% ' || $2"
            .to_string(),
        "INSERT INTO card_labels (card_id, label_id) SELECT k.id, l.id FROM cards k \
         JOIN labels l ON l.workspace_id = k.workspace_id AND l.name LIKE 'Bench %' \
         WHERE k.column_id = $2 AND k.description = 'What is to be done, with **Markdown**.' AND $1 <> ''"
            .to_string(),
        "INSERT INTO card_assignees (card_id, workspace_id, account_id, assigned_at) \
         SELECT k.id, m.workspace_id, m.account_id, '2026-01-01T00:00:00.000Z' FROM cards k \
         JOIN memberships m ON m.workspace_id = k.workspace_id AND m.account_id LIKE 'abench%' \
         WHERE k.column_id = $2 AND k.description = 'What is to be done, with **Markdown**.' AND $1 <> ''"
            .to_string(),
        format!(
            "INSERT INTO checklist_items (id, card_id, text, done, position, created_at) \
             SELECT 'i' || x.k || substr(k.id, 2, 22), k.id, 'Step ' || x.k, \
                    CASE WHEN x.k <= 2 THEN 1 ELSE 0 END, x.k * 65536, {t} FROM cards k \
             CROSS JOIN (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 UNION ALL SELECT 4 \
                         UNION ALL SELECT 5) x \
             WHERE k.column_id = $2 AND k.description = 'What is to be done, with **Markdown**.' AND $1 <> ''"
        ),
        format!(
            "INSERT INTO comments (id, card_id, seq, content, created_at, updated_at) \
             SELECT 'k' || x.k || substr(k.id, 2, 21), k.id, 100 + x.k, 'A comment', {t}, {t} \
             FROM cards k CROSS JOIN (SELECT 1 AS k UNION ALL SELECT 2 UNION ALL SELECT 3 \
                UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 \
                UNION ALL SELECT 8 UNION ALL SELECT 9 UNION ALL SELECT 10) x \
             WHERE k.column_id = $2 AND k.description = 'What is to be done, with **Markdown**.' AND $1 <> ''"
        ),
    ];
    for sql in statements {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(tenant)
            .bind(column)
            .execute(pool)
            .await
            .unwrap();
    }
}

/// Gives `card` 10,000 more history entries, set-based.
/// Writes [`WRITES`] comments to `card` straight into the table (seq 1 to
/// [`WRITES`]), when the comment POSTs did not run.
async fn fill_thread(pool: &AnyPool, url: &str, card: &str) {
    let content = "'A comment with **Markdown** and some text to store.'";
    let sql = if url.starts_with("sqlite") {
        format!(
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) \
             INSERT INTO comments (id, card_id, seq, content, created_at, updated_at) \
             SELECT 'c' || substr(lower(hex(randomblob(12))), 1, 23), $1, i, {content}, \
                    '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n"
        )
    } else {
        format!(
            "INSERT INTO comments (id, card_id, seq, content, created_at, updated_at) \
             SELECT 'c' || substr(md5(random()::text || i::text), 1, 23), $1, i, {content}, \
                    '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' \
             FROM generate_series(1, $2) AS i"
        )
    };
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(card)
        .bind(WRITES as i64)
        .execute(pool)
        .await
        .unwrap();
    if !url.starts_with("sqlite") {
        // The next comment's seq comes after these (migration 0015).
        sqlx::query("SELECT setval('comments_seq', (SELECT MAX(seq) FROM comments) + 1, false)")
            .execute(pool)
            .await
            .unwrap();
    }
}

async fn fill_history(pool: &AnyPool, url: &str, card: &str) {
    let sql = if url.starts_with("sqlite") {
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) \
         INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
         SELECT 'h' || substr(lower(hex(randomblob(12))), 1, 23), $1, 100000 + i, 'To do', 'Doing', \
                '2026-01-01T00:00:00.000Z' FROM n"
    } else {
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
         SELECT 'h' || substr(md5(random()::text || i::text), 1, 23), $1, 100000 + i, 'To do', 'Doing', \
                '2026-01-01T00:00:00.000Z' FROM generate_series(1, $2) AS i"
    };
    sqlx::query(sql)
        .bind(card)
        .bind(HISTORY as i64)
        .execute(pool)
        .await
        .unwrap();
}
