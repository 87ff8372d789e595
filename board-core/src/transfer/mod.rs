//! Moving an installation (api.md §15): [`crate::Admin::copy_to`] copies every
//! row (and, when asked, every stored file) into another, empty database of
//! either backend; `export.rs` writes and reads the same content as JSON Lines.
//!
//! Nothing here names a column: the tables come from [`TABLES`] (foreign-key
//! order), their columns from the source's and the target's catalogs at run
//! time, which must agree, as must the migration versions. Rows are read from
//! one snapshot of the source and written in one transaction on the target,
//! in multi-row `INSERT`s of up to [`MAX_PARAMS`] bound values.

mod catalog;
mod export;
mod previous;

use std::time::Duration;

use serde::ser::SerializeMap;
use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row as _};
use tokio::io::AsyncWriteExt;
use tokio::sync::mpsc;

use crate::board::{Admin, Board};
use crate::error::{Error, Result};
use crate::store::{Backend, WriteTx};
use catalog::{ColumnKind, TableColumn};

pub use previous::EXPORT_FORMAT_VERSION;

/// Every table of the schema, parents before children (foreign-key order): the
/// order rows are copied, exported and imported in. A copy refuses a schema
/// with a table missing from this list, so a new table cannot be forgotten.
pub const TABLES: &[&str] = &[
    "workspaces",
    "settings",
    "projects",
    "accounts",
    "mail_preferences",
    "memberships",
    "tokens",
    "column_sets",
    "columns",
    "column_versions",
    "cards",
    "card_archives",
    "history",
    "comments",
    "attachments",
    "relations",
    "labels",
    "card_labels",
    "card_assignees",
    "checklist_items",
    "card_watches",
    "mail_batches",
    "notifications",
    "due_reminders",
    "trello_ids",
    "auth_failures",
    "invitations",
    "password_resets",
    "identities",
    "sso_states",
    "email_verifications",
    "event_log",
    "events",
    "webhooks",
    "webhook_deliveries",
    "search_terms",
    "search_state",
];

/// Tables the schema keeps from the rows of others, by triggers (migration
/// 0020: a card's counts; 0022: its commenters): a copy, export or import
/// never carries them; the target's triggers fill them as the carried rows go
/// in, so they are exact whatever the source held
/// ([`crate::Admin::check_counts`] compares the counts).
pub(crate) const KEPT: &[&str] = &["card_counts", "card_commenters"];

/// Tables whose rows the migrations themselves create (`event_log`'s counter
/// row, `search_state`'s folding row): they do not make a target "hold data",
/// and the copy replaces them.
const MIGRATION_ROWS: &[&str] = &["event_log", "search_state"];

/// The most values bound to one statement: SQLite's limit (32,766; PostgreSQL
/// allows 65,535).
pub(crate) const MAX_PARAMS: usize = 32_766;

/// The table whose rows name the stored files, and the column that does.
const FILES_TABLE: &str = "attachments";
const FILES_COLUMN: &str = "stored_name";

/// The rows of one table that a copy, export or import carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableCount {
    /// The table's name.
    pub table: String,
    /// Its rows.
    pub rows: u64,
}

/// What a copy, export or import carried: rows per table, in [`TABLES`]
/// order, and stored files. As JSON: `{"tables": {"cards": 3, …}, "files": 2}`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TransferReport {
    /// Rows per table.
    pub tables: Vec<TableCount>,
    /// Stored files copied (0 when files were not asked for).
    pub files: u64,
}

impl TransferReport {
    /// The rows of `table` (0 when it is not in the report).
    pub fn rows(&self, table: &str) -> u64 {
        self.tables
            .iter()
            .find(|t| t.table == table)
            .map_or(0, |t| t.rows)
    }
}

impl Serialize for TransferReport {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        struct Tables<'a>(&'a [TableCount]);
        impl Serialize for Tables<'_> {
            fn serialize<S: serde::Serializer>(
                &self,
                s: S,
            ) -> std::result::Result<S::Ok, S::Error> {
                let mut map = s.serialize_map(Some(self.0.len()))?;
                for t in self.0 {
                    map.serialize_entry(&t.table, &t.rows)?;
                }
                map.end()
            }
        }
        let mut map = s.serialize_map(Some(2))?;
        map.serialize_entry("tables", &Tables(&self.tables))?;
        map.serialize_entry("files", &self.files)?;
        map.end()
    }
}

/// How far a copy, export or import is, told to [`TransferOptions::progress`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransferProgress<'a> {
    /// `rows` rows of `table` are written so far.
    Rows {
        /// The table.
        table: &'a str,
        /// Rows written so far.
        rows: u64,
    },
    /// Every row of `table` is written.
    TableDone {
        /// The table.
        table: &'a str,
        /// Its rows.
        rows: u64,
    },
    /// `files` stored files are copied so far.
    Files {
        /// Files copied so far.
        files: u64,
    },
    /// Everything is written; the transaction waits this long before its
    /// commit (only when the test hook `BOARD_COPY_PAUSE_BEFORE_COMMIT` asks).
    Paused(Duration),
}

/// The choices of a copy, export or import.
#[derive(Default)]
pub struct TransferOptions<'a> {
    /// Copy the stored files too (a copy: into the target board's file store).
    /// Without it the target is meant to use the source's files location.
    /// Export and import always carry the files.
    pub copy_files: bool,
    /// Told how far the work is, from the task doing it.
    pub progress: Option<&'a (dyn Fn(TransferProgress<'_>) + Send + Sync)>,
}

impl std::fmt::Debug for TransferOptions<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TransferOptions")
            .field("copy_files", &self.copy_files)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

impl TransferOptions<'_> {
    fn tell(&self, p: TransferProgress<'_>) {
        if let Some(f) = self.progress {
            f(p);
        }
    }

    /// The test hook of an interrupted copy: with
    /// `BOARD_COPY_PAUSE_BEFORE_COMMIT=SECONDS` in the environment, waits that
    /// long after everything is written, before the commit (and says so to
    /// the progress). It changes nothing but the timing; it is not part of
    /// the API.
    async fn pause(&self) -> Result<()> {
        const VAR: &str = "BOARD_COPY_PAUSE_BEFORE_COMMIT";
        let Some(value) = std::env::var(VAR).ok().filter(|v| !v.is_empty()) else {
            return Ok(());
        };
        let seconds: f64 = value
            .parse()
            .ok()
            .filter(|s: &f64| s.is_finite() && *s >= 0.0)
            .ok_or_else(|| Error::Config(format!("{VAR}={value:?} is not a number of seconds")))?;
        let d = Duration::from_secs_f64(seconds);
        self.tell(TransferProgress::Paused(d));
        tokio::time::sleep(d).await;
        Ok(())
    }
}

/// One value of a row: the schema keeps only TEXT and integers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    Null,
    Int(i64),
    Text(String),
}

/// A row, its values in the order of its table's columns.
pub(crate) type Row = Vec<Value>;

/// The tables of a database, each with its columns, in [`TABLES`] order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Schema {
    /// The applied migration versions.
    pub(crate) versions: Vec<i64>,
    /// Per table of [`TABLES`], its columns.
    pub(crate) tables: Vec<Vec<TableColumn>>,
}

impl Schema {
    /// Reads the schema through `conn` and checks it against [`TABLES`].
    pub(crate) async fn read(conn: &mut AnyConnection, backend: Backend) -> Result<Schema> {
        let present = catalog::schema_tables(conn, backend).await?;
        let carried_or_kept =
            |t: &&String| TABLES.contains(&t.as_str()) || KEPT.contains(&t.as_str());
        if let Some(t) = present.iter().find(|t| !carried_or_kept(t)) {
            return Err(Error::Transfer(format!(
                "table {t} is in the schema but not in board-core's list of tables to move \
                 (transfer::TABLES); this version of board cannot move it"
            )));
        }
        if let Some(t) = TABLES.iter().find(|t| !present.iter().any(|p| p == *t)) {
            return Err(Error::Transfer(format!(
                "table {t} is missing from the database"
            )));
        }
        if catalog::sequence_count(conn, backend).await? > 0 {
            return Err(Error::Transfer(
                "the schema keeps a sequence other than events_seq and comments_seq, which \
                 a copy does not carry on"
                    .into(),
            ));
        }
        let mut tables = Vec::with_capacity(TABLES.len());
        for t in TABLES {
            tables.push(catalog::table_columns(conn, backend, t).await?);
        }
        Ok(Schema {
            versions: catalog::migration_versions(conn).await?,
            tables,
        })
    }

    /// The latest migration applied (0 for none).
    pub(crate) fn version(&self) -> i64 {
        self.versions.last().copied().unwrap_or(0)
    }

    /// Refuses a `target` at another migration version, or whose tables have
    /// other columns.
    pub(crate) fn check_target(&self, target: &Schema, what: &str) -> Result<()> {
        if self.versions != target.versions {
            return Err(Error::Transfer(format!(
                "the {what} is at migration version {}, the target at {}: \
                 run the same version of board on both",
                self.version(),
                target.version()
            )));
        }
        for (i, table) in TABLES.iter().enumerate() {
            let names = |cols: &[TableColumn]| {
                let mut n: Vec<(String, ColumnKind)> =
                    cols.iter().map(|c| (c.name.clone(), c.kind)).collect();
                n.sort();
                n
            };
            if names(&self.tables[i]) != names(&target.tables[i]) {
                return Err(Error::Transfer(format!(
                    "table {table} has other columns in the {what} than in the target"
                )));
            }
        }
        Ok(())
    }
}

/// A quoted SQL identifier (names come from the catalog, never from a user).
fn ident(name: &str) -> String {
    format!("\"{}\"", name.replace('"', "\"\""))
}

/// `SELECT` of every column of `table`, in `cols` order.
fn select_sql(table: &str, cols: &[TableColumn]) -> String {
    let list: Vec<String> = cols.iter().map(|c| ident(&c.name)).collect();
    format!("SELECT {} FROM {}", list.join(", "), ident(table))
}

/// Reads one row in `cols` order.
fn decode(row: &AnyRow, cols: &[TableColumn]) -> Result<Row> {
    cols.iter()
        .enumerate()
        .map(|(i, c)| {
            Ok(match c.kind {
                ColumnKind::Integer => row
                    .try_get::<Option<i64>, _>(i)?
                    .map_or(Value::Null, Value::Int),
                ColumnKind::Text => row
                    .try_get::<Option<String>, _>(i)?
                    .map_or(Value::Null, Value::Text),
            })
        })
        .collect()
}

/// Rows per `INSERT` for a table of `columns` columns.
pub(crate) fn rows_per_statement(columns: usize) -> usize {
    (MAX_PARAMS / columns.max(1)).max(1)
}

/// Inserts `rows` into `table` in as few multi-row statements as the bound
/// value limit allows (full statements share one text, so each is prepared once).
pub(crate) async fn insert_rows(
    conn: &mut AnyConnection,
    table: &str,
    cols: &[TableColumn],
    rows: &[Row],
) -> Result<()> {
    let names: Vec<String> = cols.iter().map(|c| ident(&c.name)).collect();
    for chunk in rows.chunks(rows_per_statement(cols.len())) {
        let mut sql = format!(
            "INSERT INTO {} ({}) VALUES ",
            ident(table),
            names.join(", ")
        );
        let mut n = 0;
        for (r, _) in chunk.iter().enumerate() {
            sql.push_str(if r == 0 { "(" } else { ", (" });
            for c in 0..cols.len() {
                n += 1;
                if c > 0 {
                    sql.push_str(", ");
                }
                sql.push_str(&format!("${n}"));
            }
            sql.push(')');
        }
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for row in chunk {
            for (v, c) in row.iter().zip(cols) {
                q = match (v, c.kind) {
                    (Value::Int(i), _) => q.bind(*i),
                    (Value::Text(s), _) => q.bind(s.clone()),
                    (Value::Null, ColumnKind::Integer) => q.bind(None::<i64>),
                    (Value::Null, ColumnKind::Text) => q.bind(None::<String>),
                };
            }
        }
        q.execute(&mut *conn).await?;
    }
    Ok(())
}

/// Refuses a target that holds data, and clears the rows its migrations
/// made (they are copied from the source instead). Inside the target's
/// write transaction, with every table locked against other writers until
/// the commit, so none fills it in between.
pub(crate) async fn prepare_target(tx: &mut WriteTx) -> Result<()> {
    tx.lock_tables(TABLES).await?;
    for table in TABLES.iter().filter(|t| !MIGRATION_ROWS.contains(t)) {
        let sql = format!("SELECT 1 AS one FROM {} LIMIT 1", ident(table));
        if sqlx::query(sqlx::AssertSqlSafe(sql))
            .fetch_optional(&mut **tx)
            .await?
            .is_some()
        {
            return Err(Error::Transfer(format!(
                "the target already holds data (table {table}): a copy or import only \
                 fills an empty database, such as one `board init` just created"
            )));
        }
    }
    for table in MIGRATION_ROWS {
        sqlx::query(sqlx::AssertSqlSafe(format!("DELETE FROM {}", ident(table))))
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Makes the target's counters continue after the copied values: the event
/// and comment seqs ([`WriteTx::continue_event_seqs`]). Every other counter
/// is a column (`cards.history_seq`) and was copied as is; the schema keeps
/// no other sequence ([`Schema::read`] refuses one).
pub(crate) async fn continue_counters(tx: &mut WriteTx) -> Result<()> {
    tx.continue_event_seqs().await
}

/// A batch of rows of the table at `table` (an index of [`TABLES`]).
struct Batch {
    table: usize,
    rows: Vec<Row>,
}

/// Reads every table of `schema` through `conn` (inside its snapshot) and
/// sends the rows in batches of one statement each; returns the stored file
/// names (the rows of [`FILES_TABLE`]).
async fn read_tables(
    conn: &mut AnyConnection,
    schema: &Schema,
    out: mpsc::Sender<Batch>,
) -> Result<Vec<String>> {
    use futures_util::TryStreamExt;
    let mut files = Vec::new();
    for (i, table) in TABLES.iter().enumerate() {
        let cols = &schema.tables[i];
        let file_col = (*table == FILES_TABLE)
            .then(|| cols.iter().position(|c| c.name == FILES_COLUMN))
            .flatten();
        let size = rows_per_statement(cols.len());
        let sql = select_sql(table, cols);
        let mut stream = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch(&mut *conn);
        let mut rows = Vec::with_capacity(size);
        while let Some(row) = stream.try_next().await? {
            let row = decode(&row, cols)?;
            if let Some(Value::Text(name)) = file_col.map(|c| &row[c]) {
                files.push(name.clone());
            }
            rows.push(row);
            if rows.len() == size {
                let full = std::mem::replace(&mut rows, Vec::with_capacity(size));
                if out
                    .send(Batch {
                        table: i,
                        rows: full,
                    })
                    .await
                    .is_err()
                {
                    return Ok(files); // the writer failed; its error is reported
                }
            }
        }
        if !rows.is_empty() && out.send(Batch { table: i, rows }).await.is_err() {
            return Ok(files);
        }
    }
    Ok(files)
}

/// Counts rows per table as batches go by, telling the progress.
struct Tally<'a> {
    counts: Vec<u64>,
    done: usize,
    options: &'a TransferOptions<'a>,
}

impl<'a> Tally<'a> {
    fn new(options: &'a TransferOptions<'a>) -> Self {
        Tally {
            counts: vec![0; TABLES.len()],
            done: 0,
            options,
        }
    }

    /// `rows` more rows of table `table` are written.
    fn add(&mut self, table: usize, rows: usize) {
        self.finish_until(table);
        self.counts[table] += rows as u64;
        self.options.tell(TransferProgress::Rows {
            table: TABLES[table],
            rows: self.counts[table],
        });
    }

    /// Every table before `table` is complete.
    fn finish_until(&mut self, table: usize) {
        while self.done < table {
            self.options.tell(TransferProgress::TableDone {
                table: TABLES[self.done],
                rows: self.counts[self.done],
            });
            self.done += 1;
        }
    }

    fn report(mut self, files: u64) -> TransferReport {
        self.finish_until(TABLES.len());
        TransferReport {
            tables: TABLES
                .iter()
                .zip(&self.counts)
                .map(|(t, n)| TableCount {
                    table: t.to_string(),
                    rows: *n,
                })
                .collect(),
            files,
        }
    }
}

/// Files written as temporaries of a store, published after the commit or
/// discarded when it does not come.
pub(crate) struct PendingFiles<'a> {
    board: &'a Board,
    names: Vec<String>,
}

impl<'a> PendingFiles<'a> {
    pub(crate) fn new(board: &'a Board) -> Self {
        PendingFiles {
            board,
            names: Vec::new(),
        }
    }

    /// Writes `name` as a temporary of the board's store from `reader`;
    /// returns the bytes written.
    pub(crate) async fn write(
        &mut self,
        name: &str,
        reader: &mut (dyn tokio::io::AsyncRead + Send + Unpin),
    ) -> Result<u64> {
        // A temporary of that name is what an interrupted copy left: the target
        // holds no row, so no file of it is live.
        self.board.store.discard(name).await?;
        let mut w = self.board.store.create_temp(name).await?;
        self.names.push(name.to_string());
        let n = tokio::io::copy(reader, &mut w).await?;
        w.shutdown().await?;
        Ok(n)
    }

    /// After the commit: the files become visible.
    pub(crate) async fn publish(self) -> Result<()> {
        for name in &self.names {
            self.board.store.publish(name).await?;
        }
        Ok(())
    }

    /// Without a commit: the temporaries go.
    pub(crate) async fn discard(self) {
        self.board.discard_files(&self.names).await;
    }
}

/// Commits `tx` (after the optional pause), then publishes `files`; without a
/// commit the temporaries are discarded.
pub(crate) async fn commit_with_files(
    tx: WriteTx,
    files: PendingFiles<'_>,
    options: &TransferOptions<'_>,
) -> Result<()> {
    options.pause().await?;
    match tx.commit().await {
        Ok(()) => files.publish().await,
        Err(e) => {
            files.discard().await;
            Err(e)
        }
    }
}

/// Ends the read transaction of [`Board::snapshot`] (a connection that
/// cannot end it is closed, never handed back inside a transaction).
async fn end_snapshot(mut conn: crate::store::Conn) {
    if sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await.is_err() {
        conn.close_on_drop();
    }
}

impl Board {
    /// A connection inside one read snapshot of the database.
    async fn snapshot(&self) -> Result<crate::store::Conn> {
        let mut conn = self.pool.acquire().await?;
        catalog::begin_snapshot(&mut conn, self.backend).await?;
        Ok(conn)
    }

    async fn copy_from_snapshot(
        &self,
        source: &mut AnyConnection,
        target: &Board,
        options: &TransferOptions<'_>,
    ) -> Result<TransferReport> {
        let schema = Schema::read(source, self.backend).await?;
        let mut tx = target.write_unlocked().await?;
        let target_schema = Schema::read(&mut tx, target.backend).await?;
        schema.check_target(&target_schema, "source")?;
        prepare_target(&mut tx).await?;

        let (send, mut receive) = mpsc::channel::<Batch>(4);
        let reader = read_tables(source, &schema, send);
        let mut tally = Tally::new(options);
        let writer = async {
            while let Some(batch) = receive.recv().await {
                let table = TABLES[batch.table];
                insert_rows(&mut tx, table, &schema.tables[batch.table], &batch.rows).await?;
                tally.add(batch.table, batch.rows.len());
            }
            Ok::<(), Error>(())
        };
        let (names, written) = tokio::join!(reader, writer);
        let names = names?;
        written?;
        continue_counters(&mut tx).await?;

        let mut files = PendingFiles::new(target);
        let copied = if options.copy_files {
            match self.copy_files(&names, &mut files, options).await {
                Ok(n) => n,
                Err(e) => {
                    files.discard().await;
                    return Err(e);
                }
            }
        } else {
            0
        };
        commit_with_files(tx, files, options).await?;
        Ok(tally.report(copied))
    }

    /// Copies the stored files `names` into `files`' store, as temporaries.
    async fn copy_files(
        &self,
        names: &[String],
        files: &mut PendingFiles<'_>,
        options: &TransferOptions<'_>,
    ) -> Result<u64> {
        for (i, name) in names.iter().enumerate() {
            let Some((mut reader, _)) = self.store.open(name).await? else {
                return Err(Error::Transfer(format!(
                    "stored file {name} of an attachment is missing from the source's files"
                )));
            };
            files.write(name, &mut reader).await?;
            options.tell(TransferProgress::Files {
                files: i as u64 + 1,
            });
        }
        Ok(names.len() as u64)
    }
}

/// Moving an installation (api.md §15) (the operator's side): the operations of `transfer/mod.rs`.
impl Admin<'_> {
    /// Copies the whole installation into `target`, a board on an empty
    /// database of either backend (api.md §15): every row of every table
    /// with its ids, times, token hashes and event seqs, and, with
    /// [`TransferOptions::copy_files`], every stored file into `target`'s file
    /// store.
    ///
    /// The source is read from one snapshot (writers may go on meanwhile); the
    /// target is written in one transaction, so a failed or interrupted copy
    /// leaves it empty and can simply be run again. Refused
    /// ([`Error::Transfer`]) when the target holds data or the two databases are
    /// at different migration versions.
    ///
    /// ```no_run
    /// # async fn f() -> board_core::Result<()> {
    /// use board_core::{Board, Options, TransferOptions};
    /// let source = Board::open("sqlite://board-data/board.db").await?;
    /// let mut to = Options::new("postgres://board@db.internal/board");
    /// to.files_dir = "/srv/board/files".into();
    /// let target = Board::open_with(to).await?;
    /// let options = TransferOptions { copy_files: true, ..Default::default() };
    /// let report = source.admin().copy_to(&target, &options).await?;
    /// println!("{} cards", report.rows("cards"));
    /// # Ok(()) }
    /// ```
    pub async fn copy_to(
        &self,
        target: &Board,
        options: &TransferOptions<'_>,
    ) -> Result<TransferReport> {
        let mut source = self.board.snapshot().await?;
        let result = self
            .board
            .copy_from_snapshot(&mut source, target, options)
            .await;
        end_snapshot(source).await;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every table the migrations create is in [`TABLES`] or [`KEPT`], once,
    /// and nothing else is: a new table fails here until it is placed in
    /// foreign-key order.
    #[tokio::test]
    async fn tables_list_every_table_of_the_schema() {
        let board = crate::testing::TempBoard::sqlite("tables").await;
        let mut conn = board.pool.acquire().await.unwrap();
        let mut present = catalog::schema_tables(&mut conn, board.backend)
            .await
            .unwrap();
        present.sort();
        let mut listed: Vec<String> = TABLES.iter().chain(KEPT).map(|t| t.to_string()).collect();
        listed.sort();
        listed.dedup();
        assert_eq!(
            listed.len(),
            TABLES.len() + KEPT.len(),
            "a table listed twice"
        );
        assert_eq!(present, listed);
        // And the schema can be read: every column has a kind a copy carries.
        Schema::read(&mut conn, board.backend).await.unwrap();
        // Parents come first: every table a foreign key names is listed earlier.
        for (i, table) in TABLES.iter().enumerate() {
            let parents: Vec<(String,)> =
                sqlx::query_as("SELECT \"table\" FROM pragma_foreign_key_list($1)")
                    .bind(*table)
                    .fetch_all(&mut *conn)
                    .await
                    .unwrap();
            for (parent,) in parents {
                let at = TABLES.iter().position(|t| *t == parent);
                assert!(
                    at.is_some_and(|p| p < i),
                    "{table} references {parent}, listed later"
                );
            }
        }
        drop(conn);
        board.close().await;
    }

    #[test]
    fn another_migration_version_or_other_columns_are_refused() {
        let column = |name: &str| TableColumn {
            name: name.into(),
            kind: ColumnKind::Text,
        };
        let schema = |versions: Vec<i64>, history: Vec<TableColumn>| Schema {
            versions,
            tables: TABLES
                .iter()
                .map(|t| {
                    if *t == "history" {
                        history.clone()
                    } else {
                        vec![column("id")]
                    }
                })
                .collect(),
        };
        let source = schema(vec![1, 2, 3, 4], vec![column("id"), column("to_name")]);
        let same = schema(vec![1, 2, 3, 4], vec![column("to_name"), column("id")]);
        source
            .check_target(&same, "source")
            .expect("column order does not matter");
        let newer = schema(vec![1, 2, 3, 4, 5], vec![column("id"), column("to_name")]);
        let e = source.check_target(&newer, "source").unwrap_err();
        assert!(
            e.to_string()
                .contains("migration version 4, the target at 5"),
            "{e}"
        );
        let wider = schema(
            vec![1, 2, 3, 4],
            vec![column("id"), column("to_name"), column("done")],
        );
        let e = source.check_target(&wider, "source").unwrap_err();
        assert!(
            e.to_string().contains("table history has other columns"),
            "{e}"
        );
    }

    #[test]
    fn statements_stay_under_the_bound_value_limit() {
        for cols in 1..40 {
            let rows = rows_per_statement(cols);
            assert!(rows * cols <= MAX_PARAMS && (rows + 1) * cols > MAX_PARAMS);
        }
    }
}
