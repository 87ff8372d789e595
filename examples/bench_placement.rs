//! Benchmark: placing cards in a column of 10,000 (api.md §16), through
//! board-core's `create_card`, against plain appends in the same run.
//!
//! `cargo run --release --example bench_placement -- [postgres://…/EMPTY_DB]`
//! runs on a fresh SQLite file in the temp folder, then, when a URL is given,
//! on that (empty) PostgreSQL database. The four kinds alternate in rounds of
//! 100, so drift of the machine falls on each alike; each kind is 1,000
//! creations: appended without a placement (the reference), at the top, at
//! the end (`Placement::Bottom`), after a card spread over the column, and
//! always after the same card (the worst case: its gap is used up every few
//! placements, and a window below it is renumbered).

use std::time::{Duration, Instant};

use board_core::{Actor, Board, CardId, ColumnId, Name, NewCard, Placement, SetQuery, WorkspaceId};

const CARDS: i64 = 10_000;
const ROUNDS: usize = 10;
const PER_ROUND: usize = 100;

async fn fixture(url: &str) -> (Board, WorkspaceId, ColumnId) {
    let board = Board::open(url).await.expect("open");
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Bench").expect("name"))
        .await
        .expect("workspace")
        .id;
    let columns = board
        .list_columns(&Actor::Operator, Some(&SetQuery::workspace(ws.clone())))
        .await
        .expect("columns");
    let column = columns[0].id.clone();
    let id = if url.starts_with("sqlite") {
        "printf('b%023d', i)"
    } else {
        "'b' || lpad(i::text, 23, '0')"
    };
    // 10,000 cards 65,536 apart, as migration 0009 leaves a column.
    let sql = format!(
        "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, \
                            created_at, updated_at, history_seq) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $3) \
         SELECT {id}, $1, NULL, $2, 'card', i * 65536, \
                '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 0 FROM n"
    );
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(url).await.expect("pool");
    sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(ws.as_str())
        .bind(column.as_str())
        .bind(CARDS)
        .execute(&pool)
        .await
        .expect("cards");
    pool.close().await;
    (board, ws, column)
}

/// Mean time of one creation per kind, over every round.
async fn run(url: &str) {
    let (board, ws, column) = fixture(url).await;
    let title = Name::parse("placed").expect("a title");
    let kinds = ["append (reference)", "top", "end", "between", "same place"];
    let mut spent = [Duration::ZERO; 5];
    let mut n = 0;
    for _ in 0..ROUNDS {
        for (k, total) in spent.iter_mut().enumerate() {
            for _ in 0..PER_ROUND {
                n += 1;
                let placement = match k {
                    0 => None,
                    1 => Some(Placement::Top),
                    2 => Some(Placement::Bottom),
                    // A different anchor each time, spread over the column.
                    3 => {
                        let i = (n * 7_919) % CARDS as usize + 1;
                        let anchor = CardId::parse(&format!("b{i:023}")).expect("an id");
                        Some(Placement::After(anchor))
                    }
                    _ => Some(Placement::After(
                        CardId::parse(&format!("b{:023}", CARDS / 2)).expect("an id"),
                    )),
                };
                let new = NewCard::new(ws.clone(), title.clone())
                    .in_column(Some(column.clone()))
                    .placed(placement);
                let started = Instant::now();
                board
                    .create_card(&Actor::Operator, new)
                    .await
                    .expect("create");
                *total += started.elapsed();
            }
        }
    }
    let each = |d: Duration| d.as_secs_f64() * 1000.0 / (ROUNDS * PER_ROUND) as f64;
    let reference = each(spent[0]);
    let backend = url.split(':').next().unwrap_or("?");
    println!(
        "{backend}: {} creations of each kind into a column of {CARDS} cards",
        ROUNDS * PER_ROUND
    );
    for (kind, total) in kinds.iter().zip(spent) {
        println!(
            "  {kind:<20} {:>7.3} ms each, {:.2}× the append",
            each(total),
            each(total) / reference
        );
    }
    println!(
        "  top / end: {:.2}× (contract: at most 2×)",
        each(spent[1]) / each(spent[2])
    );
    board.close().await;
}

#[tokio::main]
async fn main() {
    let dir = std::env::temp_dir().join(format!("board-bench-place-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp folder");
    run(&format!("sqlite://{}/place.db", dir.display())).await;
    if let Some(url) = std::env::args().nth(1) {
        run(&url).await;
    }
    std::fs::remove_dir_all(&dir).ok();
}
