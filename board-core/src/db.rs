//! Storage: the backend chosen from the URL, migrations, the one write-transaction
//! helper, and the codecs for ids and times. This is the only dialect-aware module.

use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sqlx::any::{AnyPoolOptions, AnyRow};
use sqlx::{Any, AnyPool, Connection, Executor, Transaction};

use crate::error::{Error, Result};

/// A transaction on either backend.
pub type Tx = Transaction<'static, Any>;

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
}

static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// How long a SQLite connection waits for the write lock before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 60_000;

/// Opens a pool for `url`, creating a missing SQLite file (and its folder) in WAL
/// mode, and runs the migrations of the backend.
pub(crate) async fn connect(url: &str, max_connections: u32) -> Result<(AnyPool, Backend)> {
    sqlx::any::install_default_drivers();
    let backend = Backend::from_url(url)?;
    let url = match backend {
        Backend::Sqlite => prepare_sqlite(url).await?,
        Backend::Postgres => url.to_string(),
    };
    let pool = AnyPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(Duration::from_secs(60))
        .after_connect(move |conn, _| {
            Box::pin(async move {
                if backend == Backend::Sqlite {
                    // WAL with synchronous=NORMAL never corrupts; a power cut may
                    // lose the last commits. A larger page cache keeps set-based
                    // statements over 100k rows in memory.
                    let pragmas = format!(
                        "PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}; \
                         PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; \
                         PRAGMA temp_store = MEMORY"
                    );
                    conn.execute(sqlx::AssertSqlSafe(pragmas)).await?;
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

/// Creates the SQLite file and folder when missing and switches the file to WAL
/// (a property of the file, so every later connection inherits it).
async fn prepare_sqlite(url: &str) -> Result<String> {
    use sqlx::sqlite::{SqliteConnectOptions, SqliteConnection, SqliteJournalMode};
    let options = SqliteConnectOptions::from_str(url)?
        .create_if_missing(true)
        .journal_mode(SqliteJournalMode::Wal);
    let file = options.get_filename().to_path_buf();
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

/// Opens the one kind of write transaction every operation uses.
///
/// SQLite: `BEGIN IMMEDIATE`, which takes the write lock up front so that two
/// writers never deadlock on a lock upgrade (SQLITE_BUSY 5/517). PostgreSQL: a
/// plain `BEGIN`; the operation then locks its parent row with [`lock_row`].
pub(crate) async fn begin_write(pool: &AnyPool, backend: Backend) -> Result<Tx> {
    Ok(match backend {
        Backend::Sqlite => pool.begin_with("BEGIN IMMEDIATE").await?,
        Backend::Postgres => pool.begin().await?,
    })
}

/// Parent rows that serialise concurrent writers on PostgreSQL.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lock {
    /// A column set: its columns, their order, the done mark and the cards in them.
    ColumnSet,
    /// A workspace: the links between its cards.
    Workspace,
    /// A card: its comments and attachments.
    Card,
}

/// Locks one parent row for the rest of the transaction (PostgreSQL: `SELECT …
/// FOR NO KEY UPDATE`, which serialises writers of the same parent but, unlike
/// `FOR UPDATE`, lets inserts that only reference the row through a foreign key
/// go on; SQLite already holds the database write lock). Returns whether the
/// row exists.
pub(crate) async fn lock_row(tx: &mut Tx, backend: Backend, lock: Lock, id: &str) -> Result<bool> {
    let sql = match (lock, backend) {
        (Lock::ColumnSet, Backend::Postgres) => {
            "SELECT id FROM column_sets WHERE id = $1 FOR NO KEY UPDATE"
        }
        (Lock::ColumnSet, Backend::Sqlite) => "SELECT id FROM column_sets WHERE id = $1",
        (Lock::Workspace, Backend::Postgres) => {
            "SELECT id FROM workspaces WHERE id = $1 FOR NO KEY UPDATE"
        }
        (Lock::Workspace, Backend::Sqlite) => "SELECT id FROM workspaces WHERE id = $1",
        (Lock::Card, Backend::Postgres) => "SELECT id FROM cards WHERE id = $1 FOR NO KEY UPDATE",
        (Lock::Card, Backend::Sqlite) => "SELECT id FROM cards WHERE id = $1",
    };
    let row: Option<AnyRow> = sqlx::query(sql).bind(id).fetch_optional(&mut **tx).await?;
    Ok(row.is_some())
}

/// Locks every card of a column before they are deleted with it (PostgreSQL;
/// SQLite already holds the write lock): uploads and comments in flight on those
/// cards finish first, so the files they add are seen and removed too.
pub(crate) async fn lock_column_cards(tx: &mut Tx, backend: Backend, column: &str) -> Result<()> {
    if backend == Backend::Postgres {
        sqlx::query("SELECT id FROM cards WHERE column_id = $1 FOR UPDATE")
            .bind(column)
            .execute(&mut **tx)
            .await?;
    }
    Ok(())
}

/// Makes the rest of the transaction join through indexes only (PostgreSQL
/// `SET LOCAL`; nothing on SQLite). For recursive walks such as the relation
/// cycle check: the planner, guessing a few rows per step, would otherwise
/// hash-join a full scan of the table at every step of a deep walk.
pub(crate) async fn index_joins_only(tx: &mut Tx, backend: Backend) -> Result<()> {
    if backend == Backend::Postgres {
        sqlx::query(
            "SELECT set_config('enable_hashjoin', 'off', true), \
             set_config('enable_mergejoin', 'off', true)",
        )
        .execute(&mut **tx)
        .await?;
    }
    Ok(())
}

/// A new cuid2 id (24 characters, `[a-z][a-z0-9]{23}`).
pub(crate) fn new_id() -> String {
    cuid2::create_id()
}

/// An SQL expression giving a fresh id of the cuid2 shape (`[a-z][a-z0-9]{23}`)
/// for each row of a set-based insert, where ids cannot come from Rust one by one.
pub(crate) fn sql_new_id(backend: Backend) -> &'static str {
    match backend {
        Backend::Sqlite => "('h' || substr(lower(hex(randomblob(12))), 1, 23))",
        Backend::Postgres => {
            "('h' || substr(md5(random()::text || clock_timestamp()::text), 1, 23))"
        }
    }
}

/// The current time as fixed-width RFC 3339 UTC text with milliseconds
/// (`2026-11-21T23:43:00.000Z`). Strictly increasing within one process, so
/// rows written one after another sort in the order they were written.
pub(crate) fn now() -> String {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
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
    let wall = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0);
    format_millis(wall + seconds * 1000)
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
