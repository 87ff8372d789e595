//! Benchmarks of issue 5, on either backend:
//!
//! 1. `Board::card_history` for a card with 10,000 entries in a database of
//!    1,000,000 history rows (median and p99 over 200 reads), with the query plan;
//! 2. `Board::create_relation` on a PARENT chain of depth 1,000: a closing link
//!    (refused with `LINK_CYCLE`) and a non-closing one whose cycle check walks the
//!    whole chain.
//!
//! `cargo run --release --example bench_history -- [sqlite://…|postgres://…]`
//! (default: a SQLite file in the temp folder). Use an empty database.

use std::time::{Duration, Instant};

use board_core::{
    Accent, Actor, Board, CardId, Name, NewCard, NewColumn, NewRelation, RelationKind, WorkspaceId,
};
use sqlx::AnyPool;

const TOTAL_ROWS: i64 = 1_000_000;
const HOT_ROWS: i64 = 10_000;
const OTHER_CARDS: i64 = 990;
const READS: usize = 200;
const CHAIN: usize = 1_000;
const LINK_RUNS: usize = 50;

/// The query `Board::card_history` runs (board-core/src/history.rs).
const HISTORY_SQL: &str =
    "SELECT id, from_name, to_name, moved_at FROM history WHERE card_id = $1 ORDER BY seq";

/// The cycle check `Board::create_relation` runs (board-core/src/relations.rs).
const CYCLE_SQL: &str = "WITH RECURSIVE reach (id) AS ( \
     SELECT CAST($1 AS TEXT) \
     UNION \
     SELECT r.target_id FROM relations r JOIN reach ON r.source_id = reach.id \
     WHERE r.kind = $3 \
     ) \
     SELECT id FROM reach WHERE id = $2 LIMIT 1";

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = std::env::args().nth(1).unwrap_or_else(|| {
        let dir = std::env::temp_dir().join(format!("board-bench-{}", std::process::id()));
        format!("sqlite://{}/board.db", dir.display())
    });
    let board = Board::open(&url).await?;
    sqlx::any::install_default_drivers();
    let pool = AnyPool::connect(&url).await?;
    let me = Actor::Operator;
    println!("backend: {:?} ({url})", board.backend());

    let ws = board
        .admin()
        .create_workspace(&Name::parse("Bench")?)
        .await?;
    let column = NewColumn::new(ws.id.clone(), "To do".parse()?).color(Accent::Slate);
    let column = board.create_column(&me, column).await?;
    let hot = new_card(&board, &ws.id, "hot").await?;

    // 1. History: fill set-based, then time the read.
    let started = Instant::now();
    fill_history(&pool, &ws.id, column.id.as_str(), hot.as_str()).await?;
    sqlx::query("ANALYZE").execute(&pool).await?;
    let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM history")
        .fetch_one(&pool)
        .await?;
    println!(
        "\nfilled {rows} history rows in {:.1?} ({HOT_ROWS} on the hot card)",
        started.elapsed()
    );
    let mut times = Vec::new();
    for _ in 0..READS {
        let t = Instant::now();
        let entries = board.card_history(&me, &hot).await?;
        times.push(t.elapsed());
        assert_eq!(entries.len() as i64, HOT_ROWS);
    }
    report("GET history (10,000 entries)", &mut times);
    explain(&board, &pool, HISTORY_SQL, &[hot.as_str()]).await?;

    // 2. Relations: a PARENT chain c0 → c1 → … → c1000.
    let started = Instant::now();
    let mut chain = Vec::new();
    for i in 0..=CHAIN {
        chain.push(new_card(&board, &ws.id, &format!("chain {i}")).await?);
    }
    for w in chain.windows(2) {
        link(&board, &w[0], &w[1]).await?;
    }
    sqlx::query("ANALYZE").execute(&pool).await?;
    println!(
        "\nbuilt a PARENT chain of depth {CHAIN} in {:.1?}",
        started.elapsed()
    );
    let mut times = Vec::new();
    for _ in 0..LINK_RUNS {
        let t = Instant::now();
        let err = link(&board, &chain[CHAIN], &chain[0]).await.unwrap_err();
        times.push(t.elapsed());
        assert_eq!(err.code(), "LINK_CYCLE");
    }
    report("closing link (LINK_CYCLE)", &mut times);
    let mut fresh = Vec::new();
    for i in 0..LINK_RUNS {
        fresh.push(new_card(&board, &ws.id, &format!("fresh {i}")).await?);
    }
    let mut times = Vec::new();
    for card in &fresh {
        let t = Instant::now();
        link(&board, card, &chain[0]).await?;
        times.push(t.elapsed());
    }
    report("non-closing link above the chain (201)", &mut times);
    explain(
        &board,
        &pool,
        CYCLE_SQL,
        &[chain[0].as_str(), chain[CHAIN].as_str(), "PARENT"],
    )
    .await?;
    pool.close().await;
    board.close().await;
    Ok(())
}

async fn new_card(board: &Board, ws: &WorkspaceId, title: &str) -> board_core::Result<CardId> {
    let new = NewCard::new(ws.clone(), title.parse()?);
    let card = board.create_card(&Actor::Operator, new).await?;
    Ok(card.id)
}

async fn link(board: &Board, from: &CardId, to: &CardId) -> board_core::Result<()> {
    let new = NewRelation {
        target_id: to.clone(),
        kind: RelationKind::Parent,
    };
    board
        .create_relation(&Actor::Operator, from, new)
        .await
        .map(drop)
}

/// 990 filler cards with 1,000 entries each, and 9,999 more on the hot card
/// (which has its creation entry): 1,000,000 rows, in three statements.
async fn fill_history(
    pool: &AnyPool,
    ws: &WorkspaceId,
    column: &str,
    hot: &str,
) -> sqlx::Result<()> {
    let at = "2026-01-01T00:00:00.000Z";
    sqlx::query(
        "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $4) \
         SELECT 'filler' || i, $1, NULL, $2, 'filler', 1000 + i, $3, $3 FROM n",
    )
    .bind(ws.as_str())
    .bind(column)
    .bind(at)
    .bind(OTHER_CARDS)
    .execute(pool)
    .await?;
    let per_card = (TOTAL_ROWS - HOT_ROWS) / OTHER_CARDS;
    sqlx::query(
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) \
         SELECT c.id || '-' || n.i, c.id, n.i, 'Doing', 'To do', $1 \
         FROM cards c CROSS JOIN n WHERE c.title = 'filler'",
    )
    .bind(at)
    .bind(per_card)
    .execute(pool)
    .await?;
    sqlx::query(
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
         WITH RECURSIVE n (i) AS (SELECT 2 UNION ALL SELECT i + 1 FROM n WHERE i < $3) \
         SELECT $1 || '-' || n.i, $1, n.i, 'To do', 'Doing', $2 FROM n",
    )
    .bind(hot)
    .bind(at)
    .bind(HOT_ROWS)
    .execute(pool)
    .await?;
    Ok(())
}

fn report(what: &str, times: &mut [Duration]) {
    times.sort();
    let pick = |q: f64| times[((times.len() as f64 * q).ceil() as usize).clamp(1, times.len()) - 1];
    println!(
        "{what}: n={} median {:.2?}  p99 {:.2?}  min {:.2?}  max {:.2?}",
        times.len(),
        pick(0.5),
        pick(0.99),
        times[0],
        times[times.len() - 1]
    );
}

/// Prints the plan of `sql` with `binds` inlined as literals (all are ids or kinds).
async fn explain(board: &Board, pool: &AnyPool, sql: &str, binds: &[&str]) -> sqlx::Result<()> {
    let mut text = sql.to_string();
    for (i, b) in binds.iter().enumerate().rev() {
        text = text.replace(&format!("${}", i + 1), &format!("'{b}'"));
    }
    let (prefix, column) = match board.backend() {
        board_core::Backend::Sqlite => ("EXPLAIN QUERY PLAN ", "detail"),
        board_core::Backend::Postgres => ("EXPLAIN ", "QUERY PLAN"),
    };
    println!("plan of: {sql}");
    // As in the operation: the cycle check runs after `db::index_joins_only`.
    let mut tx = pool.begin().await?;
    if board.backend() == board_core::Backend::Postgres && sql == CYCLE_SQL {
        sqlx::query(
            "SELECT set_config('enable_hashjoin', 'off', true), \
             set_config('enable_mergejoin', 'off', true)",
        )
        .execute(&mut *tx)
        .await?;
    }
    let rows = sqlx::query(sqlx::AssertSqlSafe(format!("{prefix}{text}")))
        .fetch_all(&mut *tx)
        .await?;
    tx.rollback().await?;
    for row in rows {
        use sqlx::Row;
        let line: String = row.try_get(column)?;
        println!("  {line}");
    }
    Ok(())
}
