//! The two migration folders must produce the same tables, columns and indexes.

use std::collections::BTreeSet;

use sqlx::{Connection, PgConnection, Row, SqliteConnection};
use testkit as common;

type Shape = (
    BTreeSet<(String, String, bool)>,
    BTreeSet<(String, String, bool)>,
);

/// (table, column, not-null) and (table, index, unique) of a SQLite database.
async fn sqlite_shape(url: &str) -> Shape {
    let mut conn = SqliteConnection::connect(url).await.unwrap();
    let tables: Vec<String> = sqlx::query_scalar(
        "SELECT name FROM sqlite_master WHERE type = 'table' \
         AND name NOT LIKE 'sqlite_%' AND name NOT LIKE '_sqlx%'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    let (mut columns, mut indexes) = (BTreeSet::new(), BTreeSet::new());
    for t in tables {
        let sql = format!("SELECT name, \"notnull\", pk FROM pragma_table_info('{t}')");
        for r in sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(&mut conn)
            .await
            .unwrap()
        {
            let notnull: i64 = r.get(1);
            let pk: i64 = r.get(2);
            columns.insert((t.clone(), r.get::<String, _>(0), notnull == 1 || pk > 0));
        }
        let sql = format!("SELECT name, \"unique\", origin FROM pragma_index_list('{t}')");
        for r in sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_all(&mut conn)
            .await
            .unwrap()
        {
            let origin: String = r.get(2);
            if origin == "c" {
                let unique: i64 = r.get(1);
                indexes.insert((t.clone(), r.get::<String, _>(0), unique == 1));
            }
        }
    }
    (columns, indexes)
}

async fn postgres_shape(url: &str) -> Shape {
    let mut conn = PgConnection::connect(url).await.unwrap();
    let (mut columns, mut indexes) = (BTreeSet::new(), BTreeSet::new());
    let rows = sqlx::query(
        "SELECT table_name::text, column_name::text, is_nullable::text FROM information_schema.columns \
         WHERE table_schema = 'public' AND table_name NOT LIKE '\\_sqlx%'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    for r in rows {
        let nullable: String = r.get(2);
        columns.insert((r.get(0), r.get(1), nullable == "NO"));
    }
    let rows = sqlx::query(
        "SELECT t.relname::text, i.relname::text, x.indisunique FROM pg_index x \
         JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_class t ON t.oid = x.indrelid \
         JOIN pg_namespace n ON n.oid = t.relnamespace \
         WHERE n.nspname = 'public' AND NOT x.indisprimary AND t.relname NOT LIKE '\\_sqlx%'",
    )
    .fetch_all(&mut conn)
    .await
    .unwrap();
    for r in rows {
        indexes.insert((r.get(0), r.get(1), r.get(2)));
    }
    (columns, indexes)
}

#[tokio::test]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn both_migration_folders_give_the_same_schema() {
    let lite = common::TestDb::new(common::Backend::Sqlite).await;
    let pg = common::TestDb::new(common::Backend::Postgres).await;
    for db in [&lite, &pg] {
        // What `board init` does: open (create) and migrate.
        db.open().await.close().await;
    }
    let (lite_cols, lite_idx) = sqlite_shape(&lite.url).await;
    let (pg_cols, pg_idx) = postgres_shape(&pg.url).await;
    assert!(lite_cols.len() > 40, "{lite_cols:?}");
    assert!(lite_idx
        .iter()
        .any(|(_, name, unique)| name == "relations_pair" && *unique));
    assert_eq!(lite_cols, pg_cols, "tables and columns differ");
    assert_eq!(lite_idx, pg_idx, "indexes differ");
}

#[test]
fn replaces_the_database_of_a_url() {
    assert_eq!(
        common::replace_database("postgres://postgres@127.0.0.1:5432/test", "x"),
        "postgres://postgres@127.0.0.1:5432/x"
    );
    assert_eq!(
        common::replace_database("postgres://h/test?sslmode=disable", "x"),
        "postgres://h/x?sslmode=disable"
    );
}
