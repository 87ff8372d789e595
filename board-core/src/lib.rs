//! # board-core
//!
//! The typed operations of the board service and every rule of its contract:
//! workspaces, accounts and tokens, column sets, cards and their history,
//! comments and attachments (with their [`FileStore`]). The HTTP server
//! (`board-server`) and the admin CLI (`board`) are thin layers over the same
//! [`Board`] handle.
//!
//! Storage is embedded SQLite or PostgreSQL, chosen from the URL; every write is
//! one transaction opened together with the lock its decision needs.
//!
//! ## The shape of the API
//!
//! - Every operation on a workspace's data is a method of [`Board`] taking the
//!   [`Actor`] it runs for ([`Actor::Operator`] for the installation's
//!   operator, as the CLI runs; [`Board::authenticate`] turns a token into an
//!   account's actor). What acts outside any workspace's roles (workspaces,
//!   accounts, tokens, members, lookups by name, the sweep, moving an
//!   installation) is on the operator's handle, [`Board::admin`].
//! - Ids are typed ([`WorkspaceId`], [`ProjectId`], [`ColumnId`], [`CardId`],
//!   [`CommentId`], [`AttachmentId`], [`RelationId`], [`AccountId`],
//!   [`HistoryId`], [`TokenId`]): parsed once at the boundary
//!   ([`CardId::parse`]), carried as such by every
//!   output (`card.id` is a [`CardId`]), serialized as plain strings.
//! - Names and comment content are checked once, by [`Name`] and
//!   [`CommentText`]; an input holding them is valid by construction.
//! - Creates and updates take their input as `impl Into<Input<T>>`: pass the
//!   typed input ([`NewCard`], [`ColumnPatch`], …); the server passes the raw
//!   body ([`Input::from_body`]), whose check the operation defers until after
//!   its access checks, as the contract orders them (see [`Input`]).
//! - The reads `list_columns` and `board` take a [`SetQuery`] (a workspace and
//!   optionally a project), `settings` a [`WorkspaceId`]; both parse from the
//!   query string with the contract's outcomes ([`SetQuery::from_query`],
//!   [`WorkspaceId::from_query`]).
//! - Every failure is one [`Error`], with its wire `code()`; board-core knows
//!   no HTTP (board-server maps each error to its status).
//!
//! The workspace is a "tenant" on the wire: Rust fields are `workspace_id`, the
//! JSON says `tenantId`.
//!
//! ## Cargo features
//!
//! Neither is on by default: with the defaults, board-core is SQLite,
//! PostgreSQL and files in a folder (or your own [`FileStore`]), without the
//! AWS SDK.
//!
//! - `s3`: `S3Store`, attachment files in an S3-compatible bucket
//!   ([`Options::files_url`] `s3://BUCKET[/PREFIX]`). Without it, opening a
//!   board with `files_url` set fails with [`Error::Config`]. board-server
//!   and the CLI turn it on.
//! - `openapi`: the OpenAPI schemas (`utoipa::ToSchema`) of the wire types,
//!   for board-server's `/api/openapi.json`.
//!
//! ## Workspaces and projects
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-ws-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{Actor, Name};
//! // A workspace is born with its tenant set: To do, Doing and Done (the done column).
//! let ws = board.admin().create_workspace(&Name::parse("Product")?).await?;
//! let project = board.admin().create_project(&ws.id, &Name::parse("Website")?).await?;
//! assert_eq!(project.workspace_id, ws.id);
//! assert_eq!(board.admin().find_workspace("product").await?.id, ws.id, "found by name, any case");
//! assert_eq!(board.admin().list_projects(&ws.id).await?, vec![project]);
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Columns
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-columns-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{Accent, ColumnPatch, DeleteColumn, Name, NewColumn, SetQuery};
//! let columns = board.list_columns(&me, Some(&SetQuery::workspace(ws.id.clone()))).await?;
//! assert_eq!(columns.len(), 3);
//! assert!(columns[2].done);
//! let review = NewColumn::new(ws.id.clone(), Name::parse("Review")?).color(Accent::Violet);
//! let review = board.create_column(&me, review).await?;
//! assert_eq!(review.position, 3);
//! let renamed = ColumnPatch::default().name(Name::parse("In review")?);
//! board.update_column(&me, &review.id, renamed).await?;
//! // A column's cards go somewhere when it goes: moved, or deleted with a confirmation.
//! board.delete_column(&me, &review.id, DeleteColumn::move_cards(columns[0].id.clone())).await?;
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Cards, moves and history
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-cards-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{CardPatch, Name, NewCard, SetQuery};
//! let columns = board.list_columns(&me, Some(&SetQuery::workspace(ws.id.clone()))).await?;
//! let card = board.create_card(&me, NewCard::new(ws.id.clone(), Name::parse("Write the docs")?)).await?;
//! assert_eq!(card.column_id, columns[0].id, "a new card lands in the first column");
//! board.move_card(&me, &card.id, &columns[2].id).await?;
//! let renamed = board.update_card(&me, &card.id, CardPatch::default().title(Name::parse("Docs")?)).await?;
//! assert_eq!(renamed.title, "Docs");
//! let history = board.card_history(&me, &card.id).await?;
//! assert_eq!(history[1].to_name, "Done");
//! let view = board.board(&me, &SetQuery::workspace(ws.id.clone())).await?;
//! assert_eq!(view.columns[2].cards[0].id, card.id);
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Comments
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-comments-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{CommentInput, CommentText, Name, NewCard};
//! let card = board.create_card(&me, NewCard::new(ws.id.clone(), Name::parse("Discuss")?)).await?;
//! let comment = board.create_comment(&me, &card.id, CommentInput::new(CommentText::parse("Looks *good*")?)).await?;
//! assert_eq!(comment.card_id, card.id);
//! board.update_comment(&me, &comment.id, CommentInput::new(CommentText::parse("Looks great")?)).await?;
//! assert_eq!(board.card_comments(&me, &card.id).await?[0].content, "Looks great");
//! board.delete_comment(&me, &comment.id).await?;
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Attachments
//!
//! Uploads are read from an [`UploadSource`] (the server adapts its multipart
//! body to it); the format is judged by content.
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-files-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{Name, NewCard, PartInfo, UploadSource};
//! /// One part in memory.
//! struct OnePart(Option<Vec<u8>>, bool);
//! impl UploadSource for OnePart {
//!     type Chunk = Vec<u8>;
//!     async fn next_part(&mut self) -> board_core::Result<Option<PartInfo>> {
//!         if std::mem::replace(&mut self.1, true) { return Ok(None) }
//!         Ok(Some(PartInfo { field: "files".into(), file_name: Some("notes.txt".into()) }))
//!     }
//!     async fn next_chunk(&mut self) -> board_core::Result<Option<Vec<u8>>> {
//!         Ok(self.0.take())
//!     }
//! }
//! let card = board.create_card(&me, NewCard::new(ws.id.clone(), Name::parse("Spec")?)).await?;
//! let mut upload = OnePart(Some(b"plain text notes\n".to_vec()), false);
//! let stored = board.attach_files(&me, &card.id, &mut upload).await?;
//! assert_eq!(stored[0].mime_type, "text/plain");
//! assert_eq!(board.card_attachments(&me, &card.id).await?.len(), 1);
//! board.delete_attachment(&me, &stored[0].id).await?;
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Relations
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-links-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{Name, NewCard, NewRelation, RelationKind};
//! let parent = board.create_card(&me, NewCard::new(ws.id.clone(), Name::parse("Epic")?)).await?;
//! let child = board.create_card(&me, NewCard::new(ws.id.clone(), Name::parse("Story")?)).await?;
//! let link = board.create_relation(&me, &parent.id, NewRelation::new(child.id.clone(), RelationKind::Parent)).await?;
//! assert_eq!(link.target_id, child.id);
//! // The inverse link would close a cycle of PARENT links.
//! let inverse = NewRelation::new(parent.id.clone(), RelationKind::Parent);
//! assert!(board.create_relation(&me, &child.id, inverse).await.is_err());
//! board.delete_relation(&me, &link.id).await?;
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Settings
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-settings-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{ColumnScope, SettingsPatch};
//! assert_eq!(board.settings(&me, &ws.id).await?.column_scope, ColumnScope::Tenant);
//! let patch = SettingsPatch::new(ws.id.clone()).column_scope(ColumnScope::Project);
//! let settings = board.update_settings(&me, patch).await?;
//! assert!(settings.column_management, "unchanged");
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## WIP limits
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-wip-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{ColumnPatch, Name, NewCard, SetQuery, SettingsPatch, WipLimit, WipLimits};
//! let columns = board.list_columns(&me, Some(&SetQuery::workspace(ws.id.clone()))).await?;
//! let doing = &columns[1].id;
//! board.update_column(&me, doing, ColumnPatch::default().wip_limit(WipLimit::new(1))).await?;
//! board.update_settings(&me, SettingsPatch::new(ws.id.clone()).wip_limits(WipLimits::Hard)).await?;
//! let card = |t| NewCard::new(ws.id.clone(), Name::parse(t).unwrap()).in_column(Some(doing.clone()));
//! board.create_card(&me, card("first")).await?;
//! let refused = board.create_card(&me, card("second")).await.unwrap_err();
//! assert_eq!(refused.code(), "WIP_LIMIT");
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```
//!
//! ## Moving an installation
//!
//! [`Admin::copy_to`] copies every row (ids, times, token hashes, event seqs)
//! and, when asked, every stored file into a board on an empty database of
//! either backend, from one snapshot of the source, in one transaction on the
//! target. [`Admin::export`] writes the same content as versioned JSON Lines
//! files (docs/export.md), which [`Admin::import`] verifies and loads. The
//! tables go in the foreign-key order of [`TABLES`]; their columns are read
//! from both databases at run time. See the `copy_to` example.
//!
//! ## Accounts and tokens
//!
//! ```
//! # let dir = std::env::temp_dir().join(format!("board-doc-tokens-{}", std::process::id()));
//! # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
//! # let mut options = board_core::Options::new(format!("sqlite://{}/doc.db", dir.display()));
//! # options.files_dir = dir.join("files");
//! # let board = board_core::Board::open_with(options).await?;
//! # let ws = board.admin().create_workspace(&board_core::Name::parse("Team")?).await?;
//! # let me = board_core::Actor::Operator;
//! use board_core::{Name, Role};
//! let ana = board.admin().create_account(&Name::parse("ana")?).await?;
//! board.admin().add_member(&ws.id, &ana.id, Role::Member).await?;
//! let issued = board.admin().create_token(&ana.id, None).await?;
//! let actor = board.authenticate(&issued.token).await?;
//! assert_eq!(actor.account(), Some(&ana.id));
//! // Ana may read the workspace's settings, not change them (ADMIN).
//! board.settings(&actor, &ws.id).await?;
//! assert_eq!(board.admin().list_tokens(Some(&ana.id)).await?[0].id, issued.id);
//! board.admin().revoke_token(&issued.id).await?;
//! assert!(board.authenticate(&issued.token).await.is_err());
//! # board.close().await;
//! # Ok::<(), board_core::Error>(())
//! # });
//! # std::fs::remove_dir_all(&dir).ok();
//! # result.unwrap();
//! ```

#![warn(missing_docs)]

mod access;
mod archive;
mod attachments;
mod cards;
mod change;
mod checklist;
mod columns;
mod comments;
mod counts;
mod detect;
mod directory;
mod error;
mod etag;
mod events;
mod files;
mod flow;
mod history;
mod ids;
mod invitations;
mod labels;
mod markdown;
mod members;
mod mine;
mod names;
#[cfg(feature = "openapi")]
mod openapi;
mod order;
mod paging;
mod passwords;
mod people;
mod query;
mod relations;
#[cfg(feature = "s3")]
mod s3;
mod search;
mod sets;
mod settings;
mod store;
mod stored;
mod sweep;
#[cfg(test)]
mod testing;
mod text;
mod time;
mod tokens;
mod transfer;
mod validate;
mod webhooks;
mod wip;
mod workspaces;

use std::path::PathBuf;
use std::sync::Arc;

// The public API, each item once.
pub use access::{
    check_token_lifetime, Account, Actor, Bearer, Caller, IssuedToken, Membership, Role, Session,
    TokenKind, MAX_TOKEN_LIFETIME,
};
pub use archive::{ArchivedPage, ArchivedQuery};
pub use attachments::{Attachment, PartInfo, Scope, UploadSource};
pub use cards::{
    BoardColumn, BoardView, Card, CardPatch, CardView, IdList, NewCard, Progress, MAX_CARD_IDS,
};
pub use checklist::{ChecklistItem, ItemPatch, ItemPlace, NewItem, MAX_ITEMS};
pub use columns::{
    Accent, CardsFate, Column, ColumnDeleted, ColumnOrder, ColumnPatch, DeleteColumn, NewColumn,
    CONFIRM_DELETE_CARDS, MAX_REORDER,
};
pub use comments::{Comment, CommentInput};
pub use counts::{CardCounts, CountMismatch};
pub use directory::{Member, TokenInfo};
pub use error::{Error, Result, Rule, ValidationErrors};
pub use etag::{Conditional, ETag, IfMatch, IfNoneMatch, PAYLOAD_REVISION};
pub use events::{Event, FeedItem, Subscription, ACCESS_RECHECK};
pub use files::{BoxFuture, FileReader, FileStore, FileWriter, LocalDir, StoreEntry};
pub use flow::{
    AgingCard, DayCounts, DayDone, Durations, Flow, FlowColumn, FlowQuery, DEFAULT_WINDOW_DAYS,
    MAX_WINDOW_DAYS,
};
pub use history::HistoryEntry;
pub use ids::{
    AccountId, AttachmentId, CardId, ChecklistItemId, ColumnId, CommentId, HistoryId, InvitationId,
    LabelId, ProjectId, RelationId, TokenId, WebhookId, WorkspaceId, CUID_PATTERN,
};
pub use invitations::{
    CodeUse, CodeUsed, CreatedInvitation, Invitation, NewInvitation, PasswordReset,
    INVITATION_LIFETIME, RESET_LIFETIME,
};
pub use labels::{Label, LabelPatch, LabelPlace, NewLabel};
pub use markdown::ThreadQuery;
pub use members::{MemberPatch, WorkspaceMember};
pub use mine::{Assignee, CardQuery, Due};
pub use names::{name_key, MAX_NAME_CHARS};
pub use order::Placement;
pub use passwords::{Password, HASH_WAIT, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS};
pub use people::{
    shown_name, subject_of, Me, MePatch, MeProject, MeWorkspace, PasswordChange, SignIn, SignedIn,
};
pub use query::SetQuery;
pub use relations::{NewRelation, Relation, RelationKind};
#[cfg(feature = "s3")]
pub use s3::S3Store;
pub use search::{
    SearchMatch, SearchPage, SearchQuery, SearchResult, MAX_COMMENT_MATCHES, MAX_QUERY,
};
pub use settings::{ColumnScope, Settings, SettingsPatch};
pub use store::Backend;
pub use sweep::{SweepReport, LOOSE_UPLOAD_TTL, TEMP_GRACE};
pub use text::{CommentText, Description, InvalidText, ItemText, Name};
pub use time::Timestamp;
pub use tokens::{CreatedToken, NewToken, OwnToken, LAST_USED_STEP};
pub use transfer::{
    TableCount, TransferOptions, TransferProgress, TransferReport, EXPORT_FORMAT_VERSION, TABLES,
};
pub use validate::{FromJson, Input};
pub use webhooks::deliver::{webhook_signature, FLUSH as WEBHOOK_FLUSH};
pub use webhooks::{
    CreatedWebhook, Delivery, NewWebhook, PatchedWebhook, Webhook, WebhookFields, WebhookPatch,
    WebhookSettings, WebhookWorker, DELIVERIES_KEPT, MIN_SECRET, WEBHOOK_EVENTS,
};
pub use wip::{WipLimit, WipLimits};
pub use workspaces::{Bootstrap, NewProject, Project, ProjectPatch, Workspace};

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
    board: &'a Board,
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
    /// feature, opening with it set fails with [`Error::Config`].
    pub files_url: Option<String>,
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
    /// The most files one upload may hold (default
    /// [`DEFAULT_MAX_FILES_PER_REQUEST`], 100); one more is
    /// [`Error::TooManyFiles`], and nothing is stored.
    pub max_files_per_request: usize,
    /// Whether uploads are accepted at all (the installation's switch).
    pub attachments_enabled: bool,
    /// Another file store than `files_url` or the local folder `files_dir`.
    pub file_store: Option<Arc<dyn FileStore>>,
    /// How long a temporary may sit before the sweep counts it as left by a
    /// crash (default [`TEMP_GRACE`], 1 h).
    pub temp_grace: std::time::Duration,
    /// Whether webhooks may target addresses that are not public (loopback,
    /// private, link-local, unique-local, unspecified, and the other ranges
    /// and forms of api.md §18; `--webhook-allow-private`; default off).
    pub webhook_allow_private: bool,
}

impl Options {
    /// Options for `database_url` with the default files folder.
    pub fn new(database_url: impl Into<String>) -> Self {
        Options {
            database_url: database_url.into(),
            files_dir: PathBuf::from(DEFAULT_FILES_DIR),
            files_url: None,
            max_connections: 16,
            acquire_timeout: std::time::Duration::from_secs(5),
            create_missing: true,
            max_attachment_bytes: DEFAULT_MAX_ATTACHMENT_BYTES,
            max_files_per_request: DEFAULT_MAX_FILES_PER_REQUEST,
            attachments_enabled: true,
            file_store: None,
            temp_grace: TEMP_GRACE,
            webhook_allow_private: false,
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
    pool: store::Conns,
    backend: Backend,
    store: Arc<dyn FileStore>,
    max_attachment_bytes: u64,
    max_files_per_request: usize,
    attachments_enabled: bool,
    temp_grace: std::time::Duration,
    webhook_allow_private: bool,
    writers: store::WriteQueue,
    feed: events::Feed,
    /// The feed, as the store tells it of a commit with events.
    on_commit: Arc<dyn store::OnCommit>,
    database_url: String,
    /// The workspaces' column listings this process has read (`columns::listing`).
    listings: Arc<columns::Listings>,
    /// The threads that hash passwords, one per core (`passwords.rs`).
    hashers: passwords::Hashers,
    /// When this process last moved each token's `lastUsedAt` (`tokens.rs`).
    touched: tokens::Touched,
}

impl Board {
    /// Opens `database_url` (migrating it) with default options.
    pub async fn open(database_url: &str) -> Result<Board> {
        Board::open_with(Options::new(database_url)).await
    }

    /// Opens a board: connects, creates a missing SQLite file, runs migrations,
    /// and creates the files folder (or checks that the bucket of `files_url` answers).
    pub async fn open_with(options: Options) -> Result<Board> {
        let backend = store::Backend::from_url(&options.database_url)?;
        let prepared = Arc::new(backend.prepared(hot_statements(backend)));
        let (pool, backend) = store::connect(
            &options.database_url,
            options.max_connections,
            options.acquire_timeout,
            options.create_missing,
            &prepared,
        )
        .await?;
        let store = match (options.file_store, &options.files_url) {
            (Some(store), _) => store,
            #[cfg(feature = "s3")]
            (None, Some(url)) => Arc::new(S3Store::connect(url).await?),
            #[cfg(not(feature = "s3"))]
            (None, Some(url)) => {
                return Err(Error::Config(format!(
                    "--files-url {url:?}: this build of board-core lacks the `s3` feature \
                     (files in an object store); build it with `--features s3`, or keep \
                     the files in a folder"
                )))
            }
            (None, None) => Arc::new(LocalDir::new(&options.files_dir).map_err(|e| {
                Error::Config(format!(
                    "cannot create {}: {e}",
                    options.files_dir.display()
                ))
            })?),
        };
        let pool = store::Conns::new(pool, options.acquire_timeout);
        let feed = events::Feed::new(&pool, backend);
        let writers = store::WriteQueue::new(&pool, backend, prepared);
        let board = Board {
            on_commit: Arc::new(feed.clone()),
            feed,
            pool,
            backend,
            store,
            max_attachment_bytes: options.max_attachment_bytes,
            max_files_per_request: options.max_files_per_request,
            attachments_enabled: options.attachments_enabled,
            temp_grace: options.temp_grace,
            webhook_allow_private: options.webhook_allow_private,
            writers,
            database_url: options.database_url,
            listings: Arc::default(),
            hashers: passwords::Hashers::default(),
            touched: tokens::Touched::default(),
        };
        board.ensure_search_index().await?;
        board.fill_name_keys().await?;
        Ok(board)
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
    /// method of [`Board`] itself takes the [`Actor`] it runs for; the CLI,
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

#[cfg(all(test, not(feature = "s3")))]
mod tests {
    use super::*;

    #[tokio::test]
    async fn files_url_without_the_s3_feature_is_a_config_error() {
        let dir = std::env::temp_dir().join(format!("board-no-s3-{}", std::process::id()));
        let mut options = Options::new(format!("sqlite://{}/board.db", dir.display()));
        options.files_dir = dir.join("files");
        options.files_url = Some("s3://bucket/prefix".into());
        let result = Board::open_with(options).await;
        std::fs::remove_dir_all(&dir).ok();
        match result {
            Err(Error::Config(message)) => assert!(
                message.contains("\"s3://bucket/prefix\"") && message.contains("`s3` feature"),
                "{message}"
            ),
            other => panic!("expected Error::Config, got {other:?}"),
        }
    }
}

/// The statements of the hot writes that a batch sends with literals on
/// PostgreSQL (a card write's re-read, a move to a column's end, a new card's
/// column, a history entry,
/// a new comment, the words of up to 16 distinct terms, a document's words
/// removed), which every connection prepares so that they run by name
/// ([`store::Backend::prepared`] adds the locks and the event).
fn hot_statements(backend: store::Backend) -> Vec<String> {
    let mut texts = vec![
        cards::card_read_sql(false),
        cards::card_read_sql(true),
        cards::card_move_read_sql(backend),
        cards::MOVE_TO_END_SQL.to_string(),
        cards::move_at_commit_sql(),
        store::COLUMN_VERSION_SQL.to_string(),
        cards::column_read_sql(false),
        cards::column_read_sql(true),
        history::ENTRY_SQL.to_string(),
        comments::insert_sql(backend),
        search::index::FORGET_SQL.to_string(),
    ];
    texts.extend((1..=16).map(search::index::insert_sql));
    texts
}
