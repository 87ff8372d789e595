//! History must not slow the board: `GET /api/board` and card moves on one
//! board of 64 cards, before and after every card gets its history, in the
//! same run against the same server:
//!
//! ```text
//! cargo build --release -p board-server && cargo build --release --example bench_counts
//! ./target/release/examples/bench_counts                                   # SQLite
//! ./target/release/examples/bench_counts postgres://postgres@127.0.0.1:5432/EMPTY_DB
//! ```
//!
//! The history, written set-based straight into the tables (the schema's
//! triggers keep the counts as for any other write): per card 1,000 comments,
//! 100 checklist items (30 done), 20 attachments and 1,000 history entries,
//! 64,000 comments in all. Each phase runs its board reads and its moves
//! (every card to the next column, in turn) at 8 connections, twice,
//! alternated; the ratio is after / before (the contract asks ≥ 80 %).
//! `BENCH_COUNTS_PER_CARD=N` seeds N comments and history entries a card.

use std::sync::Arc;

use serde_json::{json, Value};
use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;
use testkit::bench::Run;

const CONNECTIONS: usize = 8;
const CARDS: usize = 64;
const READS: usize = 4_000;
const MOVES: usize = 2_000;

/// Comments and history entries per card (`BENCH_COUNTS_PER_CARD`).
fn per_card() -> i64 {
    std::env::var("BENCH_COUNTS_PER_CARD")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(1_000)
}

#[tokio::main]
async fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::temp_dir().join(format!("board-counts-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("sqlite://{}/board.db", dir.display()));
    let exe = root.join("target/release/board-server");
    assert!(exe.exists(), "cargo build --release -p board-server first");
    let mut server = tokio::process::Command::new(exe)
        .env("BOARD_DATABASE_URL", &url)
        .env("BOARD_FILES_DIR", dir.join("files"))
        .env("BOARD_LISTEN", "127.0.0.1:0")
        .env("BOARD_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("start the server");
    let first = testkit::process::read_first_run(&mut server).await;
    let (token, tenant, base) = (Arc::new(first.token), first.tenant, Arc::new(first.base));
    sqlx::any::install_default_drivers();
    let pool = AnyPoolOptions::new()
        .max_connections(2)
        .connect(&url)
        .await
        .expect("connect");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .unwrap();
    println!("database: {url}");

    let columns = request(
        &http,
        &base,
        &token,
        "GET",
        &format!("/api/columns?tenant={tenant}"),
        None,
    )
    .await;
    let columns: Arc<Vec<String>> = Arc::new(
        columns
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c["id"].as_str().unwrap().to_string())
            .collect(),
    );
    let mut cards = Vec::new();
    for c in 0..CARDS {
        let body = json!({"tenantId": tenant, "title": format!("card {c}"),
                          "columnId": columns[c % columns.len()]});
        let card = request(&http, &base, &token, "POST", "/api/cards", Some(body)).await;
        cards.push(card["id"].as_str().expect("a card").to_string());
    }
    let cards = Arc::new(cards);
    let board = Arc::new(format!("{base}/api/board?tenant={tenant}"));
    let bench = Bench {
        http,
        token,
        base,
        board,
        cards,
        columns,
    };
    let mut moved = 0;
    let before = bench.phase("before", &mut moved).await;
    let seeded = std::time::Instant::now();
    seed(&pool, &url, per_card()).await;
    println!(
        "seeded {} comments and history entries a card, 100 items, 20 attachments ({:.1} s)",
        per_card(),
        seeded.elapsed().as_secs_f64()
    );
    let after = bench.phase("after", &mut moved).await;
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    println!(
        "board read after / before: {:.0} % ({:.0}, {:.0} → {:.0}, {:.0} req/s)",
        100.0 * mean(&after.0) / mean(&before.0),
        before.0[0],
        before.0[1],
        after.0[0],
        after.0[1]
    );
    println!(
        "moves after / before: {:.0} % ({:.0}, {:.0} → {:.0}, {:.0} req/s)",
        100.0 * mean(&after.1) / mean(&before.1),
        before.1[0],
        before.1[1],
        after.1[0],
        after.1[1]
    );
    server.kill().await.ok();
    std::fs::remove_dir_all(&dir).ok();
}

/// What every phase reads and moves.
struct Bench {
    http: reqwest::Client,
    token: Arc<String>,
    base: Arc<String>,
    board: Arc<String>,
    cards: Arc<Vec<String>>,
    columns: Arc<Vec<String>>,
}

impl Bench {
    /// Board reads, then moves, twice: their rates (req/s). `moved` counts
    /// the moves made so far, so that every move goes to another column.
    async fn phase(&self, name: &str, moved: &mut usize) -> (Vec<f64>, Vec<f64>) {
        let mut out = (Vec::new(), Vec::new());
        for _ in 0..2 {
            let read = reads(&self.http, &self.token, &self.board).await;
            println!(
                "{}",
                read.line(&format!("{name}: GET /api/board, {CARDS} cards"))
            );
            let run = moves(self, *moved).await;
            *moved += MOVES;
            println!(
                "{}",
                run.line(&format!("{name}: PATCH (move), {CARDS} cards"))
            );
            out.0.push(read.rate());
            out.1.push(run.rate());
        }
        out
    }
}

async fn request(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Value {
    let r = testkit::request(http, base, token, method, path, body).await;
    assert!(
        (200..300).contains(&r.status),
        "{method} {path}: {:?}",
        r.body
    );
    r.body
}

/// [`READS`] board reads at [`CONNECTIONS`].
async fn reads(http: &reqwest::Client, token: &Arc<String>, board: &Arc<String>) -> Run {
    let (http, token, board) = (http.clone(), token.clone(), board.clone());
    testkit::bench::load(CONNECTIONS, READS, move |_| {
        let (http, token, board) = (http.clone(), token.clone(), board.clone());
        async move {
            match http
                .get(board.as_str())
                .bearer_auth(token.as_str())
                .send()
                .await
            {
                Ok(r) if r.status().as_u16() == 200 => r.bytes().await.is_ok(),
                _ => false,
            }
        }
    })
    .await
}

/// [`MOVES`] moves at [`CONNECTIONS`]: move `first + i` takes card `i % 64` to
/// the column after the one it is in.
async fn moves(bench: &Bench, first: usize) -> Run {
    let (http, token, base) = (bench.http.clone(), bench.token.clone(), bench.base.clone());
    let (cards, columns) = (bench.cards.clone(), bench.columns.clone());
    testkit::bench::load(CONNECTIONS, MOVES, move |i| {
        let (http, token, base) = (http.clone(), token.clone(), base.clone());
        let (c, turn) = ((first + i) % cards.len(), (first + i) / cards.len());
        let card = cards[c].clone();
        let to = columns[(c + turn + 1) % columns.len()].clone();
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

/// Gives every card `n` comments and history entries, 100 checklist items (30
/// done) and 20 attachments, set-based.
async fn seed(pool: &AnyPool, url: &str, n: i64) {
    let (series, id) = if url.starts_with("sqlite") {
        (
            "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM s WHERE i < $1) ",
            "substr(lower(hex(randomblob(12))), 1, 23)",
        )
    } else {
        (
            "",
            "substr(md5(random()::text || k.id || s.i::text), 1, 23)",
        )
    };
    let from = if url.starts_with("sqlite") {
        "FROM cards k CROSS JOIN s"
    } else {
        "FROM cards k CROSS JOIN generate_series(1, $1) AS s(i)"
    };
    let t = "'2026-01-01T00:00:00.000Z'";
    let statements = [
        (n, format!(
            "{series}INSERT INTO comments (id, card_id, seq, content, created_at, updated_at) \
             SELECT 'k' || {id}, k.id, 1000000 + s.i, 'A comment with **Markdown**.', {t}, {t} {from}"
        )),
        (n, format!(
            "{series}INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
             SELECT 'h' || {id}, k.id, 1000000 + s.i, 'To do', 'Doing', {t} {from}"
        )),
        (100, format!(
            "{series}INSERT INTO checklist_items (id, card_id, text, done, position, created_at) \
             SELECT 'i' || {id}, k.id, 'Step', CASE WHEN s.i <= 30 THEN 1 ELSE 0 END, \
                    1000000 + s.i * 1024, {t} {from}"
        )),
        (20, format!(
            "{series}INSERT INTO attachments (id, card_id, scope, stored_name, original_name, \
                                    mime_type, size, created_at) \
             SELECT 'f' || {id}, k.id, 'CARD', 's' || {id}, 'a.png', 'image/png', 1, {t} {from}"
        )),
    ];
    for (rows, sql) in statements {
        sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(rows)
            .execute(pool)
            .await
            .unwrap();
    }
    // What a database that grew over months has: SQLite's log checkpointed
    // (the server's checkpoints follow its own writes, not these), and
    // PostgreSQL's statistics (autovacuum's ANALYZE) up to date.
    let settle = match url.starts_with("sqlite") {
        true => "PRAGMA wal_checkpoint(TRUNCATE)",
        false => "ANALYZE",
    };
    sqlx::query(settle).execute(pool).await.unwrap();
}
