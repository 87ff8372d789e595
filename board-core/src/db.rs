//! Storage: the backend chosen from the URL, migrations, the one write-transaction
//! helper, and the codecs for ids and times. This is the only dialect-aware module.

use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Connection, Executor};

use tokio::sync::{Mutex, OwnedMutexGuard};

use crate::error::{Error, Result};
use crate::events::{Change, Feed};

/// Which database engine a [`crate::Board`] talks to, read from the URL scheme.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// Embedded SQLite (`sqlite://path`).
    Sqlite,
    /// PostgreSQL (`postgres://…` or `postgresql://…`).
    Postgres,
}

impl Backend {
    /// Reads the backend from a database URL.
    pub fn from_url(url: &str) -> Result<Self> {
        if url.starts_with("sqlite:") {
            Ok(Backend::Sqlite)
        } else if url.starts_with("postgres://") || url.starts_with("postgresql://") {
            Ok(Backend::Postgres)
        } else {
            Err(Error::Config(format!(
                "unsupported database URL {url:?}: use sqlite://PATH or postgres://…"
            )))
        }
    }

    /// SQL for the seconds since the Unix epoch (a double) of `expr`, a time
    /// stored as RFC 3339 text: the one place the dialects' time arithmetic
    /// differs (SQLite `julianday`, PostgreSQL a cast to `timestamptz`).
    pub(crate) fn epoch_seconds_sql(self, expr: &str) -> String {
        match self {
            Backend::Sqlite => format!("((julianday({expr}) - 2440587.5) * 86400.0)"),
            Backend::Postgres => {
                format!("CAST(EXTRACT(EPOCH FROM CAST({expr} AS timestamptz)) AS DOUBLE PRECISION)")
            }
        }
    }
}

static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// How long a SQLite connection waits for the write lock before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 60_000;

/// Opens a pool for `url`, creating a missing SQLite file (and its folder) in WAL
/// mode, and runs the migrations of the backend.
pub(crate) async fn connect(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
    create_missing: bool,
) -> Result<(AnyPool, Backend)> {
    sqlx::any::install_default_drivers();
    let backend = Backend::from_url(url)?;
    let url = match backend {
        Backend::Sqlite => prepare_sqlite(url, create_missing).await?,
        Backend::Postgres => url.to_string(),
    };
    let pool = AnyPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    // WAL with synchronous=NORMAL never corrupts; a power cut may
                    // lose the last commits. A larger page cache keeps set-based
                    // statements over 100k rows in memory. Reads map the file
                    // (up to 1 GiB), so the pool's connections share the OS's
                    // pages rather than each copying them into its own cache: a
                    // flow read over a million history rows takes a fifth less.
                    let pragmas = format!(
                        "PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}; \
                         PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; \
                         PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 1073741824"
                    );
                    conn.execute(sqlx::AssertSqlSafe(pragmas)).await?;
                } else {
                    // No JIT compilation: it pays off only for long analytic
                    // queries, and it made the one this service has (a flow
                    // read over a million history rows) three times slower,
                    // compiling for seconds what runs in one.
                    conn.execute("SET jit = off").await?;
                }
                Ok(())
            })
        })
        .connect(&url)
        .await?;
    let migrator = match backend {
        Backend::Sqlite => &SQLITE_MIGRATOR,
        Backend::Postgres => &POSTGRES_MIGRATOR,
    };
    migrator
        .run(&pool)
        .await
        .map_err(|e| Error::Config(format!("migration failed: {e}")))?;
    Ok((pool, backend))
}

/// Creates the SQLite file and folder when missing (or, without
/// `create_missing`, refuses a file that does not exist) and switches the file
/// to WAL (a property of the file, so every later connection inherits it).
async fn prepare_sqlite(url: &str, create_missing: bool) -> Result<String> {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode};
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal);
    let file = options.get_filename().to_path_buf();
    if !create_missing && !file.exists() {
        return Err(Error::NoDatabase(file));
    }
    if let Some(dir) = file.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)
            .map_err(|e| Error::Config(format!("cannot create {}: {e}", dir.display())))?;
    }
    SqliteConnection::connect_with(&options)
        .await?
        .close()
        .await?;
    Ok(format!("sqlite://{}", path_str(&file)))
}

fn path_str(p: &Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The only kind of transaction that changes data, and the locks it holds.
///
/// It is opened by [`crate::Board::write`] together with the lock its operation
/// decides under, or by [`crate::Board::write_unlocked`] for changes that need
/// no parent row (creations backed by a unique or foreign key). Every
/// dialect-aware step of a write is a method here, so no operation passes the
/// backend around.
///
/// SQLite: `BEGIN IMMEDIATE` takes the database write lock up front, so two
/// writers never deadlock on a lock upgrade (SQLITE_BUSY 5/517) and each lock
/// below is only an existence check. PostgreSQL: `BEGIN`, then `SELECT … FOR NO
/// KEY UPDATE` on the locked row: writers of the same parent queue on it, while
/// inserts that only reference the row through a foreign key go on.
///
/// It dereferences to the connection, so statements run on `&mut *tx`.
pub(crate) struct WriteTx {
    /// `None` only once committed or handed to the rollback on drop.
    tx: Option<PoolConnection<Any>>,
    backend: Backend,
    /// The rank of the last lock taken: locks are taken parent first.
    held: u8,
    /// SQLite: this process's turn to write, taken in arrival order.
    turn: Option<OwnedMutexGuard<()>>,
    /// The change's events, written just before `COMMIT`.
    events: Vec<Change>,
    /// Told of a committed event.
    feed: Feed,
}

/// The queue of this process's SQLite writers.
///
/// SQLite has one write lock per database. Writers that race for it in
/// `BEGIN IMMEDIATE` are put to sleep by its busy handler and retry on a
/// back-off (up to 100 ms a sleep), so whoever retries at the right moment
/// wins and some writers wait for seconds. Inside one process, writers
/// instead queue here, in arrival order (tokio's mutex is fair), and only the
/// head of the queue asks SQLite for the lock. `busy_timeout` stays the
/// backstop against other processes, such as the CLI.
#[derive(Debug, Clone, Default)]
pub(crate) struct WriteQueue(Arc<Mutex<()>>);

/// A row a write transaction locks before it reads what decides its change.
///
/// Ranks give the one order in which locks are taken (workspace and settings,
/// then column sets in id order, then a card), so two writers never wait on
/// each other crosswise.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lock<'a> {
    /// A workspace row: the links between its cards.
    Workspace(&'a str),
    /// A workspace's settings row: the settings themselves.
    Settings(&'a str),
    /// A column set: its columns, their order, the done mark and the cards in them.
    ColumnSet(&'a str),
    /// Several column sets, locked in id order (a card's current set and its set
    /// in effect).
    ColumnSets(&'a [String]),
    /// A card row: its comments and attachments.
    Card(&'a str),
}

impl Lock<'_> {
    fn rank(&self) -> u8 {
        match self {
            Lock::Workspace(_) | Lock::Settings(_) => 0,
            Lock::ColumnSet(_) | Lock::ColumnSets(_) => 1,
            Lock::Card(_) => 2,
        }
    }

    /// The error when the locked row does not exist.
    fn missing(&self) -> Error {
        match self {
            Lock::Workspace(_) => Error::NotFound("workspace"),
            // A body's tenantId that names no workspace is 403, never 404.
            Lock::Settings(_) => Error::not_reached(),
            Lock::ColumnSet(_) | Lock::ColumnSets(_) => Error::NotFound("column set"),
            Lock::Card(_) => Error::NotFound("card"),
        }
    }
}

impl WriteTx {
    /// Opens a write transaction that holds no lock yet (SQLite: after this
    /// process's earlier writers, in arrival order).
    pub(crate) async fn begin(
        pool: &AnyPool,
        backend: Backend,
        queue: &WriteQueue,
        feed: &Feed,
    ) -> Result<WriteTx> {
        // BEGIN and COMMIT are sent here rather than through sqlx's
        // `Transaction`, so that the change's events ride with the COMMIT in
        // one round trip (see `commit`).
        let (begin, turn) = match backend {
            Backend::Sqlite => ("BEGIN IMMEDIATE", Some(queue.0.clone().lock_owned().await)),
            Backend::Postgres => ("BEGIN", None),
        };
        let mut tx = pool.acquire().await?;
        sqlx::raw_sql(begin).execute(&mut *tx).await?;
        Ok(WriteTx {
            tx: Some(tx),
            backend,
            held: 0,
            turn,
            events: Vec::new(),
            feed: feed.clone(),
        })
    }

    fn conn(&mut self) -> &mut AnyConnection {
        self.tx.as_deref_mut().expect("an open transaction")
    }

    /// Locks one more row for the rest of the transaction, after the locks
    /// already held (parent first). A row that does not exist is the lock's
    /// not-found error.
    pub(crate) async fn lock(&mut self, lock: Lock<'_>) -> Result<()> {
        debug_assert!(
            lock.rank() >= self.held,
            "locks are taken parent first; {lock:?} comes too late"
        );
        self.held = lock.rank();
        let suffix = match self.backend {
            Backend::Postgres => " FOR NO KEY UPDATE",
            Backend::Sqlite => "",
        };
        let (table, key, ids): (&str, &str, Vec<&str>) = match lock {
            Lock::Workspace(id) => ("workspaces", "id", vec![id]),
            Lock::Settings(id) => ("settings", "workspace_id", vec![id]),
            Lock::ColumnSet(id) => ("column_sets", "id", vec![id]),
            Lock::ColumnSets(ids) => {
                let mut ids: Vec<&str> = ids.iter().map(String::as_str).collect();
                ids.sort_unstable();
                ids.dedup();
                ("column_sets", "id", ids)
            }
            Lock::Card(id) => ("cards", "id", vec![id]),
        };
        let placeholders: Vec<String> = (1..=ids.len()).map(|i| format!("${i}")).collect();
        // PostgreSQL locks the rows in the order they are returned: by key.
        let sql = format!(
            "SELECT {key} FROM {table} WHERE {key} IN ({}) ORDER BY {key}{suffix}",
            placeholders.join(", ")
        );
        let mut q = sqlx::query(sqlx::AssertSqlSafe(sql));
        for id in &ids {
            q = q.bind(*id);
        }
        let rows: Vec<AnyRow> = q.fetch_all(self.conn()).await?;
        if rows.len() == ids.len() {
            Ok(())
        } else {
            Err(lock.missing())
        }
    }

    /// Locks every card of a column before they are deleted with it (PostgreSQL;
    /// SQLite already holds the write lock): uploads and comments in flight on
    /// those cards finish first, so the files they add are seen and removed too.
    pub(crate) async fn lock_column_cards(&mut self, column: &str) -> Result<()> {
        if self.backend == Backend::Postgres {
            sqlx::query("SELECT id FROM cards WHERE column_id = $1 FOR UPDATE")
                .bind(column)
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// Makes the rest of the transaction join through indexes only (PostgreSQL
    /// `SET LOCAL`; nothing on SQLite). For recursive walks such as the relation
    /// cycle check: the planner, guessing a few rows per step, would otherwise
    /// hash-join a full scan of the table at every step of a deep walk.
    pub(crate) async fn index_joins_only(&mut self) -> Result<()> {
        if self.backend == Backend::Postgres {
            sqlx::query(
                "SELECT set_config('enable_hashjoin', 'off', true), \
                 set_config('enable_mergejoin', 'off', true)",
            )
            .execute(self.conn())
            .await?;
        }
        Ok(())
    }

    /// Keeps every other writer out of `tables` until the transaction ends, so
    /// that a check that they are empty holds until the commit (PostgreSQL
    /// `LOCK TABLE … IN EXCLUSIVE MODE`, reads go on; SQLite already holds the
    /// database write lock).
    pub(crate) async fn lock_tables(&mut self, tables: &[&str]) -> Result<()> {
        if self.backend == Backend::Postgres {
            let list: Vec<String> = tables.iter().map(|t| format!("\"{t}\"")).collect();
            let sql = format!("LOCK TABLE {} IN EXCLUSIVE MODE", list.join(", "));
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// An SQL expression giving a fresh id of the cuid2 shape
    /// (`[a-z][a-z0-9]{23}`) for each row of a set-based insert, where ids
    /// cannot come from Rust one by one.
    pub(crate) fn new_id_sql(&self) -> &'static str {
        match self.backend {
            Backend::Sqlite => "('h' || substr(lower(hex(randomblob(12))), 1, 23))",
            Backend::Postgres => {
                "('h' || substr(md5(random()::text || clock_timestamp()::text), 1, 23))"
            }
        }
    }

    /// Makes event seqs continue after every seq in the table (or pruned),
    /// once rows were copied in with their seqs: PostgreSQL moves the
    /// sequence `events_seq` on; SQLite's next seq is `MAX(seq) + 1` anyway.
    pub(crate) async fn continue_event_seqs(&mut self) -> Result<()> {
        if self.backend == Backend::Postgres {
            sqlx::query(
                "SELECT setval('events_seq', GREATEST((SELECT COALESCE(MAX(seq), 0) FROM events), \
                 (SELECT pruned_through FROM event_log WHERE id = 1)) + 1, false)",
            )
            .execute(self.conn())
            .await?;
        }
        Ok(())
    }

    /// Records an event of the change (contract §11), written to the outbox
    /// with the change when it commits.
    pub(crate) fn emit(&mut self, change: Change) {
        self.events.push(change);
    }

    /// Writes the change's events and commits, in one round trip (the
    /// outbox statements and `COMMIT` sent together), then releases every
    /// lock (and the next writer's turn) and tells this process's feed.
    pub(crate) async fn commit(mut self) -> Result<()> {
        let events = std::mem::take(&mut self.events);
        let sql = crate::events::commit_statement(self.backend, &events);
        let mut tx = self.tx.take().expect("an open transaction");
        let sent = match self.backend {
            Backend::Sqlite => {
                let query = sqlx::query(sqlx::AssertSqlSafe(sql));
                crate::events::bind_changes(query, &events)
                    .execute(&mut *tx)
                    .await
            }
            Backend::Postgres => {
                sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                    .execute(&mut *tx)
                    .await
            }
        };
        if let Err(e) = sent {
            // Rolled back by `Drop`, before the next writer's turn.
            self.tx = Some(tx);
            return Err(e.into());
        }
        drop(tx);
        drop(self.turn.take());
        if !events.is_empty() {
            self.feed.committed();
        }
        Ok(())
    }
}

impl Drop for WriteTx {
    /// A transaction dropped without commit (a refusal, an error) rolls back
    /// before the next writer's turn: sqlx would otherwise roll it back only
    /// when the connection is next used, and SQLite's write lock would stay
    /// taken until then.
    fn drop(&mut self) {
        if let Some(mut tx) = self.tx.take() {
            let turn = self.turn.take();
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(async move {
                        if sqlx::raw_sql("ROLLBACK").execute(&mut *tx).await.is_err() {
                            // Never hand a connection inside a transaction back.
                            tx.close_on_drop();
                        }
                        drop(tx);
                        drop(turn);
                    });
                }
                Err(_) => {
                    tx.close_on_drop();
                    drop((tx, turn));
                }
            }
        }
    }
}

impl std::ops::Deref for WriteTx {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        self.tx.as_deref().expect("an open transaction")
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        self.conn()
    }
}

/// The kind of value a column holds, read from its declared type: the schema
/// keeps ids, names and times as TEXT and counters and flags as INTEGER/BIGINT.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum ColumnKind {
    /// INTEGER, BIGINT, SMALLINT: read and bound as `i64`.
    Integer,
    /// TEXT, VARCHAR: read and bound as a string.
    Text,
}

/// One column of a table, as the database's catalog describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TableColumn {
    /// The column's name.
    pub(crate) name: String,
    /// Its kind of value.
    pub(crate) kind: ColumnKind,
}

/// The tables of the schema (without sqlx's `_sqlx_migrations`), by name.
pub(crate) async fn schema_tables(
    conn: &mut AnyConnection,
    backend: Backend,
) -> Result<Vec<String>> {
    let sql = match backend {
        Backend::Sqlite => {
            "SELECT name FROM sqlite_master WHERE type = 'table' \
             AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '_sqlx_migrations' ORDER BY name"
        }
        Backend::Postgres => {
            "SELECT table_name::text AS name FROM information_schema.tables \
             WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
             AND table_name <> '_sqlx_migrations' ORDER BY table_name"
        }
    };
    let rows = sqlx::query(sql).fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|r| Ok(sqlx::Row::try_get::<String, _>(r, "name")?))
        .collect()
}

/// The columns of `table` in their declared order, each with its kind; a
/// column of a type the schema does not use (REAL, BLOB, BOOLEAN, …) is an
/// error, so that no value is carried in a shape it would not survive.
pub(crate) async fn table_columns(
    conn: &mut AnyConnection,
    backend: Backend,
    table: &str,
) -> Result<Vec<TableColumn>> {
    let sql = match backend {
        Backend::Sqlite => "SELECT name, type AS data_type FROM pragma_table_info($1) ORDER BY cid",
        Backend::Postgres => {
            "SELECT column_name::text AS name, data_type::text AS data_type \
             FROM information_schema.columns \
             WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
        }
    };
    let rows = sqlx::query(sql).bind(table).fetch_all(&mut *conn).await?;
    rows.iter()
        .map(|r| {
            let name: String = sqlx::Row::try_get(r, "name")?;
            let declared: String = sqlx::Row::try_get(r, "data_type")?;
            let upper = declared.to_ascii_uppercase();
            let kind = if upper.contains("INT") {
                ColumnKind::Integer
            } else if upper == "TEXT" || upper.contains("CHAR") {
                ColumnKind::Text
            } else {
                return Err(Error::Transfer(format!(
                    "column {table}.{name} has type {declared}, which a copy does not carry"
                )));
            };
            Ok(TableColumn { name, kind })
        })
        .collect()
}

/// The migration versions applied to the database, in order.
pub(crate) async fn migration_versions(conn: &mut AnyConnection) -> Result<Vec<i64>> {
    let rows = sqlx::query("SELECT version FROM _sqlx_migrations WHERE success ORDER BY version")
        .fetch_all(&mut *conn)
        .await?;
    rows.iter()
        .map(|r| Ok(sqlx::Row::try_get::<i64, _>(r, "version")?))
        .collect()
}

/// How many sequences the schema keeps besides `events_seq` (PostgreSQL;
/// SQLite has none): a copy continues that one
/// ([`WriteTx::continue_event_seqs`]) and no other, so it refuses a schema that
/// grew one.
pub(crate) async fn sequence_count(conn: &mut AnyConnection, backend: Backend) -> Result<i64> {
    match backend {
        Backend::Sqlite => Ok(0),
        Backend::Postgres => {
            let row = sqlx::query(
                "SELECT COUNT(*) AS n FROM information_schema.sequences \
                 WHERE sequence_schema = current_schema() AND sequence_name <> 'events_seq'",
            )
            .fetch_one(&mut *conn)
            .await?;
            Ok(sqlx::Row::try_get(&row, "n")?)
        }
    }
}

/// Starts a read-only transaction that sees one snapshot of the database for
/// every statement that follows on `conn` (SQLite: `BEGIN`, whose first read
/// fixes the snapshot; PostgreSQL: `REPEATABLE READ READ ONLY`).
pub(crate) async fn begin_snapshot(conn: &mut AnyConnection, backend: Backend) -> Result<()> {
    let sql = match backend {
        Backend::Sqlite => "BEGIN",
        Backend::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
    };
    sqlx::raw_sql(sql).execute(&mut *conn).await?;
    Ok(())
}

/// A new cuid2 id (24 characters, `[a-z][a-z0-9]{23}`).
pub(crate) fn new_id() -> String {
    cuid2::create_id()
}

/// The current time as fixed-width RFC 3339 UTC text with milliseconds
/// (`2026-11-21T23:43:00.000Z`). Strictly increasing within one process, so
/// rows written one after another sort in the order they were written.
pub(crate) fn now() -> String {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let wall = now_millis();
    let mut prev = LAST.load(Ordering::Relaxed);
    let ms = loop {
        let next = wall.max(prev + 1);
        match LAST.compare_exchange_weak(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => break next,
            Err(seen) => prev = seen,
        }
    };
    format_millis(ms)
}

/// The time `seconds` from now, in the same format as [`now`].
pub(crate) fn now_plus(seconds: i64) -> String {
    format_millis(now_millis() + seconds * 1000)
}

/// The wall clock in milliseconds since the Unix epoch.
pub(crate) fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Formats milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn format_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Reads a 0/1 INTEGER flag.
pub(crate) fn flag(v: i64) -> bool {
    v != 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times_fixed_width() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(1_795_304_580_000), "2026-11-21T23:43:00.000Z");
        assert_eq!(format_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
    }

    #[test]
    fn now_is_strictly_increasing() {
        let a = now();
        let b = now();
        assert!(b > a, "{b} should sort after {a}");
    }

    #[test]
    fn backend_from_url() {
        assert_eq!(Backend::from_url("sqlite://x.db").unwrap(), Backend::Sqlite);
        assert_eq!(
            Backend::from_url("postgres://h/db").unwrap(),
            Backend::Postgres
        );
        assert!(Backend::from_url("mysql://h/db").is_err());
    }
}
