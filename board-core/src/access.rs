//! Identity and access: accounts, memberships with roles, bearer tokens, the
//! [`Actor`] every operation takes, and the one access check.
//!
//! Tokens are `brd_<id>_<64 hex>`: the id finds the row, and the SHA-256 of the secret is
//! compared in constant time. [`Board::authenticate`] checks a token and reads the account's
//! roles in one statement and returns an `Actor::Session`; every access check of that request
//! uses those roles without another query.
//!
//! The token check is written once. A [`Bearer`] is a token parsed, not yet checked; a
//! [`Caller`] is either an `&Actor` or an `&Bearer`. The hottest reads, and the comment `POST`,
//! take a `Caller` and check the bearer in their own first statement: driven from the token's
//! row (`token_from`: `FROM tokens t LEFT JOIN … memberships m … WHERE t.id = $n`), selecting
//! [`TOKEN_COLUMNS`]. `Bearer::verify` is then the one rule, in the contract's order: no row,
//! a hash that is not the secret's, a revoked or expired token: 401, before anything the row
//! says about the payload; then the caller's 404, 403 (no membership, or a role too low: a
//! workspace's rows are joined only to a membership) and 422. It cannot be skipped: the
//! payload is reachable only through the row that carries the token's columns, and a `Caller`
//! on a path that does not fuse goes through [`Board::authenticate_bearer`], which selects
//! the same columns and calls the same `verify`.

use std::borrow::Cow;
use std::time::Duration;

use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

use crate::board::{Admin, Board};
use crate::error::{is_unique_violation, Error, Result, ValidationErrors};
use crate::ids::{is_cuid, AccountId, TokenId, WorkspaceId};
use crate::names::{hidden_character, name_key};
use crate::store::WriteTx;
use crate::text::Name;
use crate::time::{now, now_plus, Timestamp};

/// A role in one workspace. Ordered: `Viewer < Member < Admin`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Role {
    /// Reads.
    Viewer,
    /// Reads and writes.
    Member,
    /// Writes and changes the workspace's settings.
    Admin,
}

impl Role {
    /// The stored and wire form (`VIEWER`, `MEMBER`, `ADMIN`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Viewer => "VIEWER",
            Role::Member => "MEMBER",
            Role::Admin => "ADMIN",
        }
    }

    /// Parses a role, in any letter case.
    pub fn parse(s: &str) -> Option<Role> {
        match s.to_ascii_uppercase().as_str() {
            "VIEWER" => Some(Role::Viewer),
            "MEMBER" => Some(Role::Member),
            "ADMIN" => Some(Role::Admin),
            _ => None,
        }
    }
}

/// Who performs an operation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Actor {
    /// The installation's operator (the CLI): bypasses roles, obeys every rule.
    Operator,
    /// An account: reaches the workspaces it is a member of (each access
    /// check reads its membership).
    Account(AccountId),
    /// An account as [`Board::authenticate`] found it: its roles were read in
    /// the same statement as its credential, so access checks read nothing more.
    Session(Session),
}

impl Actor {
    /// The account behind the actor (none for the operator).
    pub fn account(&self) -> Option<&AccountId> {
        match self {
            Actor::Operator => None,
            Actor::Account(a) => Some(a),
            Actor::Session(s) => Some(&s.account),
        }
    }
}

/// An authenticated account with its role in each workspace it reached when
/// its credential was checked (one request's view).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    account: AccountId,
    /// The token it was authenticated with (checked again by a long stream).
    token: TokenId,
    roles: Vec<(WorkspaceId, Role)>,
}

impl Session {
    /// The account.
    pub fn account(&self) -> &AccountId {
        &self.account
    }

    /// The token it was authenticated with.
    pub(crate) fn token(&self) -> &TokenId {
        &self.token
    }

    /// Its role in `workspace`, if it is a member.
    pub fn role_in(&self, workspace: &WorkspaceId) -> Option<Role> {
        self.roles
            .iter()
            .find(|(w, _)| w == workspace)
            .map(|(_, r)| *r)
    }
}

/// An account.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Account {
    /// Its id.
    pub id: AccountId,
    /// Its unique name.
    pub name: String,
}

/// A membership of an account in a workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Membership {
    /// The workspace (`tenantId` on the wire).
    #[serde(rename = "tenantId")]
    pub workspace_id: WorkspaceId,
    /// The account.
    pub account_id: AccountId,
    /// The role in that workspace.
    pub role: Role,
}

/// A token as issued: the secret is shown here once and never stored. Its
/// `Debug` leaves the secret out (`"brd_<id>_…"`), so a logged value does not
/// leak it.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuedToken {
    /// The bearer token to hand to the client.
    pub token: String,
    /// The token's id (part of the token; enough to revoke it).
    pub id: TokenId,
    /// The account it authenticates.
    pub account_id: AccountId,
    /// When it stops being accepted, if ever.
    pub expires_at: Option<Timestamp>,
}

impl std::fmt::Debug for IssuedToken {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IssuedToken")
            .field(
                "token",
                &format_args!("\"{TOKEN_PREFIX}_{}_…\"", self.id.as_str()),
            )
            .field("id", &self.id)
            .field("account_id", &self.account_id)
            .field("expires_at", &self.expires_at)
            .finish()
    }
}

const TOKEN_PREFIX: &str = "brd";

/// Splits `brd_<id>_<secret>`.
fn split_token(token: &str) -> Option<(&str, &str)> {
    let rest = token.strip_prefix(TOKEN_PREFIX)?.strip_prefix('_')?;
    let (id, secret) = rest.split_once('_')?;
    (is_cuid(id) && secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((id, secret))
}

impl TokenId {
    /// The id of a token given whole (`brd_ID_SECRET`) or by its id alone; a
    /// text that is neither is [`Error::NotFound`].
    ///
    /// ```
    /// use board_core::TokenId;
    /// let id = "c".repeat(24);
    /// let token = format!("brd_{id}_{}", "ab".repeat(32));
    /// assert_eq!(TokenId::from_token_or_id(&token).unwrap().as_str(), id);
    /// assert_eq!(TokenId::from_token_or_id(&id).unwrap().as_str(), id);
    /// assert!(TokenId::from_token_or_id("brd_nope").is_err());
    /// ```
    pub fn from_token_or_id(token_or_id: &str) -> Result<TokenId> {
        let id = match split_token(token_or_id) {
            Some((id, _)) => id,
            None if is_cuid(token_or_id) => token_or_id,
            None => return Err(Error::NotFound("token")),
        };
        Ok(TokenId::from_db(id.to_string()))
    }
}

fn hash_secret(secret: &str) -> String {
    to_hex(&Sha256::digest(secret.as_bytes()))
}

/// A new one-time code (invitations, resets, address verification,
/// unsubscribe links): 256 random bits as hex, and its SHA-256 as stored.
pub(crate) fn new_code() -> Result<(String, String)> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::Config(format!("no randomness: {e}")))?;
    let code = to_hex(&raw);
    let hash = code_hash(&code);
    Ok((code, hash))
}

/// The SHA-256 of a code, as stored (surrounding spaces ignored).
pub(crate) fn code_hash(code: &str) -> String {
    to_hex(&<sha2::Sha256 as sha2::Digest>::digest(
        code.trim().as_bytes(),
    ))
}

/// Bytes as lower-case hex (token hashes, export checksums).
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two byte strings in time that depends only on their length.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// A bearer token as a request carried it: well formed, not yet checked. An
/// operation that takes it as its [`Caller`] checks it in its own first
/// statement (the token, its secret, revocation, expiry and the account's
/// role in the workspace, next to the payload or the card written to);
/// every other path authenticates it first. Its `Debug` shows the token's id
/// only.
#[derive(Clone, PartialEq, Eq)]
pub struct Bearer {
    id: TokenId,
    /// The SHA-256 of the secret, as `tokens.secret_hash` stores it.
    hash: String,
}

impl std::fmt::Debug for Bearer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bearer")
            .field("id", &self.id)
            .finish_non_exhaustive()
    }
}

impl Bearer {
    /// Parses `brd_<id>_<secret>`; any other text is [`Error::Unauthenticated`].
    ///
    /// ```
    /// let token = format!("brd_{}_{}", "c".repeat(24), "ab".repeat(32));
    /// assert!(board_core::Bearer::parse(&token).is_ok());
    /// assert!(board_core::Bearer::parse("brd_nope").is_err());
    /// ```
    pub fn parse(token: &str) -> Result<Bearer> {
        let (id, secret) = split_token(token).ok_or(Error::Unauthenticated)?;
        Ok(Bearer {
            id: TokenId::from_db(id.to_string()),
            hash: hash_secret(secret),
        })
    }

    /// The credential check, on the row a statement read with
    /// [`TOKEN_COLUMNS`] (no row: no such token): 401 unless the stored hash
    /// is the secret's (compared in constant time), the token is not revoked
    /// and not expired. The one place that decides whether a token is valid.
    pub(crate) fn verify(&self, row: Option<&AnyRow>) -> Result<()> {
        let row = row.ok_or(Error::Unauthenticated)?;
        let stored: Option<String> = row.try_get("tk_hash")?;
        let expires: Option<Timestamp> = row.try_get("tk_expires")?;
        let revoked: Option<Timestamp> = row.try_get("tk_revoked")?;
        let valid = stored.is_some_and(|s| constant_time_eq(s.as_bytes(), self.hash.as_bytes()))
            && revoked.is_none()
            && expires.is_none_or(|at| at > now());
        match valid {
            true => Ok(()),
            false => Err(Error::Unauthenticated),
        }
    }

    /// [`Bearer::verify`], then the role `tk_role` of the same row (`None`:
    /// not a member of the workspace the statement joined).
    pub(crate) fn verified_role(&self, row: Option<&AnyRow>) -> Result<Option<Role>> {
        self.verify(row)?;
        row.map_or(Ok(None), role_of)
    }

    /// The token's id (bound as the fused statement's token parameter).
    pub(crate) fn id(&self) -> &TokenId {
        &self.id
    }
}

/// Who calls an operation that can check a credential itself: an [`Actor`]
/// already known, or a [`Bearer`] token that the operation checks in its
/// first statement (the fused reads: the columns of a workspace, the board, a
/// card's comments and history, each falling back to
/// [`Board::authenticate_bearer`] on a path that does not fuse; and a new
/// comment, whose first statement finds its card).
#[derive(Debug, Clone, Copy)]
pub enum Caller<'a> {
    /// An actor (the operator, an account, a session).
    Actor(&'a Actor),
    /// A bearer token not yet checked.
    Bearer(&'a Bearer),
}

impl<'a> From<&'a Actor> for Caller<'a> {
    fn from(actor: &'a Actor) -> Caller<'a> {
        Caller::Actor(actor)
    }
}

impl<'a> From<&'a Bearer> for Caller<'a> {
    fn from(bearer: &'a Bearer) -> Caller<'a> {
        Caller::Bearer(bearer)
    }
}

/// The credential columns of a token check, over `tokens t` and the account's
/// membership `m` in the workspace a statement names (see [`token_from`]):
/// what [`Bearer::verify`] and [`Bearer::verified_role`] read. Written once:
/// every fused read and [`Board::authenticate_bearer`] select exactly these.
pub(crate) const TOKEN_COLUMNS: &str = "t.secret_hash AS tk_hash, t.expires_at AS tk_expires, \
     t.revoked_at AS tk_revoked, m.role AS tk_role";

/// The `FROM … WHERE` of a read fused with a token check: the token `token`
/// (a parameter, `$n`), the tables `joins` joined to it (each `LEFT JOIN`, so
/// that the token's row is there whatever they hold), the account's membership
/// `m` in the workspace `workspace` (an SQL expression over them), then
/// `after` (joins that may use `m`). No row: no such token.
pub(crate) fn token_from(token: &str, joins: &str, workspace: &str, after: &str) -> String {
    format!(
        "FROM tokens t {joins} LEFT JOIN memberships m \
         ON m.account_id = t.account_id AND m.workspace_id = {workspace} {after} WHERE t.id = {token}"
    )
}

/// The role `tk_role` a row selected ([`TOKEN_COLUMNS`]).
fn role_of(row: &AnyRow) -> Result<Option<Role>> {
    let role: Option<String> = row.try_get("tk_role")?;
    Ok(role.as_deref().and_then(Role::parse))
}

/// Identity and access: the operations of `access.rs`.
impl Board {
    /// Turns a bearer token into an [`Actor::Session`]: the credential check and
    /// the account's roles are one statement. Malformed, unknown, revoked and
    /// expired tokens are all [`Error::Unauthenticated`].
    ///
    /// ```
    /// # let dir = std::env::temp_dir().join(format!("board-doc-auth-{}", std::process::id()));
    /// # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
    /// let mut options = board_core::Options::new(format!("sqlite://{}/a.db", dir.display()));
    /// options.files_dir = dir.join("files");
    /// let board = board_core::Board::open_with(options).await?;
    /// use board_core::Name;
    /// let erin = board.admin().create_account(&Name::parse("erin")?).await?;
    /// let month = std::time::Duration::from_secs(30 * 86_400);
    /// let issued = board.admin().create_token(&erin.id, Some(month)).await?;
    /// assert_eq!(board.authenticate(&issued.token).await?.account(), Some(&erin.id));
    /// board.admin().revoke_token(&issued.id).await?;
    /// assert!(board.authenticate(&issued.token).await.is_err());
    /// # board.close().await;
    /// # Ok::<(), board_core::Error>(())
    /// # });
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # result.unwrap();
    /// ```
    pub async fn authenticate(&self, token: &str) -> Result<Actor> {
        self.authenticate_bearer(&Bearer::parse(token)?).await
    }

    /// [`Board::authenticate`] of a token already parsed: the fallback of a
    /// [`Caller::Bearer`] on every path that does not fuse its credential check.
    pub async fn authenticate_bearer(&self, bearer: &Bearer) -> Result<Actor> {
        // One row per membership (one with NULLs for an account without any).
        let sql = format!(
            "SELECT t.account_id, {TOKEN_COLUMNS}, m.workspace_id \
             FROM tokens t LEFT JOIN memberships m ON m.account_id = t.account_id WHERE t.id = $1"
        );
        let rows: Vec<AnyRow> = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&bearer.id)
            .fetch_all(&self.pool)
            .await?;
        let row = rows.first();
        bearer.verify(row)?;
        self.note_use(&bearer.id);
        let mut roles = Vec::new();
        for r in &rows {
            let workspace: Option<WorkspaceId> = r.try_get("workspace_id")?;
            if let (Some(w), Some(role)) = (workspace, role_of(r)?) {
                roles.push((w, role));
            }
        }
        Ok(Actor::Session(Session {
            account: AccountId::from_db(row.ok_or(Error::Unauthenticated)?.try_get("account_id")?),
            token: bearer.id.clone(),
            roles,
        }))
    }

    /// The actor of `caller`: itself, or the session its bearer token opens
    /// (one statement, [`Board::authenticate_bearer`]).
    pub(crate) async fn actor_of<'c>(&self, caller: Caller<'c>) -> Result<Cow<'c, Actor>> {
        match caller {
            Caller::Actor(a) => Ok(Cow::Borrowed(a)),
            Caller::Bearer(b) => Ok(Cow::Owned(self.authenticate_bearer(b).await?)),
        }
    }

    /// Checks that `actor` reaches `workspace` with at least `min`.
    ///
    /// An account that is not a member, or a workspace that does not exist, is
    /// 403 (never 404, so the answer reveals no workspace); a role too low is 403.
    pub(crate) async fn require<'e, E>(
        &self,
        exec: E,
        actor: &Actor,
        workspace: &WorkspaceId,
        min: Role,
    ) -> Result<()>
    where
        E: Executor<'e, Database = Any>,
    {
        let account = match actor {
            Actor::Operator => return Ok(()),
            Actor::Session(s) => return check_role_of(s.role_in(workspace), min),
            Actor::Account(a) => a,
        };
        let role: Option<String> = sqlx::query_scalar(
            "SELECT role FROM memberships WHERE workspace_id = $1 AND account_id = $2",
        )
        .bind(workspace)
        .bind(account)
        .fetch_optional(exec)
        .await?;
        check_role(role.as_deref(), min)
    }

    /// Checks again, now, that `actor` reaches `workspace` with at least
    /// `min`: for a session, that its token is still valid (not revoked, not
    /// expired) and its account still has the role there, in one statement.
    /// A long-lived reader (an event stream) calls it every so often.
    pub(crate) async fn still_reaches(
        &self,
        actor: &Actor,
        workspace: &WorkspaceId,
        min: Role,
    ) -> Result<()> {
        let Actor::Session(session) = actor else {
            return self.require(&self.pool, actor, workspace, min).await;
        };
        let row = sqlx::query(
            "SELECT t.expires_at, t.revoked_at, (SELECT role FROM memberships m \
                 WHERE m.workspace_id = $2 AND m.account_id = t.account_id) AS role \
             FROM tokens t WHERE t.id = $1",
        )
        .bind(&session.token)
        .bind(workspace)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(Error::Unauthenticated)?;
        let expires: Option<Timestamp> = row.try_get("expires_at")?;
        let revoked: Option<Timestamp> = row.try_get("revoked_at")?;
        if revoked.is_some() || expires.is_some_and(|at| at <= now()) {
            return Err(Error::Unauthenticated);
        }
        let role: Option<String> = row.try_get("role")?;
        check_role(role.as_deref(), min)
    }
}

/// The access rule on a role read elsewhere (`None`: not a member, or no such
/// workspace): 403 when absent or below `min`.
pub(crate) fn check_role(role: Option<&str>, min: Role) -> Result<()> {
    check_role_of(role.and_then(Role::parse), min)
}

/// [`check_role`] on a parsed role.
pub(crate) fn check_role_of(role: Option<Role>, min: Role) -> Result<()> {
    match role {
        None => Err(Error::not_reached()),
        Some(r) if r < min => Err(Error::Forbidden(format!(
            "this needs the {} role in the workspace",
            min.as_str()
        ))),
        Some(_) => Ok(()),
    }
}

///
/// The name must hold no hidden character (422 on `name`); its key
/// ([`name_key`]) goes with it, so an account whose name differs only in
/// case or width is a unique violation, however the inserts race.
pub(crate) async fn insert_account(tx: &mut WriteTx, account: &Account) -> Result<()> {
    check_account_name(&account.name)?;
    sqlx::query("INSERT INTO accounts (id, name, name_key, created_at) VALUES ($1, $2, $3, $4)")
        .bind(&account.id)
        .bind(&account.name)
        .bind(name_key(&account.name))
        .bind(now())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

/// Refuses an account name with a hidden or direction-changing character:
/// 422 on `name`.
pub(crate) fn check_account_name(name: &str) -> Result<()> {
    match hidden_character(name) {
        Some(why) => Err(ValidationErrors::one("name", why)),
        None => Ok(()),
    }
}

/// Gives every account without a name key its key, oldest first, in `conn`
/// (a database older than the key, an import of an export without it). An
/// account whose key another already holds keeps none: it signs in by its
/// exact name. Returns how many got one.
pub(crate) async fn fill_name_keys(conn: &mut sqlx::AnyConnection) -> Result<u64> {
    let rows: Vec<(String, String)> = sqlx::query_as(
        "SELECT id, name FROM accounts WHERE name_key IS NULL ORDER BY created_at, id",
    )
    .fetch_all(&mut *conn)
    .await?;
    let mut filled = 0;
    for (id, name) in rows {
        let done = sqlx::query(
            "UPDATE accounts SET name_key = $2 WHERE id = $1 AND name_key IS NULL \
             AND NOT EXISTS (SELECT 1 FROM accounts o WHERE o.name_key = $2)",
        )
        .bind(id)
        .bind(name_key(&name))
        .execute(&mut *conn)
        .await?;
        filled += done.rows_affected();
    }
    Ok(filled)
}

impl Board {
    /// [`fill_name_keys`] when a server opens the database. Another server
    /// filling the same keys at once wins a unique violation: left to it.
    pub(crate) async fn fill_name_keys(&self) -> Result<()> {
        let missing: Option<i64> =
            sqlx::query_scalar("SELECT 1 FROM accounts WHERE name_key IS NULL LIMIT 1")
                .fetch_optional(&self.pool)
                .await?;
        if missing.is_none() {
            return Ok(());
        }
        let mut tx = self.write_unlocked().await?;
        match fill_name_keys(&mut tx).await {
            Ok(_) => tx.commit().await,
            Err(e) if is_unique_violation(&e) => Ok(()),
            Err(e) => Err(e),
        }
    }
}

/// The longest lifetime a token may be given: 3650 days (api.md §21).
pub const MAX_TOKEN_LIFETIME: Duration = Duration::from_secs(3650 * 86_400);

/// Checks a token's lifetime against [`MAX_TOKEN_LIFETIME`]: a longer one
/// is a 422 on `expiresIn` that names the maximum.
pub fn check_token_lifetime(lifetime: Duration) -> Result<Duration> {
    if lifetime > MAX_TOKEN_LIFETIME {
        return Err(ValidationErrors::one(
            "expiresIn",
            format!(
                "A token lives at most {} days; {} days is too long",
                MAX_TOKEN_LIFETIME.as_secs() / 86_400,
                lifetime.as_secs() / 86_400
            ),
        ));
    }
    if lifetime < Duration::from_secs(1) {
        return Err(ValidationErrors::one(
            "expiresIn",
            "A token lives at least 1 second",
        ));
    }
    Ok(lifetime)
}

/// What a token is for: a person's browser session (api.md §23), or a
/// personal token (the CLI's, a script's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TokenKind {
    /// A bearer token for scripts and the CLI.
    Personal,
    /// A sign-in's session, sent as the `board_session` cookie.
    Session,
}

impl TokenKind {
    /// The stored and wire form (`personal`, `session`).
    pub fn as_str(self) -> &'static str {
        match self {
            TokenKind::Personal => "personal",
            TokenKind::Session => "session",
        }
    }

    /// The kind a `tokens.kind` holds (the schema allows only these two).
    pub(crate) fn from_db(kind: &str) -> TokenKind {
        match kind {
            "session" => TokenKind::Session,
            _ => TokenKind::Personal,
        }
    }
}

/// Issues a token of `kind` for `account` in `tx`: a random secret, of which
/// only the SHA-256 is stored.
pub(crate) async fn issue_token(
    tx: &mut WriteTx,
    account: &AccountId,
    expires_in: Option<Duration>,
    kind: TokenKind,
    label: Option<&str>,
) -> Result<IssuedToken> {
    let expires_at = match expires_in {
        Some(d) => Some(now_plus(check_token_lifetime(d)?.as_secs() as i64)),
        None => None,
    };
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::Config(format!("no randomness: {e}")))?;
    let secret = to_hex(&raw);
    let id = TokenId::new();
    let inserted = sqlx::query(
        "INSERT INTO tokens (id, account_id, secret_hash, created_at, expires_at, kind, label) \
         SELECT $1, id, $3, $4, $5, $6, $7 FROM accounts WHERE id = $2",
    )
    .bind(&id)
    .bind(account)
    .bind(hash_secret(&secret))
    .bind(now())
    .bind(expires_at.clone())
    .bind(kind.as_str())
    .bind(label)
    .execute(&mut **tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(Error::NotFound("account"));
    }
    Ok(IssuedToken {
        token: format!("{TOKEN_PREFIX}_{id}_{secret}"),
        id,
        account_id: account.clone(),
        expires_at,
    })
}

crate::ids::bind_as_text!(Role);

/// Identity and access (the operator's side): the operations of `access.rs`.
impl Admin<'_> {
    /// Creates an account with a unique name (1..=100 characters, trimmed).
    pub async fn create_account(&self, name: &Name) -> Result<Account> {
        let name = name.to_string();
        let account = Account {
            id: AccountId::new(),
            name,
        };
        let mut tx = self.board.write_unlocked().await?;
        insert_account(&mut tx, &account).await.map_err(|e| {
            if is_unique_violation(&e) {
                Error::NameTaken(format!(
                    "an account named {:?} (or one that differs only in case or width) \
                     already exists: choose another name",
                    account.name
                ))
            } else {
                e
            }
        })?;
        tx.commit().await?;
        Ok(account)
    }

    /// Issues a token for `account`, valid for `expires_in` (whole seconds,
    /// 1 s to [`MAX_TOKEN_LIFETIME`]) when given. Only the SHA-256 of its
    /// secret is stored.
    pub async fn create_token(
        &self,
        account: &AccountId,
        expires_in: Option<Duration>,
    ) -> Result<IssuedToken> {
        let mut tx = self.board.write_unlocked().await?;
        let issued = issue_token(&mut tx, account, expires_in, TokenKind::Personal, None).await?;
        tx.commit().await?;
        Ok(issued)
    }

    /// Revokes a token (its id: [`TokenId::from_token_or_id`] reads it from
    /// the whole token too). Revoking twice is harmless; an unknown id is 404.
    pub async fn revoke_token(&self, id: &TokenId) -> Result<()> {
        let mut tx = self.board.write_unlocked().await?;
        let done =
            sqlx::query("UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) WHERE id = $1")
                .bind(id)
                .bind(now())
                .execute(&mut *tx)
                .await?;
        if done.rows_affected() == 0 {
            return Err(Error::NotFound("token"));
        }
        tx.commit().await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_shape() {
        let id = cuid2::create_id();
        let secret = "ab".repeat(32);
        let token = format!("brd_{id}_{secret}");
        assert_eq!(split_token(&token), Some((id.as_str(), secret.as_str())));
        assert_eq!(split_token("brd_x_y"), None);
        assert_eq!(split_token(&format!("xyz_{id}_{secret}")), None);
    }

    #[test]
    fn issued_token_debug_hides_the_secret() {
        let id = cuid2::create_id();
        let secret = "ab".repeat(32);
        let issued = IssuedToken {
            token: format!("brd_{id}_{secret}"),
            id: TokenId::parse(&id).unwrap(),
            account_id: AccountId::parse(&cuid2::create_id()).unwrap(),
            expires_at: None,
        };
        let shown = format!("{issued:?}");
        assert!(!shown.contains(&secret), "{shown}");
        assert!(shown.contains(&format!("token: \"brd_{id}_…\"")), "{shown}");
        assert!(format!("{issued:#?}").contains(&id));
    }

    #[test]
    fn roles_are_ordered() {
        assert!(Role::Viewer < Role::Member && Role::Member < Role::Admin);
        assert_eq!(Role::parse("member"), Some(Role::Member));
    }

    #[test]
    fn constant_time_compare() {
        assert!(constant_time_eq(b"abc", b"abc"));
        assert!(!constant_time_eq(b"abc", b"abd"));
        assert!(!constant_time_eq(b"abc", b"ab"));
    }
}
