//! Benchmark of issue 15, on either backend: `Board::flow` (what
//! `GET /api/flow` runs) over the default window (the 30 UTC days up to now)
//! on a set of 10,000 cards with 1,000,000 history rows spread over a year,
//! against a raw scan of the same history rows in the same run.
//!
//! `cargo run --release --example bench_flow -- [sqlite://…|postgres://…]`
//! (default: a SQLite file in the temp folder). Use an empty database.

use std::time::{Duration, Instant};

use board_core::{Actor, Backend, Board, FlowQuery, Name, SetQuery};
use sqlx::AnyPool;

const CARDS: i64 = 10_000;
const PER_CARD: i64 = 100;
/// Seconds between a card's entries (3.6 days: 100 entries span 360 days).
const STEP: i64 = 311_040;
const READS: usize = 20;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).unwrap_or_else(|| {
        let dir = std::env::temp_dir().join(format!("board-bench-flow-{}", std::process::id()));
        format!("sqlite://{}/board.db", dir.display())
    });
    let board = Board::open(&url).await?;
    sqlx::any::install_default_drivers();
    let pool = AnyPool::connect(&url).await?;
    println!("backend: {:?} ({url})", board.backend());
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Bench")?)
        .await?;
    let set: String = sqlx::query_scalar(
        "SELECT id FROM column_sets WHERE workspace_id = $1 AND project_id IS NULL",
    )
    .bind(ws.id.as_str())
    .fetch_one(&pool)
    .await?;

    let started = Instant::now();
    fill(&pool, board.backend(), ws.id.as_str(), &set).await?;
    sqlx::query("ANALYZE").execute(&pool).await?;
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM history")
        .fetch_one(&pool)
        .await?;
    println!(
        "filled {CARDS} cards and {rows} history rows in {:.1?}",
        started.elapsed()
    );

    let query = FlowQuery::new(SetQuery::workspace(ws.id.clone()));
    let mut times = Vec::new();
    for _ in 0..READS {
        let t = Instant::now();
        let flow = board.flow(&Actor::Operator, &query).await?;
        times.push(t.elapsed());
        let today: u64 = flow.cumulative_flow.last().unwrap().counts.values().sum();
        assert_eq!(today as i64, CARDS, "every card is somewhere today");
    }
    let flow = board.flow(&Actor::Operator, &query).await?;
    println!(
        "window {} to {}: {} visits ended in To do, {} cards reached Done (lead time median {:.0} s)",
        flow.since,
        flow.until,
        flow.columns[0].time_in_column.count,
        flow.lead_time.count,
        flow.lead_time.median_seconds.unwrap_or_default()
    );
    report("Board::flow, 30 days", &mut times);

    // The reference: one scan of the same rows (the set's cards' history).
    let raw = "SELECT COUNT(*), MAX(h.moved_at), MIN(h.to_name) FROM history h \
               WHERE h.card_id IN (SELECT k.id FROM cards k JOIN columns c ON c.id = k.column_id \
                                   WHERE c.set_id = $1)";
    let mut times = Vec::new();
    for _ in 0..READS {
        let t = Instant::now();
        let (n, _, _): (i64, Option<String>, Option<String>) =
            sqlx::query_as(raw).bind(&set).fetch_one(&pool).await?;
        times.push(t.elapsed());
        assert_eq!(n, rows);
    }
    report("raw scan of the same history rows", &mut times);
    pool.close().await;
    board.close().await;
    Ok(())
}

/// 10,000 cards with 100 entries each, set-based: card `i`'s entry `n` enters
/// To do or Doing (`(n - 1 + i) % 2`), except that the last entry of every
/// other card enters Done (its first arrival there), at
/// `now - 366 days + n * STEP + i * 31 s`; the card sits in its last entry's column.
async fn fill(pool: &AnyPool, backend: Backend, ws: &str, set: &str) -> sqlx::Result<()> {
    let at = |secs: &str| {
        match backend {
        Backend::Sqlite => {
            format!("strftime('%Y-%m-%dT%H:%M:%fZ', 'now', '-366 days', '+' || ({secs}) || ' seconds')")
        }
        Backend::Postgres => format!(
            "to_char((now() - interval '366 days' + ({secs}) * interval '1 second') AT TIME ZONE 'UTC', \
             'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
        ),
    }
    };
    let created = at(&format!("{STEP} + n.i * 31"));
    let sql = format!(
        "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, \
                            updated_at, history_seq) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $3) \
         SELECT 'bench' || n.i, $1, NULL, c.id, 'card ' || n.i, n.i, {created}, {created}, $4 \
         FROM n JOIN columns c ON c.set_id = $2 \
           AND c.position = CASE WHEN n.i % 2 = 0 THEN 2 ELSE ($4 - 1 + n.i) % 2 END"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(ws)
        .bind(set)
        .bind(CARDS)
        .bind(PER_CARD)
        .execute(pool)
        .await?;
    let moved = at(&format!("n.i * {STEP} + k.position * 31"));
    // Entry `n` ends the visit entry `n - 1` began (in To do or Doing).
    let from_at = at(&format!("(n.i - 1) * {STEP} + k.position * 31"));
    let sql = format!(
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at, to_column_id, to_done, \
                              from_column_id, from_at) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) \
         SELECT k.id || '-' || n.i, k.id, n.i, p.name, c.name, {moved}, c.id, c.done, p.id, \
                CASE WHEN n.i > 1 THEN {from_at} END \
         FROM cards k CROSS JOIN n \
         JOIN columns c ON c.set_id = $1 AND c.position = CASE \
           WHEN n.i = $2 AND k.position % 2 = 0 THEN 2 ELSE (n.i - 1 + k.position) % 2 END \
         LEFT JOIN columns p ON n.i > 1 AND p.set_id = $1 AND p.position = (n.i - 2 + k.position) % 2 \
         WHERE k.title LIKE 'card %'"
    );
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(set)
        .bind(PER_CARD)
        .execute(pool)
        .await?;
    Ok(())
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    println!(
        "{what}: n={} median {:.1?}  min {:.1?}  max {:.1?}",
        times.len(),
        times[times.len() / 2],
        times[0],
        times[times.len() - 1]
    );
}
