//! The store: the backend chosen from the URL, connections and migrations, the
//! one write transaction ([`WriteTx`]) with its locks, and the outbox rows it
//! commits. It knows tables and dialects, never a domain module: what it
//! stores comes in as typed ids and plain rows ([`OutboxRow`]).
//!
//! Every difference between SQLite and PostgreSQL is a method of [`Backend`]
//! in `dialect.rs`; nothing else in the crate matches on the backend.
//!
//! **One code path.** Every statement runs through sqlx's `Any` driver, with `$N` placeholders
//! only. Ids and times are TEXT (times are fixed-width RFC 3339 UTC with milliseconds, so they
//! sort as text); flags are INTEGER/BIGINT 0/1 (`flag`). `migrations/sqlite` and
//! `migrations/postgres` hold the same versions (`tests/e2e/schema.rs` compares the schemas
//! they build), and they run on every server start and every CLI command.
//!
//! **Connections.** `connect` creates a missing SQLite file (or refuses it with
//! `Error::NoDatabase`, as the CLI asks) and switches it to WAL; every new connection runs
//! `Backend::connection_setup` (SQLite: `busy_timeout` of 60 s, the backstop against other
//! processes, `synchronous = NORMAL`, the page cache, `mmap_size`, no checkpoint in commits;
//! PostgreSQL: `jit = off`). On PostgreSQL it also prepares the hot statements (`Prepared`),
//! which needs the tables, so the migrations run first on a connection of their own.
//!
//! **Pings.** sqlx pings every connection it hands out: a round trip in front of every
//! request's first statement. Here a connection is pinged only when it sat idle for
//! `IDLE_PING` (5 s) or more; sqlx still pings every connection it takes back, off the
//! request's path, and closes a broken one. The price: after an outage shorter than 5 s, a
//! connection broken while it sat idle answers one request with 503 before it is dropped.
//! Connections given back whole skip even sqlx's ping (`conns.rs`).
//!
//! **Out of reach.** Errors that mean the database cannot be reached now (transport errors,
//! pool time-outs, PostgreSQL classes `08` and `57P` and `53300`, SQLite busy or locked past
//! `busy_timeout`) become `Error::Unavailable`: 503 `UNAVAILABLE` with `Retry-After`. An
//! operation waits at most `Options::acquire_timeout` (5 s by default) for a connection.

mod batch;
mod big_read;
mod checkpoint;
mod conns;
mod dialect;
mod outbox;
mod prepared;
mod queue;
mod tx;
mod value;

use std::str::FromStr;
use std::time::Duration;

use sqlx::any::AnyPoolOptions;
use sqlx::{AnyConnection, AnyPool, Connection, Executor};

use crate::error::{Error, Result};

pub(crate) use batch::Deferred;
pub(crate) use big_read::big_read;
pub(crate) use conns::{Conn, Conns};
pub(crate) use outbox::{OnCommit, OutboxRow, PENDING_POSITION};
pub(crate) use prepared::Prepared;
pub(crate) use queue::WriteQueue;
pub(crate) use tx::{column_version_bump, Lock, WriteTx, COLUMN_VERSION_SQL};
pub(crate) use value::{placeholder_list, placeholders, Value};

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

/// How long a connection may sit idle in the pool and still be handed out
/// without a ping first.
const IDLE_PING: Duration = Duration::from_secs(5);

/// Opens a pool for `url`, creating a missing SQLite file (and its folder) in WAL
/// mode, and runs the migrations of the backend.
pub(crate) async fn connect(
    url: &str,
    max_connections: u32,
    acquire_timeout: Duration,
    create_missing: bool,
    prepared: &Prepared,
) -> Result<(AnyPool, Backend)> {
    sqlx::any::install_default_drivers();
    let backend = Backend::from_url(url)?;
    let url = if backend.is_embedded() {
        prepare_sqlite(url, create_missing).await?
    } else {
        url.to_string()
    };
    let statements = prepared.setup_sql();
    if !statements.is_empty() {
        // `PREPARE` needs the tables: migrate on a connection of its own
        // before the pool's connections prepare.
        let mut conn = AnyConnection::connect(&url).await?;
        conn.execute(sqlx::AssertSqlSafe(backend.connection_setup()))
            .await?;
        migrate(backend, &mut conn).await?;
        conn.close().await?;
    }
    // A new connection's set-up and its prepared statements, in one round trip.
    let setup: std::sync::Arc<str> = match statements.is_empty() {
        true => backend.connection_setup().into(),
        false => format!("{}; {statements}", backend.connection_setup()).into(),
    };
    let pool = AnyPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(acquire_timeout)
        // sqlx pings every connection it takes from the idle queue: a round
        // trip (PostgreSQL) or a hop to the connection's thread (SQLite) in
        // front of every request's first statement. It also pings every
        // connection it takes back, off the request's path, and closes a
        // broken one; so only a connection idle long enough for its peer to
        // have gone meanwhile is pinged before it is handed out.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= IDLE_PING {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .after_connect(move |conn, _| {
            let setup = setup.clone();
            Box::pin(async move {
                conn.execute(sqlx::AssertSqlSafe(setup.to_string())).await?;
                Ok(())
            })
        })
        .connect(&url)
        .await?;
    if statements.is_empty() {
        migrate(backend, &pool).await?;
    }
    Ok((pool, backend))
}

/// Runs the migrations of `backend` on `conn` (a pool or one connection).
async fn migrate<'a, A>(backend: Backend, conn: A) -> Result<()>
where
    A: sqlx::Acquire<'a, Database = sqlx::Any>,
    <A::Connection as std::ops::Deref>::Target: sqlx::migrate::Migrate,
{
    backend
        .migrator()
        .run(conn)
        .await
        .map_err(|e| Error::Config(format!("migration failed: {e}")))
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
    Ok(format!("sqlite://{}", file.to_string_lossy()))
}

/// Reads a 0/1 INTEGER flag.
pub(crate) fn flag(v: i64) -> bool {
    v != 0
}

#[cfg(test)]
mod tests {
    use super::*;

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
