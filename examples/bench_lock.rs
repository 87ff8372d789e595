//! What advancing a version in the lock statement costs a write (api.md §22,
//! `WriteTx::lock`): the same transaction (begin, lock one parent row, insert
//! one child row, commit) from 32 tasks, with the lock as it was (`SELECT …
//! FOR NO KEY UPDATE`) and as it is (`UPDATE … SET version = version + 1 WHERE
//! key IN (SELECT … FOR NO KEY UPDATE) RETURNING …`), alternated in one run:
//!
//! ```text
//! cargo run --example bench_lock                          # SQLite (a temp file)
//! cargo run --example bench_lock -- postgres://…/EMPTY_DB # PostgreSQL
//! ```
//!
//! Two shapes: the parents spread over 32 rows (comments on 32 cards: writers
//! of different rows) and one hot row (moves in one board: every writer queues
//! on the set's lock). Prints transactions per second and the ratio.

use std::sync::Arc;
use std::time::Instant;

use sqlx::any::AnyPoolOptions;
use sqlx::AnyPool;
use tokio::sync::Mutex;

const TASKS: usize = 32;
const TXS: usize = 3_000;

#[derive(Clone, Copy)]
enum Lock {
    Select,
    Bump,
}

async fn run(pool: &AnyPool, sqlite: bool, lock: Lock, rows: usize) -> f64 {
    let queue = Arc::new(Mutex::new(()));
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..TASKS {
        let (pool, queue, next) = (pool.clone(), queue.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= TXS {
                    break;
                }
                let parent = format!("p{}", i % rows);
                // SQLite: the process's writers queue, as `WriteQueue` does.
                let _turn = match sqlite {
                    true => Some(queue.lock().await),
                    false => None,
                };
                let mut c = pool.acquire().await.unwrap();
                let begin = if sqlite { "BEGIN IMMEDIATE" } else { "BEGIN" };
                sqlx::raw_sql(begin).execute(&mut *c).await.unwrap();
                let suffix = if sqlite { "" } else { " FOR NO KEY UPDATE" };
                let sql = match lock {
                    Lock::Select => {
                        format!("SELECT id FROM parents WHERE id IN ($1) ORDER BY id{suffix}")
                    }
                    Lock::Bump => format!(
                        "UPDATE parents SET version = version + 1 WHERE id IN \
                         (SELECT id FROM parents WHERE id IN ($1) ORDER BY id{suffix}) \
                         RETURNING id, version - 1 AS version"
                    ),
                };
                let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
                    .bind(&parent)
                    .fetch_all(&mut *c)
                    .await
                    .unwrap();
                assert_eq!(rows.len(), 1);
                sqlx::query("INSERT INTO children (id, parent_id) VALUES ($1, $2)")
                    .bind(format!("c{i}-{}", lock as u8))
                    .bind(&parent)
                    .execute(&mut *c)
                    .await
                    .unwrap();
                sqlx::raw_sql("COMMIT").execute(&mut *c).await.unwrap();
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
    TXS as f64 / start.elapsed().as_secs_f64()
}

#[tokio::main]
async fn main() {
    sqlx::any::install_default_drivers();
    let dir = std::env::temp_dir().join(format!("bench-lock-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("sqlite://{}/b.db?mode=rwc", dir.display()));
    let sqlite = url.starts_with("sqlite:");
    let pool = AnyPoolOptions::new()
        .max_connections(TASKS as u32)
        .connect(&url)
        .await
        .unwrap();
    if sqlite {
        for p in ["PRAGMA journal_mode = WAL", "PRAGMA synchronous = NORMAL"] {
            sqlx::raw_sql(p).execute(&pool).await.unwrap();
        }
    }
    for sql in [
        "DROP TABLE IF EXISTS children",
        "DROP TABLE IF EXISTS parents",
        "CREATE TABLE parents (id TEXT PRIMARY KEY, name TEXT NOT NULL, version BIGINT NOT NULL DEFAULT 0)",
        "CREATE TABLE children (id TEXT PRIMARY KEY, parent_id TEXT NOT NULL REFERENCES parents (id))",
    ] {
        sqlx::raw_sql(sql).execute(&pool).await.unwrap();
    }
    for i in 0..TASKS {
        sqlx::query("INSERT INTO parents (id, name) VALUES ($1, 'x')")
            .bind(format!("p{i}"))
            .execute(&pool)
            .await
            .unwrap();
    }
    println!("{} tasks, {TXS} transactions a run; A = SELECT … FOR NO KEY UPDATE, B = UPDATE … version + 1", TASKS);
    for (shape, rows) in [("32 parent rows", TASKS), ("one hot parent row", 1)] {
        let mut a = Vec::new();
        let mut b = Vec::new();
        for _ in 0..2 {
            a.push(run(&pool, sqlite, Lock::Select, rows).await);
            b.push(run(&pool, sqlite, Lock::Bump, rows).await);
            sqlx::raw_sql("DELETE FROM children")
                .execute(&pool)
                .await
                .unwrap();
        }
        let (a, b) = (a.iter().sum::<f64>() / 2.0, b.iter().sum::<f64>() / 2.0);
        println!(
            "{shape:<20} A {a:>7.0} tx/s   B {b:>7.0} tx/s   B/A {:.2}",
            b / a
        );
    }
    pool.close().await;
    std::fs::remove_dir_all(&dir).ok();
}
