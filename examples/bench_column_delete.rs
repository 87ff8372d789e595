//! Benchmark: `DELETE /api/columns/[id]` with `MOVE` of a column holding N cards
//! (N history rows written), through board-core, next to the same SQL statements
//! run directly.
//!
//! `cargo run --release --example bench_column_delete -- [N] [DATABASE_URL]`
//! (default N = 100000 on a fresh SQLite file in the temp folder).

use std::time::Instant;

use board_core::{Accent, Actor, Board, ColumnId, DeleteColumn, Name, NewColumn};
use sqlx::{AnyPool, Executor};

const SQLITE_CARDS: &str = "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) \
     WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < $3 - 1) \
     SELECT $4 || printf('%023d', i), $1, NULL, $2, 'card ' || i, i, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' FROM n";
const POSTGRES_CARDS: &str = "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) \
     SELECT $4 || lpad(i::text, 23, '0'), $1, NULL, $2, 'card ' || i, i, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z' \
     FROM generate_series(0, $3 - 1) AS i";
const HISTORY: &str = "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
     SELECT 'h' || substr(c.id, 1, 1) || substr(c.id, 3), c.id, 1, NULL, 'A', c.created_at FROM cards c WHERE c.column_id = $1";
const HISTORY_SEQ: &str = "UPDATE cards SET history_seq = 1 WHERE column_id = $1";

struct Fixture {
    board: Board,
    pool: AnyPool,
    from: ColumnId,
    to: ColumnId,
}

async fn fixture(url: &str, cards: i64, prefix: &str) -> Fixture {
    let board = Board::open(url).await.expect("open");
    sqlx::any::install_default_drivers();
    let pool = AnyPool::connect(url).await.expect("pool");
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Bench").expect("name"))
        .await
        .expect("workspace");
    let mut ids = Vec::new();
    for (name, done) in [("A", false), ("B", true)] {
        let c = board
            .create_column(
                &Actor::Operator,
                NewColumn {
                    workspace_id: ws.id.clone(),
                    project_id: None,
                    name: name.parse().expect("a name"),
                    color: Accent::Slate,
                    done,
                    wip_limit: None,
                },
            )
            .await
            .expect("column");
        ids.push(c.id);
    }
    let cards_sql = if url.starts_with("sqlite") {
        SQLITE_CARDS
    } else {
        POSTGRES_CARDS
    };
    sqlx::query(cards_sql)
        .bind(ws.id.as_str())
        .bind(ids[0].as_str())
        .bind(cards)
        .bind(prefix)
        .execute(&pool)
        .await
        .expect("cards");
    sqlx::query(HISTORY)
        .bind(ids[0].as_str())
        .execute(&pool)
        .await
        .expect("history");
    sqlx::query(HISTORY_SEQ)
        .bind(ids[0].as_str())
        .execute(&pool)
        .await
        .expect("history_seq");
    let to = ids.pop().expect("B");
    let from = ids.pop().expect("A");
    Fixture {
        board,
        pool,
        from,
        to,
    }
}

#[tokio::main]
async fn main() {
    let n: i64 = std::env::args()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let given = std::env::args().nth(2);
    let dir = std::env::temp_dir().join(format!("board-bench-{}", std::process::id()));
    let url_for = |run: &str| {
        given
            .clone()
            .unwrap_or_else(|| format!("sqlite://{}/{run}.db", dir.display()))
    };

    // 1. Through board-core: the operation the route and the CLI call.
    let f = fixture(&url_for("core"), n, "k").await;
    let input = serde_json::json!({"cards": "MOVE", "targetColumnId": f.to.as_str()});
    let started = Instant::now();
    let outcome = f
        .board
        .delete_column(
            &Actor::Operator,
            &f.from,
            board_core::Input::<DeleteColumn>::from_value(&input),
        )
        .await
        .expect("delete");
    let core = started.elapsed();
    assert_eq!(outcome.cards_moved, n as u64);
    let history: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM history")
        .fetch_one(&f.pool)
        .await
        .expect("count");
    assert_eq!(history, 2 * n);
    f.board.close().await;
    if given.is_some() {
        // A given database holds both runs; the raw run needs a fresh workspace.
        println!("(raw run on the same database, in a second workspace)");
    }

    // 2. The same statements, run directly in one transaction.
    let f = fixture(&url_for("raw"), n, "m").await;
    let sqlite = url_for("raw").starts_with("sqlite");
    let started = Instant::now();
    let mut conn = f.pool.acquire().await.expect("conn");
    if sqlite {
        // The pragmas board-core sets on its own connections.
        conn.execute(
            "PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; PRAGMA temp_store = MEMORY",
        )
        .await
        .expect("pragmas");
    }
    conn.execute(if sqlite { "BEGIN IMMEDIATE" } else { "BEGIN" })
        .await
        .expect("begin");
    let id_expr = if sqlite {
        "('h' || substr(lower(hex(randomblob(12))), 1, 23))"
    } else {
        "('h' || substr(md5(random()::text || clock_timestamp()::text), 1, 23))"
    };
    let history = format!(
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
         SELECT {id_expr}, c.id, c.history_seq + 1, \
         'A', 'B', '2026-01-02T00:00:00.000Z' FROM cards c WHERE c.column_id = $1"
    );
    sqlx::query(sqlx::AssertSqlSafe(history))
        .bind(f.from.as_str())
        .execute(&mut *conn)
        .await
        .expect("history");
    let t_history = started.elapsed();
    sqlx::query(
        "UPDATE cards SET column_id = $2, position = position + $3, updated_at = '2026-01-02T00:00:00.000Z', \
         history_seq = history_seq + 1 WHERE column_id = $1",
    )
    .bind(f.from.as_str())
    .bind(f.to.as_str())
    .bind(0i64)
    .execute(&mut *conn)
    .await
    .expect("move");
    let t_move = started.elapsed();
    sqlx::query("DELETE FROM columns WHERE id = $1")
        .bind(f.from.as_str())
        .execute(&mut *conn)
        .await
        .expect("delete");
    conn.execute("COMMIT").await.expect("commit");
    let raw = started.elapsed();
    drop(conn);
    f.board.close().await;
    std::fs::remove_dir_all(&dir).ok();

    println!("DELETE column with MOVE of {n} cards ({n} history rows written)");
    println!(
        "  board-core delete_column: {:>8.1} ms",
        core.as_secs_f64() * 1000.0
    );
    println!("  same SQL run directly:    {:>8.1} ms (history insert {:.1} ms, card update {:.1} ms, column delete + commit {:.1} ms)",
        raw.as_secs_f64() * 1000.0,
        t_history.as_secs_f64() * 1000.0,
        (t_move - t_history).as_secs_f64() * 1000.0,
        (raw - t_move).as_secs_f64() * 1000.0);
}
