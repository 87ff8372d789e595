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

/// The workspace `w` and its tenant set `s`, the start of every upgrade's rows.
const SET: &str = "INSERT INTO workspaces VALUES ('w', 'W', 'x'); \
     INSERT INTO column_sets (id, workspace_id, project_id, created_at) VALUES ('s', 'w', NULL, 'x');";

/// A database at the migrations before `from`, with `rows` written then, and
/// upgraded by `from` and every later migration, as an upgrade runs them.
async fn upgraded(
    backend: common::Backend,
    from: &str,
    rows: &str,
) -> (common::TestDb, sqlx::AnyPool) {
    let db = common::TestDb::new(backend).await;
    let (folder, url) = match backend {
        common::Backend::Sqlite => ("sqlite", format!("{}?mode=rwc", db.url)),
        common::Backend::Postgres => ("postgres", db.url.clone()),
    };
    sqlx::any::install_default_drivers();
    let pool = sqlx::any::AnyPoolOptions::new()
        .max_connections(1)
        .connect(&url)
        .await
        .unwrap();
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("migrations")
        .join(folder);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let (before, after): (Vec<_>, Vec<_>) = files
        .iter()
        .partition(|f| *f.file_name().unwrap().to_str().unwrap() < *from);
    let run = |sql: String| {
        let pool = pool.clone();
        async move {
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(&pool)
                .await
                .unwrap()
        }
    };
    for f in before {
        run(std::fs::read_to_string(f).unwrap()).await;
    }
    run(rows.to_string()).await;
    assert!(
        after[0]
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .starts_with(from),
        "{after:?}"
    );
    for f in after {
        run(std::fs::read_to_string(f).unwrap()).await;
    }
    (db, pool)
}

/// Migrations 0005's and 0008's backfills on rows written before them, then
/// the foreign keys that null a deleted column's id.
async fn history_backfill(backend: common::Backend) {
    // To do, Doing twice (ambiguous), Done (done); the card sits in Done and
    // passed through Review, a column deleted since.
    let (_db, pool) = upgraded(
        backend,
        "0005",
        &format!(
            "{SET} INSERT INTO columns VALUES ('c1', 's', 'To do', 'slate', 0, 0, 'x'), \
             ('c2', 's', 'Doing', 'blue', 1, 0, 'x'), ('c3', 's', 'Done', 'green', 2, 1, 'x'), \
             ('c4', 's', 'Doing', 'red', 3, 0, 'x'); \
         INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) \
             VALUES ('k', 'w', NULL, 'c3', 't', 0, 'x', 'x'); \
         INSERT INTO history (id, card_id, seq, from_name, to_name, moved_at) VALUES \
             ('h1', 'k', 1, NULL, 'To do', 'a'), ('h2', 'k', 2, 'To do', 'Doing', 'b'), \
             ('h3', 'k', 3, 'Doing', 'Review', 'c'), ('h4', 'k', 4, 'Review', 'Done', 'd')"
        ),
    )
    .await;
    let run = |sql: &'static str| {
        let pool = pool.clone();
        async move { sqlx::raw_sql(sql).execute(&pool).await.unwrap() }
    };
    // Each entry: (to_column_id, to_done) of 0005, and (from_column_id,
    // from_at) of 0008: the visit it ends, as its predecessor knows it.
    type Entry = (Option<String>, Option<i64>, Option<String>, Option<String>);
    let rows = || async {
        let rows: Vec<Entry> = sqlx::query_as(
            "SELECT to_column_id, to_done, from_column_id, from_at FROM history ORDER BY seq",
        )
        .fetch_all(&pool)
        .await
        .unwrap();
        rows
    };
    let text = |s: &str| Some(s.to_string());
    let entry = |to: Option<&str>, done, from: Option<&str>, at: Option<&str>| -> Entry {
        (
            to.and_then(text),
            done,
            from.and_then(text),
            at.and_then(text),
        )
    };
    assert_eq!(
        rows().await,
        [
            entry(Some("c1"), Some(0), None, None),
            entry(None, None, Some("c1"), Some("a")),
            entry(None, None, None, Some("b")),
            entry(Some("c3"), Some(1), None, Some("c")),
        ]
    );
    run("DELETE FROM columns WHERE id = 'c1'").await;
    let after = rows().await;
    assert_eq!(
        after[0],
        entry(None, Some(0), None, None),
        "a deleted column's id becomes null"
    );
    assert_eq!(
        after[1],
        entry(None, None, None, Some("a")),
        "in the visit it ended too"
    );
    pool.close().await;
}

testkit::on_both_backends! {
    async fn migrations_0005_and_0008_backfill_what_they_can_know(backend) {
        history_backfill(backend).await;
    }

    // Migration 0009 (api.md §16): each column's cards keep their order
    // (position, then creation, then id; duplicates were possible before) and
    // take positions 65,536 apart; then two cards on one position of a
    // column are refused by `cards_position`.
    async fn migration_0009_spaces_positions_in_order_and_makes_them_unique(backend) {
        let (_db, pool) = upgraded(
            backend,
            "0009",
            &format!(
                "{SET} INSERT INTO columns VALUES ('c1', 's', 'To do', 'slate', 0, 0, 'x'), \
                 ('c2', 's', 'Done', 'green', 1, 1, 'x'); \
             INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) VALUES \
                 ('k1', 'w', NULL, 'c1', 't', 7, 'b', 'x'), ('k2', 'w', NULL, 'c1', 't', 3, 'z', 'x'), \
                 ('k3', 'w', NULL, 'c1', 't', 7, 'a', 'x'), ('k4', 'w', NULL, 'c1', 't', 7, 'a', 'x'), \
                 ('k5', 'w', NULL, 'c2', 't', 0, 'x', 'x')"
            ),
        )
        .await;
        let rows: Vec<(String, String, i64)> =
            sqlx::query_as("SELECT column_id, id, position FROM cards ORDER BY column_id, position")
                .fetch_all(&pool)
                .await
                .unwrap();
        let row = |c: &str, k: &str, p: i64| (c.to_string(), k.to_string(), p);
        assert_eq!(
            rows,
            [
                row("c1", "k2", 65536),
                row("c1", "k3", 2 * 65536),
                row("c1", "k4", 3 * 65536),
                row("c1", "k1", 4 * 65536),
                row("c2", "k5", 65536),
            ]
        );
        let twice = sqlx::raw_sql("UPDATE cards SET position = 65536 WHERE id = 'k3'")
            .execute(&pool)
            .await;
        assert!(twice.is_err(), "cards_position refuses a second card on one position");
        pool.close().await;
    }

    // Migration 0017 (issue 32): the search index's rows written before it
    // stay, under the same key and word index, and the index keeps no key to
    // `cards` (a card's deletion removes its words itself, search/index.rs).
    async fn migration_0017_keeps_the_search_index_and_drops_its_key(backend) {
        let (_db, pool) = upgraded(
            backend,
            "0017",
            "INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', 'x'); \
             INSERT INTO column_sets (id, workspace_id, project_id, created_at) VALUES ('s', 'w', NULL, 'x'); \
             INSERT INTO columns (id, set_id, name, accent, position, done, created_at) \
                 VALUES ('c1', 's', 'To do', 'slate', 0, 0, 'x'); \
             INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) \
                 VALUES ('k', 'w', NULL, 'c1', 'alpha beta', 65536, 'x', 'x'); \
             INSERT INTO search_terms (doc_id, word, workspace_id, card_id) VALUES \
                 ('k', 'alpha', 'w', 'k'), ('k', 'beta', 'w', 'k')",
        )
        .await;
        let words: Vec<(String, String)> =
            sqlx::query_as("SELECT doc_id, word FROM search_terms WHERE workspace_id = 'w' ORDER BY word")
                .fetch_all(&pool)
                .await
                .unwrap();
        let row = |d: &str, w: &str| (d.to_string(), w.to_string());
        assert_eq!(words, [row("k", "alpha"), row("k", "beta")], "the rows are kept");
        let twice = sqlx::raw_sql("INSERT INTO search_terms VALUES ('k', 'beta', 'w', 'k')")
            .execute(&pool)
            .await;
        assert!(twice.is_err(), "the primary key (doc_id, word) is kept");
        sqlx::raw_sql("INSERT INTO search_terms VALUES ('d', 'gamma', 'w', 'no card')")
            .execute(&pool)
            .await
            .expect("no foreign key to cards");
        pool.close().await;
    }

    // Migration 0020 (issue 65): the counts of the cards written before it are
    // filled (a loose comment upload does not count), and kept from then on.
    async fn migration_0020_fills_the_counts_of_existing_cards(backend) {
        let (_db, pool) = upgraded(
            backend,
            "0020",
            "INSERT INTO workspaces (id, name, created_at) VALUES ('w', 'W', 'x'); \
             INSERT INTO column_sets (id, workspace_id, project_id, created_at) VALUES ('s', 'w', NULL, 'x'); \
             INSERT INTO columns (id, set_id, name, accent, position, done, created_at) \
                 VALUES ('c1', 's', 'To do', 'slate', 0, 0, 'x'); \
             INSERT INTO cards (id, workspace_id, project_id, column_id, title, position, created_at, updated_at) \
                 VALUES ('k', 'w', NULL, 'c1', 'Busy', 65536, 'x', 'x'), ('e', 'w', NULL, 'c1', 'Empty', 131072, 'x', 'x'); \
             INSERT INTO comments (id, card_id, seq, content, created_at, updated_at) \
                 VALUES ('m1', 'k', 1, 'a', 'x', 'x'), ('m2', 'k', 2, 'b', 'x', 'x'), ('m3', 'k', 3, 'c', 'x', 'x'); \
             INSERT INTO attachments (id, card_id, comment_id, scope, stored_name, original_name, mime_type, size, created_at) \
                 VALUES ('f1', 'k', NULL, 'CARD', 's1', 'a.png', 'image/png', 1, 'x'), \
                        ('f2', 'k', 'm1', 'COMMENT', 's2', 'b.png', 'image/png', 1, 'x'), \
                        ('f3', 'k', NULL, 'COMMENT', 's3', 'c.png', 'image/png', 1, 'x'); \
             INSERT INTO checklist_items (id, card_id, text, done, position, created_at) \
                 VALUES ('i1', 'k', 'one', 1, 1, 'x'), ('i2', 'k', 'two', 1, 2, 'x'), ('i3', 'k', 'three', 0, 3, 'x')",
        )
        .await;
        let counts = |card: &'static str| {
            let pool = pool.clone();
            async move {
                let row: (i64, i64, i64, i64) = sqlx::query_as(
                    "SELECT CAST(SUM(comments) AS BIGINT), CAST(SUM(attachments) AS BIGINT), \
                            CAST(SUM(items) AS BIGINT), CAST(SUM(items_done) AS BIGINT) \
                     FROM card_counts WHERE card_id = $1",
                )
                .bind(card)
                .fetch_one(&pool)
                .await
                .unwrap();
                row
            }
        };
        assert_eq!(counts("k").await, (3, 2, 3, 2));
        assert_eq!(counts("e").await, (0, 0, 0, 0));
        sqlx::raw_sql(
            "INSERT INTO comments (id, card_id, seq, content, created_at, updated_at) \
                 VALUES ('m4', 'e', 1, 'd', 'x', 'x'); \
             UPDATE attachments SET comment_id = 'm2' WHERE id = 'f3'; \
             UPDATE checklist_items SET done = 0 WHERE id = 'i1'",
        )
        .execute(&pool)
        .await
        .unwrap();
        assert_eq!(counts("k").await, (3, 3, 3, 1), "kept from then on");
        assert_eq!(counts("e").await, (1, 0, 0, 0));
        pool.close().await;
    }
}
