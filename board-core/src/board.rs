//! The handle every operation hangs off: [`Board`] (the connection pool, the
//! write queue, the file store, the installation's limits), its operator side
//! [`Admin`], and [`Options`], how to open one.
//!
//! It sits just above the store and below every rule: each resource adds its
//! operations in an `impl Board` (or `impl Admin`) block of its own module,
//! so rustdoc lists them on one page while the code keeps them apart (which
//! module holds which method: ARCHITECTURE.md's code map). Opening a board,
//! which needs the modules above (the event feed, the hot statements, the
//! search index), is `open.rs`, in the outer layer.
//!
//! What a module above keeps per process (the event feed, the column
//! listings, the password hashers, the tokens touched) is a value of its own
//! type in the handle's [`Locals`], put there when the board opens and found
//! by type ([`Board::local`]), so that this module names none of them.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use crate::error::Result;
use crate::files::FileStore;
use crate::store::{self, Backend, Conns, OnCommit, WriteQueue};

/// How long a temporary file may sit unwritten before it counts as left by a
/// crash (an upload in flight writes to it continuously, and publishes it
/// right after its commit); the default of [`Options::temp_grace`].
pub const TEMP_GRACE: Duration = Duration::from_secs(3600);

/// The default database: an embedded SQLite file, created when missing.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://board-data/board.db";
/// The default folder of stored files.
pub const DEFAULT_FILES_DIR: &str = "board-data/files";
/// The default largest attachment, in bytes (10 MiB).
pub const DEFAULT_MAX_ATTACHMENT_BYTES: u64 = 10 * 1024 * 1024;
/// The default most files of one upload request (api.md §21).
pub const DEFAULT_MAX_FILES_PER_REQUEST: usize = 100;

/// The operator's side of a [`Board`] ([`Board::admin`]): its methods bypass
/// roles, so a reader of a call sees at once that no access is checked. They
/// obey every other rule, as the routes do.
#[derive(Debug, Clone, Copy)]
pub struct Admin<'a> {
    /// The handle it acts on.
    pub(crate) board: &'a Board,
}

/// How to open a [`Board`].
#[derive(Debug, Clone)]
pub struct Options {
    /// `sqlite://PATH` or `postgres://…`.
    pub database_url: String,
    /// Where attachment files are stored (when `files_url` is not set).
    pub files_dir: PathBuf,
    /// `s3://BUCKET[/PREFIX]`: attachment files in an S3-compatible object
    /// store (`S3Store`, feature `s3`) instead of `files_dir`. Without the
    /// feature, opening with it set fails with [`Error::Config`](crate::error::Error::Config).
    pub files_url: Option<String>,
    /// The most connections the pool opens.
    pub max_connections: u32,
    /// Whether a missing SQLite file (and its folder) is created (default); the
    /// CLI opens without it except for `board init`, so a mistyped path is
    /// refused rather than silently made new.
    pub create_missing: bool,
    /// How long an operation waits for a database connection before failing
    /// with [`Error::Unavailable`](crate::error::Error::Unavailable) (default 5 s).
    pub acquire_timeout: Duration,
    /// The largest accepted attachment, in bytes.
    pub max_attachment_bytes: u64,
    /// The most files one upload may hold (default
    /// [`DEFAULT_MAX_FILES_PER_REQUEST`], 100); one more is
    /// [`Error::TooManyFiles`](crate::error::Error::TooManyFiles), and nothing is stored.
    pub max_files_per_request: usize,
    /// Whether uploads are accepted at all (the installation's switch).
    pub attachments_enabled: bool,
    /// Another file store than `files_url` or the local folder `files_dir`.
    pub file_store: Option<Arc<dyn FileStore>>,
    /// How long a temporary may sit before the sweep counts it as left by a
    /// crash (default [`TEMP_GRACE`], 1 h).
    pub temp_grace: Duration,
    /// Whether webhooks may target addresses that are not public (loopback,
    /// private, link-local, unique-local, unspecified, and the other ranges
    /// and forms of api.md §18; `--webhook-allow-private`; default off).
    pub webhook_allow_private: bool,
    /// `smtp://…` or `smtps://…`: the SMTP server e-mail goes through
    /// (api.md §26, `--smtp-url`); none: the board sends no mail.
    pub smtp_url: Option<String>,
    /// The sender of the board's e-mail (`--mail-from`), needed with `smtp_url`.
    pub mail_from: Option<String>,
    /// The URL people reach the board at: the start of the links in e-mail.
    pub public_url: Option<String>,
}

impl Options {
    /// Options for `database_url` with the default files folder.
    pub fn new(database_url: impl Into<String>) -> Self {
        Options {
            database_url: database_url.into(),
            files_dir: PathBuf::from(DEFAULT_FILES_DIR),
            files_url: None,
            max_connections: 16,
            acquire_timeout: Duration::from_secs(5),
            create_missing: true,
            max_attachment_bytes: DEFAULT_MAX_ATTACHMENT_BYTES,
            max_files_per_request: DEFAULT_MAX_FILES_PER_REQUEST,
            attachments_enabled: true,
            file_store: None,
            temp_grace: TEMP_GRACE,
            webhook_allow_private: false,
            smtp_url: None,
            mail_from: None,
            public_url: None,
        }
    }
}

/// The use of a [`Board`]'s connection pool ([`Board::pool_stats`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PoolStats {
    /// Connections open now (idle or in use).
    pub open: u32,
    /// Open connections not in use.
    pub idle: usize,
    /// The most connections the pool opens.
    pub max: u32,
}

/// The handle every operation hangs off: the database pool, the file store and
/// the installation's attachment settings. Cheap to clone.
#[derive(Debug, Clone)]
pub struct Board {
    pub(crate) pool: Conns,
    pub(crate) backend: Backend,
    pub(crate) store: Arc<dyn FileStore>,
    pub(crate) max_attachment_bytes: u64,
    pub(crate) max_files_per_request: usize,
    pub(crate) attachments_enabled: bool,
    pub(crate) temp_grace: Duration,
    pub(crate) webhook_allow_private: bool,
    pub(crate) writers: WriteQueue,
    /// The event feed, as the store tells it of a commit with events.
    pub(crate) on_commit: Arc<dyn OnCommit>,
    pub(crate) database_url: String,
    /// The URL people reach the board at, when set (links in e-mail).
    pub(crate) public_url: Option<String>,
    /// What the modules above keep for this process (the event feed, the
    /// column listings read, the password hashers, the tokens touched): each
    /// module's own type, found by [`Board::local`].
    locals: Arc<Locals>,
}

/// The per-process values of the modules above the handle, one per type
/// ([`Board::local`]); filled once, when the board opens.
#[derive(Default)]
pub(crate) struct Locals(HashMap<TypeId, Box<dyn Any + Send + Sync>>);

impl Locals {
    /// Keeps `value`, the one of its type.
    pub(crate) fn put<T: Any + Send + Sync>(&mut self, value: T) {
        self.0.insert(TypeId::of::<T>(), Box::new(value));
    }
}

impl std::fmt::Debug for Locals {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Locals({})", self.0.len())
    }
}

/// What a [`Board`] is made of, but its [`Locals`] (`open.rs` builds them).
pub(crate) struct Parts {
    pub(crate) options: Options,
    pub(crate) pool: Conns,
    pub(crate) backend: Backend,
    pub(crate) store: Arc<dyn FileStore>,
    pub(crate) writers: WriteQueue,
    pub(crate) on_commit: Arc<dyn OnCommit>,
}

impl Board {
    /// The board of `parts`, with `locals` (`open.rs`).
    pub(crate) fn from_parts(parts: Parts, locals: Locals) -> Board {
        let options = parts.options;
        Board {
            pool: parts.pool,
            backend: parts.backend,
            store: parts.store,
            max_attachment_bytes: options.max_attachment_bytes,
            max_files_per_request: options.max_files_per_request,
            attachments_enabled: options.attachments_enabled,
            temp_grace: options.temp_grace,
            webhook_allow_private: options.webhook_allow_private,
            writers: parts.writers,
            on_commit: parts.on_commit,
            database_url: options.database_url,
            public_url: options.public_url,
            locals: Arc::new(locals),
        }
    }

    /// The value of type `T` this process keeps for a module above (its
    /// feed, its listings…), put there when the board opened.
    pub(crate) fn local<T: Any + Send + Sync>(&self) -> &T {
        self.locals
            .0
            .get(&TypeId::of::<T>())
            .and_then(|value| value.downcast_ref())
            .unwrap_or_else(|| panic!("{} is put when the board opens", std::any::type_name::<T>()))
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The pool's use now.
    pub fn pool_stats(&self) -> PoolStats {
        PoolStats {
            open: self.pool.size(),
            idle: self.pool.num_idle(),
            max: self.pool.max(),
        }
    }

    /// `Ok` when the database answers.
    pub async fn ping(&self) -> Result<()> {
        sqlx::query("SELECT 1").execute(&self.pool).await?;
        Ok(())
    }

    /// Closes the pool.
    pub async fn close(&self) {
        self.pool.close().await;
    }

    /// The installation operator's handle: what acts outside any workspace's
    /// roles (workspaces, projects, accounts, memberships and tokens, lookups
    /// by name, the sweep, event retention, moving an installation). Every
    /// method of [`Board`] itself takes the [`Actor`](crate::access::Actor) it runs for; the CLI,
    /// which acts as the operator, reaches these through `admin()`.
    pub fn admin(&self) -> Admin<'_> {
        Admin { board: self }
    }

    /// Opens a write transaction holding `lock`: the row its operation reads
    /// and decides under. More locks may follow, parent first
    /// (`store::WriteTx::lock`).
    pub(crate) async fn write(&self, lock: store::Lock<'_>) -> Result<store::WriteTx> {
        Ok(self.write_at(lock).await?.0)
    }

    /// [`Board::write`], with the version the locked row had before this
    /// transaction advanced it (what an `If-Match` compares, under the lock).
    pub(crate) async fn write_at(&self, lock: store::Lock<'_>) -> Result<(store::WriteTx, i64)> {
        let (tx, version, _) = self.write_reading(lock, None).await?;
        Ok((tx, version))
    }

    /// [`Board::write_at`], also running `read`, the read that decides under
    /// the lock, in the same round trip where the backend allows; returns its
    /// rows too.
    pub(crate) async fn write_reading(
        &self,
        lock: store::Lock<'_>,
        read: Option<&store::Deferred>,
    ) -> Result<(store::WriteTx, i64, Vec<sqlx::any::AnyRow>)> {
        let on_commit = self.on_commit.clone();
        let (pool, queue) = (&self.pool, &self.writers);
        store::WriteTx::begin_locked(pool, self.backend, queue, on_commit, lock, read).await
    }

    /// Opens a write transaction that sends nothing until its commit, with no
    /// lock ([`store::WriteTx::begin_at_commit`]): `BEGIN`, the deferred
    /// statements, the events and `COMMIT` in one round trip. For changes that
    /// only add rows, guarded by their foreign keys.
    pub(crate) async fn write_at_commit(&self) -> Result<store::WriteTx> {
        let on_commit = self.on_commit.clone();
        store::WriteTx::begin_at_commit(&self.pool, self.backend, &self.writers, on_commit).await
    }

    /// Opens a write transaction without a parent lock, for changes that decide
    /// nothing from rows another writer could change: creations backed by a
    /// unique or foreign key, single-statement updates.
    pub(crate) async fn write_unlocked(&self) -> Result<store::WriteTx> {
        let on_commit = self.on_commit.clone();
        store::WriteTx::begin(&self.pool, self.backend, &self.writers, on_commit).await
    }
}

impl Board {
    /// Removes published files after their rows were committed away. A failure
    /// is logged and left to the sweep.
    pub(crate) async fn remove_files(&self, names: &[String]) {
        for name in names {
            if let Err(e) = self.store.remove(name).await {
                tracing::warn!(file = %name, error = %e, "could not remove a stored file");
            }
        }
    }

    /// Removes temporaries of an upload that will not be committed.
    pub(crate) async fn discard_files(&self, names: &[String]) {
        for name in names {
            if let Err(e) = self.store.discard(name).await {
                tracing::warn!(file = %name, error = %e, "could not remove a temporary file");
            }
        }
    }
}
