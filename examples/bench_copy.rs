//! Benchmark of issue 17: `Admin::copy_to` from SQLite to PostgreSQL of 10,000
//! cards, 1,000,000 history rows and 50,000 comments, next to a raw bulk
//! insert of the same rows (read into memory first, then multi-row `INSERT`s
//! of the same size in one transaction) into another fresh database, in the
//! same run.
//!
//! `cargo run --release --example bench_copy -- [postgres://…/postgres]`
//! (default `$BOARD_TEST_POSTGRES_URL`): the server on which two databases
//! are created and dropped. The source is a SQLite file in the temp folder.

use std::time::Instant;

use board_core::{Actor, Board, Name, Options, SetQuery, TransferOptions};
use sqlx::any::AnyRow;
use sqlx::{AnyPool, Row};

const CARDS: i64 = 10_000;
const HISTORY_PER_CARD: i64 = 100;
const COMMENTS_PER_CARD: i64 = 5;
const MAX_PARAMS: usize = 32_766;

/// The tables the raw insert carries, with each column's kind (T text, I integer).
const PARENTS: &[(&str, &[(&str, char)])] = &[
    (
        "workspaces",
        &[("id", 'T'), ("name", 'T'), ("created_at", 'T')],
    ),
    (
        "column_sets",
        &[
            ("id", 'T'),
            ("workspace_id", 'T'),
            ("project_id", 'T'),
            ("created_at", 'T'),
        ],
    ),
    (
        "columns",
        &[
            ("id", 'T'),
            ("set_id", 'T'),
            ("name", 'T'),
            ("accent", 'T'),
            ("position", 'I'),
            ("done", 'I'),
            ("created_at", 'T'),
        ],
    ),
];
const BIG: &[(&str, &[(&str, char)])] = &[
    (
        "cards",
        &[
            ("id", 'T'),
            ("workspace_id", 'T'),
            ("project_id", 'T'),
            ("column_id", 'T'),
            ("title", 'T'),
            ("position", 'I'),
            ("created_at", 'T'),
            ("updated_at", 'T'),
            ("history_seq", 'I'),
        ],
    ),
    (
        "history",
        &[
            ("id", 'T'),
            ("card_id", 'T'),
            ("seq", 'I'),
            ("from_name", 'T'),
            ("to_name", 'T'),
            ("moved_at", 'T'),
        ],
    ),
    (
        "comments",
        &[
            ("id", 'T'),
            ("card_id", 'T'),
            ("seq", 'I'),
            ("content", 'T'),
            ("author_id", 'T'),
            ("created_at", 'T'),
            ("updated_at", 'T'),
        ],
    ),
];

#[derive(Clone)]
enum V {
    T(Option<String>),
    I(Option<i64>),
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let admin = std::env::args()
        .nth(1)
        .or_else(|| std::env::var("BOARD_TEST_POSTGRES_URL").ok())
        .ok_or("give a postgres:// URL (or set BOARD_TEST_POSTGRES_URL)")?;
    sqlx::any::install_default_drivers();
    let dir = std::env::temp_dir().join(format!("board-bench-copy-{}", std::process::id()));
    let source_url = format!("sqlite://{}/board.db", dir.display());
    let source = open(&source_url, &dir).await?;
    let started = Instant::now();
    fill(&source, &source_url).await?;
    println!("filled the SQLite source in {:.1?}", started.elapsed());

    let admin_pool = AnyPool::connect(&admin).await?;
    let suffix = std::process::id();
    let (copy_db, raw_db) = (
        format!("bench_copy_{suffix}"),
        format!("bench_raw_{suffix}"),
    );
    for db in [&copy_db, &raw_db] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!("CREATE DATABASE {db}")))
            .execute(&admin_pool)
            .await?;
    }
    let result = compare(
        &source,
        &dir,
        &database(&admin, &copy_db),
        &database(&admin, &raw_db),
    )
    .await;
    for db in [&copy_db, &raw_db] {
        sqlx::raw_sql(sqlx::AssertSqlSafe(format!(
            "DROP DATABASE IF EXISTS {db} WITH (FORCE)"
        )))
        .execute(&admin_pool)
        .await?;
    }
    source.close().await;
    std::fs::remove_dir_all(&dir).ok();
    result
}

async fn compare(
    source: &Board,
    dir: &std::path::Path,
    copy_url: &str,
    raw_url: &str,
) -> Result<(), Box<dyn std::error::Error>> {
    // The raw insert: rows read into memory (not timed), then inserted.
    let sqlite = AnyPool::connect(&format!("sqlite://{}/board.db", dir.display())).await?;
    let raw_target = open(raw_url, dir).await?;
    raw_target.close().await;
    let raw = AnyPool::connect(raw_url).await?;
    let mut parents = Vec::new();
    for (table, cols) in PARENTS {
        parents.push(read(&sqlite, table, cols).await?);
    }
    let mut big = Vec::new();
    for (table, cols) in BIG {
        big.push(read(&sqlite, table, cols).await?);
    }
    let rows: usize = big.iter().map(Vec::len).sum();
    let mut tx = raw.begin().await?;
    for ((table, cols), rows) in PARENTS.iter().zip(&parents) {
        insert(&mut tx, table, cols, rows).await?;
    }
    let started = Instant::now();
    for ((table, cols), rows) in BIG.iter().zip(&big) {
        insert(&mut tx, table, cols, rows).await?;
    }
    tx.commit().await?;
    let raw_time = started.elapsed();
    println!("raw bulk insert of {rows} rows (cards, history, comments): {raw_time:.2?}");

    let target = open(copy_url, dir).await?;
    let started = Instant::now();
    let report = source
        .admin()
        .copy_to(&target, &TransferOptions::default())
        .await?;
    let copy_time = started.elapsed();
    println!(
        "board copy, SQLite → PostgreSQL, {} cards, {} history rows, {} comments (every table): {copy_time:.2?}",
        report.rows("cards"),
        report.rows("history"),
        report.rows("comments")
    );
    println!(
        "copy / raw insert: {:.2}×",
        copy_time.as_secs_f64() / raw_time.as_secs_f64()
    );
    target.close().await;
    raw.close().await;
    sqlite.close().await;
    Ok(())
}

async fn open(url: &str, dir: &std::path::Path) -> board_core::Result<Board> {
    let mut options = Options::new(url);
    options.files_dir = dir.join("files");
    Board::open_with(options).await
}

/// `postgres://…/NAME`
fn database(admin: &str, name: &str) -> String {
    let (base, _) = admin.rsplit_once('/').expect("a URL with a database");
    format!("{base}/{name}")
}

/// A workspace with 10,000 cards, 100 history rows and 5 comments each.
async fn fill(board: &Board, url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Bench")?)
        .await?;
    let columns = board
        .list_columns(&Actor::Operator, Some(&SetQuery::workspace(ws.id.clone())))
        .await?;
    let pool = AnyPool::connect(url).await?;
    let at = "2026-01-01T00:00:00.000Z";
    sqlx::query(
        "INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, \
         updated_at, history_seq) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $4) \
         SELECT printf('c%023d', i), $1, NULL, $2, 'Card ' || i, i, $3, $3, $5 FROM n",
    )
    .bind(ws.id.as_str())
    .bind(columns[0].id.as_str())
    .bind(at)
    .bind(CARDS)
    .bind(HISTORY_PER_CARD)
    .execute(&pool)
    .await?;
    sqlx::query(
        "INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) \
         SELECT 'h' || substr(c.id, 8, 17) || printf('%06d', n.i), c.id, n.i, \
                CASE WHEN n.i = 1 THEN NULL ELSE 'Doing' END, 'To do', $1 \
         FROM cards c CROSS JOIN n",
    )
    .bind(at)
    .bind(HISTORY_PER_CARD)
    .execute(&pool)
    .await?;
    sqlx::query(
        "INSERT INTO comments (id, card_id, seq, content, author_id, created_at, updated_at) \
         WITH RECURSIVE n (i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $2) \
         SELECT 'm' || substr(c.id, 8, 17) || printf('%06d', n.i), c.id, n.i, \
                'A comment of a few words, as people write them: ' || n.i, NULL, $1, $1 \
         FROM cards c CROSS JOIN n",
    )
    .bind(at)
    .bind(COMMENTS_PER_CARD)
    .execute(&pool)
    .await?;
    pool.close().await;
    Ok(())
}

async fn read(pool: &AnyPool, table: &str, cols: &[(&str, char)]) -> sqlx::Result<Vec<Vec<V>>> {
    let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    let sql = format!("SELECT {} FROM {table}", names.join(", "));
    let rows: Vec<AnyRow> = sqlx::query(sqlx::AssertSqlSafe(sql))
        .fetch_all(pool)
        .await?;
    rows.iter()
        .map(|r| {
            cols.iter()
                .enumerate()
                .map(|(i, (_, kind))| {
                    Ok(match kind {
                        'I' => V::I(r.try_get(i)?),
                        _ => V::T(r.try_get(i)?),
                    })
                })
                .collect()
        })
        .collect()
}

async fn insert(
    tx: &mut sqlx::Transaction<'_, sqlx::Any>,
    table: &str,
    cols: &[(&str, char)],
    rows: &[Vec<V>],
) -> sqlx::Result<()> {
    let names: Vec<&str> = cols.iter().map(|c| c.0).collect();
    for chunk in rows.chunks(MAX_PARAMS / cols.len()) {
        let mut sql = format!("INSERT INTO {table} ({}) VALUES ", names.join(", "));
        let mut n = 0;
        for r in 0..chunk.len() {
            let values: Vec<String> = (0..cols.len())
                .map(|_| {
                    n += 1;
                    format!("${n}")
                })
                .collect();
            if r > 0 {
                sql.push_str(", ");
            }
            sql.push_str(&format!("({})", values.join(", ")));
        }
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for row in chunk {
            for v in row {
                q = match v {
                    V::T(s) => q.bind(s.clone()),
                    V::I(i) => q.bind(*i),
                };
            }
        }
        q.execute(&mut **tx).await?;
    }
    Ok(())
}
