//! The one error type of every operation ([`Error`]), with its wire code (`code()`) and
//! details; the domain rules' 422 codes ([`Rule`]); and the schema failures
//! ([`ValidationErrors`], `fieldErrors` / `formErrors`). board-core knows no HTTP: the
//! server maps each code to its status (`board-server/src/error.rs`, `HttpStatus`).

use std::collections::BTreeMap;

use serde::Serialize;

/// `Result` with [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Field-by-field schema failures, shaped like the contract's 422 `details`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct ValidationErrors {
    /// Messages per body field (or query parameter).
    #[serde(rename = "fieldErrors")]
    pub field_errors: BTreeMap<String, Vec<String>>,
    /// Messages about the body as a whole (not JSON, not an object, unknown keys).
    #[serde(rename = "formErrors")]
    pub form_errors: Vec<String>,
}

impl ValidationErrors {
    /// Adds a message for `field`.
    pub fn field(&mut self, field: &str, message: impl Into<String>) {
        self.field_errors
            .entry(field.to_string())
            .or_default()
            .push(message.into());
    }

    /// Adds a message about the whole body.
    pub fn form(&mut self, message: impl Into<String>) {
        self.form_errors.push(message.into());
    }

    /// True when nothing was reported.
    pub fn is_empty(&self) -> bool {
        self.field_errors.is_empty() && self.form_errors.is_empty()
    }

    /// A single field error, as an [`Error`].
    pub fn one(field: &str, message: impl Into<String>) -> Error {
        let mut e = ValidationErrors::default();
        e.field(field, message);
        Error::Validation(e)
    }

    /// A single whole-body error, as an [`Error`].
    pub fn whole(message: impl Into<String>) -> Error {
        let mut e = ValidationErrors::default();
        e.form(message);
        Error::Validation(e)
    }
}

/// A domain rule that refused a well-formed request (status 422).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Rule {
    /// The done mark can only be moved by marking another column.
    DoneMarkRequired,
    /// A set keeps at least one column.
    LastColumn,
    /// The done column cannot be deleted; mark another first.
    DoneColumn,
    /// Column ids of several sets in one reorder.
    MixedSets,
    /// A target column outside the set in effect.
    InvalidTargetColumn,
    /// A card linked to itself.
    SelfLink,
    /// A link between cards of different workspaces.
    CrossWorkspaceLink,
    /// A link across projects while `allowCrossProjectLinks` is off.
    CrossProjectLink,
    /// A PARENT or BLOCKS link that would close a cycle.
    LinkCycle,
    /// An attachment id that is not a loose comment upload of the card.
    InvalidAttachment,
    /// A placement's anchor (`beforeId` / `afterId`) that is not another card
    /// of the target column.
    InvalidAnchor,
    /// A write that would put more cards in a column than its WIP limit while
    /// the workspace's limits are `HARD` (api.md §20).
    WipLimit,
    /// A webhook URL whose host resolves to a loopback, private, link-local,
    /// unique-local or unspecified address, or to none (api.md §18).
    WebhookTarget,
    /// A label that is not one of the card's workspace (api.md §24).
    InvalidLabel,
    /// An account that is not a member of the card's workspace (api.md §24).
    NotAMember,
    /// A card's checklist already holds its most items (api.md §24).
    TooManyItems,
    /// A password too weak or containing the account's name (api.md §23).
    WeakPassword,
    /// A password change whose current password is wrong (api.md §23).
    WrongPassword,
    /// Demoting or removing a workspace's last ADMIN (api.md §23).
    LastAdmin,
    /// An e-mail address given while the server sends no mail (api.md §26).
    MailDisabled,
    /// Unlinking an identity that is the account's last way to sign in
    /// (api.md §27).
    LastSignInMethod,
}

/// Why a single sign-on's callback was refused (api.md §27).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SsoReason {
    /// A state that is unknown, used, expired or not this browser's.
    State,
    /// The provider answered with an `error`.
    Provider,
    /// The code exchange failed, or the ID token did not check out.
    Token,
    /// The identity is linked to another account.
    IdentityTaken,
    /// No account is linked to the identity, and nothing makes one.
    NoAccount,
    /// The invitation the sign-in carried does not serve.
    Invitation,
}

impl SsoReason {
    /// The wire code.
    pub fn code(self) -> &'static str {
        match self {
            SsoReason::State => "SSO_STATE",
            SsoReason::Provider => "SSO_PROVIDER_ERROR",
            SsoReason::Token => "SSO_TOKEN",
            SsoReason::IdentityTaken => "IDENTITY_TAKEN",
            SsoReason::NoAccount => "NO_ACCOUNT",
            SsoReason::Invitation => "SSO_INVITATION",
        }
    }
}

impl Rule {
    /// The wire code of the rule.
    pub fn code(self) -> &'static str {
        match self {
            Rule::DoneMarkRequired => "DONE_MARK_REQUIRED",
            Rule::LastColumn => "LAST_COLUMN",
            Rule::DoneColumn => "DONE_COLUMN",
            Rule::MixedSets => "MIXED_SETS",
            Rule::InvalidTargetColumn => "INVALID_TARGET_COLUMN",
            Rule::SelfLink => "SELF_LINK",
            Rule::CrossWorkspaceLink => "CROSS_WORKSPACE_LINK",
            Rule::CrossProjectLink => "CROSS_PROJECT_LINK",
            Rule::LinkCycle => "LINK_CYCLE",
            Rule::InvalidAttachment => "INVALID_ATTACHMENT",
            Rule::InvalidAnchor => "INVALID_ANCHOR",
            Rule::WipLimit => "WIP_LIMIT",
            Rule::WebhookTarget => "WEBHOOK_TARGET",
            Rule::InvalidLabel => "INVALID_LABEL",
            Rule::NotAMember => "NOT_A_MEMBER",
            Rule::TooManyItems => "TOO_MANY_ITEMS",
            Rule::WeakPassword => "WEAK_PASSWORD",
            Rule::WrongPassword => "WRONG_PASSWORD",
            Rule::LastAdmin => "LAST_ADMIN",
            Rule::MailDisabled => "MAIL_DISABLED",
            Rule::LastSignInMethod => "LAST_SIGN_IN_METHOD",
        }
    }
}

/// Every way an operation can fail.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// No credential, or one that is malformed, unknown, revoked or expired.
    #[error("missing or invalid credential")]
    Unauthenticated,
    /// A sign-in with an unknown name, a wrong password, or an account
    /// without a password: one answer for all three (401 `BAD_CREDENTIALS`).
    #[error("the name or the password is not right")]
    BadCredentials,
    /// Too many failures from this client (and, per account, for this
    /// account) within the throttle's window (429 `TOO_MANY_ATTEMPTS`):
    /// retry after this many seconds.
    #[error("too many failed attempts from this address: retry in {0} s")]
    TooManyAttempts(u64),
    /// Every password hasher was busy for the wait allowed (503 `BUSY`).
    #[error("the server is busy checking passwords: retry in a few seconds")]
    Busy,
    /// The account does not reach the workspace, or its role is too low.
    #[error("{0}")]
    Forbidden(String),
    /// `columnManagement` is off for the workspace.
    #[error("column management is turned off for this workspace")]
    ColumnManagementDisabled,
    /// Attachments are off for the installation.
    #[error("attachments are disabled in this installation")]
    AttachmentsDisabled,
    /// The account reaches the workspace with the role, but the comment is
    /// not its own to change (api.md §17): only its author edits it; its
    /// author or an ADMIN of its workspace deletes it.
    #[error("{0}")]
    NotAuthor(&'static str),
    /// The named kind of resource does not exist (or the id is malformed).
    #[error("{0} not found")]
    NotFound(&'static str),
    /// A name or id that matches nothing; the message lists what exists.
    #[error("{0}")]
    Unknown(String),
    /// A link between the two cards already exists.
    #[error("a link between these two cards already exists")]
    LinkExists,
    /// An `If-Match` precondition (api.md §22) names no current tag of the
    /// resource: it changed since the client read it, and nothing was changed.
    #[error("{0}")]
    PreconditionFailed(&'static str),
    /// A unique name or similar is taken (operator commands).
    #[error("{0}")]
    Conflict(String),
    /// A label's name is taken in its workspace, ignoring case (api.md §24).
    #[error("{0}")]
    NameTaken(String),
    /// An upload without a file, or with an empty one.
    #[error("{0}")]
    NoFile(String),
    /// An upload over the per-file maximum.
    #[error("file over the maximum size of {0} bytes")]
    FileTooLarge(u64),
    /// An upload of more files than the installation's maximum per request
    /// (the maximum).
    #[error("more than {0} files in one upload; send them in several requests of at most {0}")]
    TooManyFiles(usize),
    /// An upload whose content is not an accepted format.
    #[error("{0}")]
    UnsupportedFormat(String),
    /// A file given as a Trello board export that is not one (api.md §28):
    /// what is wrong with it.
    #[error("{0}")]
    NotATrelloExport(String),
    /// Password sign-in is off (`--no-password-sign-in`, api.md §27).
    #[error("this server signs in only through its single sign-on provider")]
    PasswordSignInDisabled,
    /// The OpenID provider cannot be reached now (api.md §27).
    #[error("{0}")]
    ProviderUnavailable(String),
    /// A single sign-on refused (api.md §27): why, the message, and the
    /// provider's subject when it was known.
    #[error("{1}")]
    SsoRefused(SsoReason, String, Option<String>),
    /// The body or query failed the schema.
    #[error("the request failed validation")]
    Validation(ValidationErrors),
    /// A domain rule refused the request.
    #[error("{1}")]
    Rule(Rule, String),
    /// The SQLite file does not exist, and the board was opened without
    /// [`crate::Options::create_missing`].
    #[error("no database at {}", .0.display())]
    NoDatabase(std::path::PathBuf),
    /// Bad configuration (database URL, folders).
    #[error("{0}")]
    Config(String),
    /// A copy, export or import refused before it changed anything: a target
    /// that holds data, databases at different migration versions, a corrupt
    /// or truncated export.
    #[error("{0}")]
    Transfer(String),
    /// The database cannot be reached now (connection refused or lost, pool
    /// timed out, server shutting down or starting up, SQLite busy past its
    /// timeout). Worth retrying later.
    #[error("the database is unavailable: {0}")]
    Unavailable(sqlx::Error),
    /// The database failed.
    #[error("database error: {0}")]
    Database(sqlx::Error),
    /// The file system failed.
    #[error("file error: {0}")]
    Io(#[from] std::io::Error),
    /// A state the service should never reach (an unreadable stored row).
    #[error("internal error: {0}")]
    Internal(String),
}

impl Error {
    /// A domain-rule refusal.
    pub fn rule(rule: Rule, message: impl Into<String>) -> Error {
        Error::Rule(rule, message.into())
    }

    /// The refusal for an account that does not reach a workspace.
    pub fn not_reached() -> Error {
        Error::Forbidden("the account does not reach this workspace".into())
    }

    /// The wire code (`{"error": CODE}`).
    pub fn code(&self) -> &'static str {
        match self {
            Error::Unauthenticated => "UNAUTHENTICATED",
            Error::BadCredentials => "BAD_CREDENTIALS",
            Error::TooManyAttempts(_) => "TOO_MANY_ATTEMPTS",
            Error::Busy => "BUSY",
            Error::Forbidden(_) => "FORBIDDEN",
            Error::ColumnManagementDisabled => "COLUMN_MANAGEMENT_DISABLED",
            Error::AttachmentsDisabled => "ATTACHMENTS_DISABLED",
            Error::NotAuthor(_) => "NOT_AUTHOR",
            Error::NotFound(_) | Error::Unknown(_) => "NOT_FOUND",
            Error::LinkExists => "LINK_EXISTS",
            Error::PreconditionFailed(_) => "PRECONDITION_FAILED",
            Error::Conflict(_) => "CONFLICT",
            Error::NameTaken(_) => "NAME_TAKEN",
            Error::NoFile(_) => "NO_FILE",
            Error::FileTooLarge(_) => "FILE_TOO_LARGE",
            Error::TooManyFiles(_) => "TOO_MANY_FILES",
            Error::UnsupportedFormat(_) => "UNSUPPORTED_FORMAT",
            Error::NotATrelloExport(_) => "NOT_A_TRELLO_EXPORT",
            Error::Validation(_) => "VALIDATION_FAILED",
            Error::PasswordSignInDisabled => "PASSWORD_SIGN_IN_DISABLED",
            Error::ProviderUnavailable(_) => "PROVIDER_UNAVAILABLE",
            Error::SsoRefused(reason, ..) => reason.code(),
            Error::Rule(rule, _) => rule.code(),
            Error::Unavailable(_) => "UNAVAILABLE",
            Error::NoDatabase(_) => "NO_DATABASE",
            Error::Transfer(_) => "TRANSFER_REFUSED",
            Error::Config(_) | Error::Database(_) | Error::Io(_) | Error::Internal(_) => "INTERNAL",
        }
    }

    /// The schema details of a validation failure.
    pub fn details(&self) -> Option<&ValidationErrors> {
        match self {
            Error::Validation(v) => Some(v),
            _ => None,
        }
    }
}

impl From<sqlx::Error> for Error {
    fn from(e: sqlx::Error) -> Self {
        if is_unavailable(&e) {
            Error::Unavailable(e)
        } else if let Some(config) = misconfigured(&e) {
            Error::Config(config)
        } else {
            Error::Database(e)
        }
    }
}

/// The operator's words for a PostgreSQL server that refuses the URL's
/// database or role (codes 3D000, 28000 and 28P01): a setting to fix, not a
/// failure of the service.
fn misconfigured(e: &sqlx::Error) -> Option<String> {
    let sqlx::Error::Database(db) = e else {
        return None;
    };
    let hint = match db.code().as_deref() {
        Some("3D000") => "create it first (docs/deploy.md, \"PostgreSQL and several servers\": createdb)",
        Some("28000" | "28P01") => {
            "check the role and password of the database URL (docs/deploy.md, \"PostgreSQL and several servers\")"
        }
        _ => return None,
    };
    Some(format!("{}: {hint}", db.message()))
}

/// True when `e` says the database cannot be reached now, rather than that a
/// statement failed: transport errors, pool time-outs, PostgreSQL's connection
/// and shutdown codes (classes 08 and 57P, and 53300 too many connections), and
/// SQLite busy or locked past `busy_timeout`.
fn is_unavailable(e: &sqlx::Error) -> bool {
    match e {
        sqlx::Error::Io(_)
        | sqlx::Error::Tls(_)
        | sqlx::Error::Protocol(_)
        | sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::WorkerCrashed => true,
        sqlx::Error::Database(db) => {
            let code = db.code().unwrap_or_default();
            if db.try_downcast_ref::<sqlx::sqlite::SqliteError>().is_some() {
                // SQLITE_BUSY and SQLITE_LOCKED, with their extended codes.
                code.parse::<i64>().is_ok_and(|n| matches!(n & 0xff, 5 | 6))
            } else {
                code.starts_with("08") || code.starts_with("57P") || code == "53300"
            }
        }
        _ => false,
    }
}

/// True when `e` is a unique-constraint violation (on either backend).
pub(crate) fn is_unique_violation(e: &Error) -> bool {
    match e {
        Error::Database(sqlx::Error::Database(db)) => {
            matches!(db.kind(), sqlx::error::ErrorKind::UniqueViolation)
        }
        _ => false,
    }
}

/// True when `e` is a foreign-key violation (on either backend).
pub(crate) fn is_foreign_key_violation(e: &Error) -> bool {
    match e {
        Error::Database(sqlx::Error::Database(db)) => {
            matches!(db.kind(), sqlx::error::ErrorKind::ForeignKeyViolation)
        }
        _ => false,
    }
}

/// A unique-name violation as a clear refusal; `place` says where the name
/// is unique (empty for the whole installation).
pub(crate) fn taken(e: Error, what: &str, name: &str, place: &str) -> Error {
    if is_unique_violation(&e) {
        Error::Conflict(format!(
            "a {what} named {name:?} already exists{place}: choose another name"
        ))
    } else {
        e
    }
}
