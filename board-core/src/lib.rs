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
mod board;
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
mod mail;
mod markdown;
mod members;
mod mine;
mod names;
mod notifications;
mod open;
#[cfg(feature = "openapi")]
mod openapi;
mod order;
mod paging;
mod passwords;
mod people;
mod preview;
mod query;
mod relations;
#[cfg(feature = "s3")]
mod s3;
mod search;
mod sets;
mod settings;
mod sso;
mod store;
mod stored;
mod sweep;
#[cfg(test)]
mod testing;
mod text;
mod time;
mod tokens;
mod transfer;
mod trello;
mod validate;
mod webhooks;
mod wip;
mod workspaces;

// The public API, each item once.
pub use access::{
    check_token_lifetime, Account, Actor, Bearer, Caller, IssuedToken, Membership, Role, Session,
    TokenKind, MAX_TOKEN_LIFETIME,
};
pub use archive::{ArchivedPage, ArchivedQuery};
pub use attachments::{Attachment, PartInfo, Scope, UploadSource};
pub use board::{
    Admin, Board, Options, PoolStats, DEFAULT_DATABASE_URL, DEFAULT_FILES_DIR,
    DEFAULT_MAX_ATTACHMENT_BYTES, DEFAULT_MAX_FILES_PER_REQUEST, TEMP_GRACE,
};
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
pub use error::{Error, Result, Rule, SsoReason, ValidationErrors};
pub use etag::{Conditional, ETag, IfMatch, IfNoneMatch, Saved, PAYLOAD_REVISION};
pub use events::activity::{ActivityActor, ActivityItem, ActivityPage, ActivityQuery};
pub use events::{
    check_events_retention, check_retention, Event, FeedItem, RetentionError, Subscription,
    ACCESS_RECHECK, MIN_RETENTION as MIN_EVENTS_RETENTION,
};
pub use files::{BoxFuture, FileReader, FileStore, FileWriter, LocalDir, StoreEntry};
pub use flow::{
    AgingCard, DayCounts, DayDone, Durations, Flow, FlowColumn, FlowQuery, DEFAULT_WINDOW_DAYS,
    MAX_WINDOW_DAYS,
};
pub use history::HistoryEntry;
pub use ids::{
    AccountId, AttachmentId, CardId, ChecklistItemId, ColumnId, CommentId, HistoryId, InvitationId,
    LabelId, NotificationId, ProjectId, RelationId, TokenId, WebhookId, WorkspaceId, CUID_PATTERN,
};
pub use invitations::{
    CodeUse, CodeUsed, CreatedInvitation, Invitation, NewInvitation, PasswordReset, ResetCode,
    INVITATION_LIFETIME, RESET_LIFETIME,
};
pub use labels::{Label, LabelPatch, LabelPlace, NewLabel};
pub use mail::address::{Email, Verified, VerifyInput, VERIFY_LIFETIME};
pub use mail::log::MailLogEntry;
pub use mail::prefs::{MailKinds, MailPreferences, PreferencesPatch, MAX_BATCH_MINUTES};
pub use mail::prune::{MailPruned, BATCHES_KEPT_FOR};
pub use mail::reset::{ResetRequest, ResetRequested, MAILED_RESET_LIFETIME};
pub use mail::send::{
    MailSettings, MailWorker, Outcome, FIRST_RETRY, GIVE_UP_AFTER, MAX_RETRY_DELAY,
};
pub use mail::unsubscribe::Unsubscribe;
pub use mail::{Accepted, Mail, Mailer, NotSent};
pub use markdown::ThreadQuery;
pub use members::{MemberPatch, WorkspaceMember};
pub use mine::{Assignee, CardQuery, Due};
pub use names::{name_key, MAX_NAME_CHARS};
pub use notifications::due::{DEFAULT_REMINDER_HOURS, REMIND_EVERY};
pub use notifications::{
    Notification, NotificationActor, NotificationCard, NotificationPage, NotificationQuery,
    ReadCount, ReadInput, UnreadCount, KEPT_FOR as NOTIFICATIONS_KEPT_FOR, MAX_READ_IDS,
};
pub use order::Placement;
pub use passwords::{Password, HASH_WAIT, MAX_PASSWORD_CHARS, MIN_PASSWORD_CHARS};
pub use people::{
    shown_name, subject_of, Me, MePatch, MeProject, MeWorkspace, PasswordChange, SignIn, SignedIn,
};
pub use preview::{MarkdownInput, Rendered};
pub use query::SetQuery;
pub use relations::{NewRelation, Relation, RelationKind};
#[cfg(feature = "s3")]
pub use s3::S3Store;
pub use search::{
    SearchMatch, SearchPage, SearchQuery, SearchResult, MAX_COMMENT_MATCHES, MAX_QUERY,
};
pub use settings::{ColumnScope, Settings, SettingsPatch};
pub use sso::{
    Identity, Provider, SsoCallback, SsoDone, SsoSettings, SsoStart, SsoStarted, DEFAULT_SSO_NAME,
    DEFAULT_SSO_SCOPES, KEYS_REFRESH, PROVIDER_TIMEOUT, SSO_STATE_LIFETIME,
};
pub use store::Backend;
pub use sweep::{SweepReport, LOOSE_UPLOAD_TTL};
pub use text::{CommentText, Description, InvalidText, ItemText, Name};
pub use time::Timestamp;
pub use tokens::{CreatedToken, NewToken, OwnToken, LAST_USED_STEP};
pub use transfer::{
    TableCount, TransferOptions, TransferProgress, TransferReport, EXPORT_FORMAT_VERSION, TABLES,
};
pub use trello::{
    Counted, ImportSummary, ImportedBoard, ImportedCards, TrelloImport, UnmappedMember,
};
pub use validate::{FromJson, Input};
pub use webhooks::deliver::{webhook_signature, FLUSH as WEBHOOK_FLUSH};
pub use webhooks::{
    CreatedWebhook, Delivery, NewWebhook, PatchedWebhook, Webhook, WebhookFields, WebhookPatch,
    WebhookSettings, WebhookWorker, DELIVERIES_KEPT, MIN_SECRET, WEBHOOK_EVENTS,
};
pub use wip::{WipLimit, WipLimits};
pub use workspaces::{Bootstrap, NewProject, Project, ProjectPatch, Workspace};
