//! # board-core
//!
//! The typed operations of the board service and every rule of its contract:
//! workspaces, accounts and tokens, column sets, cards and their history,
//! comments and attachments (with their [`FileStore`]). The
//! HTTP server (`board-server`) and the admin CLI (`board`) are thin layers over
//! the same [`Board`] handle.
//!
//! Storage is embedded SQLite or PostgreSQL, chosen from the URL; every write is
//! one transaction opened by one helper.
//!
//! ```
//! # tokio::runtime::Runtime::new().unwrap().block_on(async {
//! use board_core::{Actor, Board, NewCard};
//! let dir = std::env::temp_dir().join(format!("board-doc-{}", std::process::id()));
//! let board = Board::open(&format!("sqlite://{}/lib.db", dir.display())).await?;
//! let ws = board.create_workspace("Team").await?;
//! // Every workspace is born with To do, Doing and Done (the done column).
//! let columns = board.list_columns(&Actor::Operator, Some(ws.id.as_str()), None).await?;
//! assert_eq!(columns.len(), 3);
//! assert!(columns[2].done);
//! let card = board
//!     .create_card(&Actor::Operator, NewCard {
//!         tenant_id: ws.id.clone(),
//!         project_id: None,
//!         column_id: None,
//!         title: "Write the docs".into(),
//!     }.into())
//!     .await?;
//! assert_eq!(card.column_id, columns[0].id.as_str(), "a new card lands in the first column");
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), board_core::Error>(())
//! # }).unwrap();
//! ```

#![warn(missing_docs)]

mod access;
mod attachments;
mod cards;
mod columns;
mod comments;
mod db;
mod detect;
mod directory;
mod error;
mod files;
mod history;
mod ids;
#[cfg(feature = "openapi")]
mod openapi;
mod query;
mod relations;
mod settings;
mod sweep;
mod text;
mod validate;
mod workspaces;

use std::path::PathBuf;
use std::sync::Arc;

use sqlx::AnyPool;

// The public API, each item once.
pub use access::{Account, Actor, IssuedToken, Membership, Role, Session};
pub use attachments::{Attachment, PartInfo, Scope, UploadSource};
pub use cards::{BoardColumn, BoardView, Card, CardPatch, NewCard};
pub use columns::{
    Accent, CardsFate, Column, ColumnDeleted, ColumnOrder, ColumnPatch, DeleteColumn, NewColumn,
    CONFIRM_DELETE_CARDS, MAX_REORDER,
};
pub use comments::{Comment, CommentInput};
pub use db::Backend;
pub use directory::{Member, TokenInfo};
pub use error::{Error, Result, Rule, ValidationErrors};
pub use files::{BoxFuture, FileReader, FileStore, FileWriter, LocalDir, StoreEntry};
pub use history::HistoryEntry;
pub use ids::{
    AccountId, AttachmentId, CardId, ColumnId, CommentId, HistoryId, ProjectId, RelationId,
    TokenId, WorkspaceId, CUID_PATTERN,
};
pub use query::SetQuery;
pub use relations::{NewRelation, Relation, RelationKind};
pub use settings::{ColumnScope, Settings, SettingsPatch};
pub use sweep::{SweepReport, LOOSE_UPLOAD_TTL, TEMP_GRACE};
pub use text::{CommentText, InvalidText, Name};
pub use validate::{FromJson, Input};
pub use workspaces::{Bootstrap, Project, Workspace};

/// The default database: an embedded SQLite file, created when missing.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://board-data/board.db";
/// The default folder of stored files.
pub const DEFAULT_FILES_DIR: &str = "board-data/files";
/// The default largest attachment, in bytes (10 MiB).
pub const DEFAULT_MAX_ATTACHMENT_BYTES: u64 = 10 * 1024 * 1024;

/// How to open a [`Board`].
#[derive(Debug, Clone)]
pub struct Options {
    /// `sqlite://PATH` or `postgres://…`.
    pub database_url: String,
    /// Where attachment files are stored.
    pub files_dir: PathBuf,
    /// The most connections the pool opens.
    pub max_connections: u32,
    /// Whether a missing SQLite file (and its folder) is created (default); the
    /// CLI opens without it except for `board init`, so a mistyped path is
    /// refused rather than silently made new.
    pub create_missing: bool,
    /// How long an operation waits for a database connection before failing
    /// with [`Error::Unavailable`] (default 5 s).
    pub acquire_timeout: std::time::Duration,
    /// The largest accepted attachment, in bytes.
    pub max_attachment_bytes: u64,
    /// Whether uploads are accepted at all (the installation's switch).
    pub attachments_enabled: bool,
    /// Another file store than the local folder `files_dir` (e.g. an object store).
    pub file_store: Option<Arc<dyn FileStore>>,
}

impl Options {
    /// Options for `database_url` with the default files folder.
    pub fn new(database_url: impl Into<String>) -> Self {
        Options {
            database_url: database_url.into(),
            files_dir: PathBuf::from(DEFAULT_FILES_DIR),
            max_connections: 16,
            acquire_timeout: std::time::Duration::from_secs(5),
            create_missing: true,
            max_attachment_bytes: DEFAULT_MAX_ATTACHMENT_BYTES,
            attachments_enabled: true,
            file_store: None,
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
    pool: AnyPool,
    backend: Backend,
    store: Arc<dyn FileStore>,
    max_attachment_bytes: u64,
    attachments_enabled: bool,
    writers: db::WriteQueue,
}

impl Board {
    /// Opens `database_url` (migrating it) with default options.
    pub async fn open(database_url: &str) -> Result<Board> {
        Board::open_with(Options::new(database_url)).await
    }

    /// Opens a board: connects, creates a missing SQLite file, runs migrations,
    /// and creates the files folder.
    pub async fn open_with(options: Options) -> Result<Board> {
        let (pool, backend) = db::connect(
            &options.database_url,
            options.max_connections,
            options.acquire_timeout,
            options.create_missing,
        )
        .await?;
        let store = match options.file_store {
            Some(store) => store,
            None => Arc::new(LocalDir::new(&options.files_dir).map_err(|e| {
                Error::Config(format!(
                    "cannot create {}: {e}",
                    options.files_dir.display()
                ))
            })?),
        };
        Ok(Board {
            pool,
            backend,
            store,
            max_attachment_bytes: options.max_attachment_bytes,
            attachments_enabled: options.attachments_enabled,
            writers: db::WriteQueue::default(),
        })
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
            max: self.pool.options().get_max_connections(),
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

    /// Opens a write transaction holding `lock`: the row its operation reads
    /// and decides under. More locks may follow, parent first
    /// (`db::WriteTx::lock`).
    pub(crate) async fn write(&self, lock: db::Lock<'_>) -> Result<db::WriteTx> {
        let mut tx = self.write_unlocked().await?;
        tx.lock(lock).await?;
        Ok(tx)
    }

    /// Opens a write transaction without a parent lock, for changes that decide
    /// nothing from rows another writer could change: creations backed by a
    /// unique or foreign key, single-statement updates.
    pub(crate) async fn write_unlocked(&self) -> Result<db::WriteTx> {
        db::WriteTx::begin(&self.pool, self.backend, &self.writers).await
    }
}
