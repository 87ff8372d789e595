//! # board-core
//!
//! The typed operations of the board service and every rule of its contract:
//! workspaces, accounts and tokens, column sets, cards and their history. The
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
//! let column = board
//!     .create_column(&Actor::Operator, board_core::NewColumn {
//!         tenant_id: ws.id.clone(),
//!         project_id: None,
//!         name: "To do".into(),
//!         color: board_core::Accent::Slate,
//!         done: false,
//!     }.into())
//!     .await?;
//! let card = board
//!     .create_card(&Actor::Operator, NewCard {
//!         tenant_id: ws.id.clone(),
//!         project_id: None,
//!         column_id: None,
//!         title: "Write the docs".into(),
//!     }.into())
//!     .await?;
//! assert_eq!(card.column_id, column.id.as_str());
//! assert!(column.done, "the first column of a set is its done column");
//! # std::fs::remove_dir_all(&dir).ok();
//! # Ok::<(), board_core::Error>(())
//! # }).unwrap();
//! ```

pub mod access;
pub mod cards;
pub mod columns;
pub mod db;
pub mod error;
mod files;
pub mod history;
pub mod ids;
pub mod relations;
pub mod settings;
pub mod validate;
pub mod workspaces;

use std::path::{Path, PathBuf};

use sqlx::AnyPool;

pub use access::{Account, Actor, IssuedToken, Membership, Role};
pub use cards::{BoardColumn, BoardView, Card, CardPatch, NewCard};
pub use columns::{
    Accent, CardsFate, Column, ColumnDeleted, ColumnOrder, ColumnPatch, DeleteColumn, NewColumn,
};
pub use db::Backend;
pub use error::{Error, Result, Rule, ValidationErrors};
pub use history::HistoryEntry;
pub use ids::*;
pub use relations::{NewRelation, Relation, RelationKind};
pub use settings::{ColumnScope, Settings, SettingsPatch};
pub use validate::{FromJson, Input};
pub use workspaces::{Bootstrap, Project, Workspace};

/// The default database: an embedded SQLite file, created when missing.
pub const DEFAULT_DATABASE_URL: &str = "sqlite://board-data/board.db";
/// The default folder of stored files.
pub const DEFAULT_FILES_DIR: &str = "board-data/files";

/// How to open a [`Board`].
#[derive(Debug, Clone)]
pub struct Options {
    /// `sqlite://PATH` or `postgres://…`.
    pub database_url: String,
    /// Where attachment files are stored.
    pub files_dir: PathBuf,
    /// The most connections the pool opens.
    pub max_connections: u32,
}

impl Options {
    /// Options for `database_url` with the default files folder.
    pub fn new(database_url: impl Into<String>) -> Self {
        Options {
            database_url: database_url.into(),
            files_dir: PathBuf::from(DEFAULT_FILES_DIR),
            max_connections: 16,
        }
    }
}

/// The handle every operation hangs off: the database pool and the files folder.
/// Cheap to clone.
#[derive(Debug, Clone)]
pub struct Board {
    pool: AnyPool,
    backend: Backend,
    files_dir: PathBuf,
}

impl Board {
    /// Opens `database_url` (migrating it) with default options.
    pub async fn open(database_url: &str) -> Result<Board> {
        Board::open_with(Options::new(database_url)).await
    }

    /// Opens a board: connects, creates a missing SQLite file, runs migrations,
    /// and creates the files folder.
    pub async fn open_with(options: Options) -> Result<Board> {
        let (pool, backend) = db::connect(&options.database_url, options.max_connections).await?;
        std::fs::create_dir_all(&options.files_dir).map_err(|e| {
            Error::Config(format!(
                "cannot create {}: {e}",
                options.files_dir.display()
            ))
        })?;
        Ok(Board {
            pool,
            backend,
            files_dir: options.files_dir,
        })
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.backend
    }

    /// The folder of stored files.
    pub fn files_dir(&self) -> &Path {
        &self.files_dir
    }

    /// The pool's use: (open connections, idle connections, limit).
    pub fn pool_stats(&self) -> (u32, usize, u32) {
        (
            self.pool.size(),
            self.pool.num_idle(),
            self.pool.options().get_max_connections(),
        )
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

    /// Opens a write transaction (see [`db`] for the locking discipline).
    pub(crate) async fn begin_write(&self) -> Result<db::Tx> {
        db::begin_write(&self.pool, self.backend).await
    }
}
