//! Identity and access: accounts, memberships with roles, bearer tokens, the
//! [`Actor`] every operation takes, and the one access check.

use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::any::AnyRow;
use sqlx::{Any, Executor, Row};

use crate::db::{self, now, now_plus};
use crate::error::{is_unique_violation, Error, Result};
use crate::ids::{is_cuid, AccountId, TokenId, WorkspaceId};
use crate::text::Name;
use crate::Board;

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
    roles: Vec<(String, Role)>,
}

impl Session {
    /// The account.
    pub fn account(&self) -> &AccountId {
        &self.account
    }

    /// Its role in `workspace`, if it is a member.
    pub fn role_in(&self, workspace: &str) -> Option<Role> {
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

/// A token as issued: the secret is shown here once and never stored.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct IssuedToken {
    /// The bearer token to hand to the client.
    pub token: String,
    /// The token's id (part of the token; enough to revoke it).
    pub id: TokenId,
    /// The account it authenticates.
    pub account_id: AccountId,
    /// When it stops being accepted, if ever.
    pub expires_at: Option<String>,
}

const TOKEN_PREFIX: &str = "brd";

/// Splits `brd_<id>_<secret>`.
fn split_token(token: &str) -> Option<(&str, &str)> {
    let rest = token.strip_prefix(TOKEN_PREFIX)?.strip_prefix('_')?;
    let (id, secret) = rest.split_once('_')?;
    (is_cuid(id) && secret.len() == 64 && secret.bytes().all(|b| b.is_ascii_hexdigit()))
        .then_some((id, secret))
}

fn hash_secret(secret: &str) -> String {
    to_hex(&Sha256::digest(secret.as_bytes()))
}

/// Bytes as lower-case hex (token hashes, export checksums).
pub(crate) fn to_hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compares two byte strings in time that depends only on their length.
fn constant_time_eq(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

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
    /// let erin = board.create_account("erin").await?;
    /// let issued = board.create_token(&erin.id, Some(30 * 86_400)).await?;
    /// assert_eq!(board.authenticate(&issued.token).await?.account(), Some(&erin.id));
    /// board.revoke_token(&issued.token).await?;
    /// assert!(board.authenticate(&issued.token).await.is_err());
    /// # board.close().await;
    /// # Ok::<(), board_core::Error>(())
    /// # });
    /// # std::fs::remove_dir_all(&dir).ok();
    /// # result.unwrap();
    /// ```
    pub async fn authenticate(&self, token: &str) -> Result<Actor> {
        let (id, secret) = split_token(token).ok_or(Error::Unauthenticated)?;
        // One row per membership (one with NULLs for an account without any).
        let rows: Vec<AnyRow> = sqlx::query(
            "SELECT t.account_id, t.secret_hash, t.expires_at, t.revoked_at, m.workspace_id, m.role \
             FROM tokens t LEFT JOIN memberships m ON m.account_id = t.account_id WHERE t.id = $1",
        )
        .bind(id)
        .fetch_all(&self.pool)
        .await?;
        let row = rows.first().ok_or(Error::Unauthenticated)?;
        let stored: String = row.try_get("secret_hash")?;
        let expires: Option<String> = row.try_get("expires_at")?;
        let revoked: Option<String> = row.try_get("revoked_at")?;
        let valid = constant_time_eq(stored.as_bytes(), hash_secret(secret).as_bytes())
            && revoked.is_none()
            && expires.is_none_or(|at| at > now());
        if !valid {
            return Err(Error::Unauthenticated);
        }
        let mut roles = Vec::new();
        for r in &rows {
            let workspace: Option<String> = r.try_get("workspace_id")?;
            let role: Option<String> = r.try_get("role")?;
            if let (Some(w), Some(role)) = (workspace, role.as_deref().and_then(Role::parse)) {
                roles.push((w, role));
            }
        }
        Ok(Actor::Session(Session {
            account: AccountId::from_db(row.try_get("account_id")?),
            roles,
        }))
    }

    /// Checks that `actor` reaches `workspace` with at least `min`.
    ///
    /// An account that is not a member, or a workspace that does not exist, is
    /// 403 (never 404, so the answer reveals no workspace); a role too low is 403.
    pub(crate) async fn require<'e, E>(
        &self,
        exec: E,
        actor: &Actor,
        workspace: &str,
        min: Role,
    ) -> Result<()>
    where
        E: Executor<'e, Database = Any>,
    {
        // A malformed id names no workspace (and may hold bytes, such as NUL,
        // that PostgreSQL refuses as text): not reached, without a query.
        if !crate::ids::is_cuid(workspace) {
            return Err(Error::not_reached());
        }
        let account = match actor {
            Actor::Operator => return Ok(()),
            Actor::Session(s) => return check_role_of(s.role_in(workspace), min),
            Actor::Account(a) => a,
        };
        let role: Option<String> = sqlx::query_scalar(
            "SELECT role FROM memberships WHERE workspace_id = $1 AND account_id = $2",
        )
        .bind(workspace)
        .bind(account.as_str())
        .fetch_optional(exec)
        .await?;
        check_role(role.as_deref(), min)
    }

    /// Creates an account with a unique name (1..=100 characters, trimmed).
    pub async fn create_account(&self, name: &str) -> Result<Account> {
        let name = Name::parse(name).map_err(|e| e.on("name"))?.into_string();
        let account = Account {
            id: AccountId::from_db(db::new_id()),
            name,
        };
        let mut tx = self.write_unlocked().await?;
        insert_account(&mut tx, &account).await.map_err(|e| {
            if is_unique_violation(&e) {
                Error::Conflict(format!(
                    "an account named {:?} already exists",
                    account.name
                ))
            } else {
                e
            }
        })?;
        tx.commit().await?;
        Ok(account)
    }

    /// Gives `account` the `role` in `workspace` (replacing an earlier role).
    pub async fn add_member(
        &self,
        workspace: &WorkspaceId,
        account: &AccountId,
        role: Role,
    ) -> Result<Membership> {
        // The foreign keys back both existence checks; the upsert is one statement.
        let mut tx = self.write_unlocked().await?;
        self.workspace_exists(&mut *tx, workspace.as_str()).await?;
        let exists: Option<String> = sqlx::query_scalar("SELECT id FROM accounts WHERE id = $1")
            .bind(account.as_str())
            .fetch_optional(&mut *tx)
            .await?;
        exists.ok_or(Error::NotFound("account"))?;
        sqlx::query(
            "INSERT INTO memberships (workspace_id, account_id, role, created_at) \
             VALUES ($1, $2, $3, $4) \
             ON CONFLICT (workspace_id, account_id) DO UPDATE SET role = excluded.role",
        )
        .bind(workspace.as_str())
        .bind(account.as_str())
        .bind(role.as_str())
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Membership {
            workspace_id: workspace.clone(),
            account_id: account.clone(),
            role,
        })
    }

    /// Issues a token for `account`, valid for `expires_in_secs` when given.
    /// Only the SHA-256 of its secret is stored.
    pub async fn create_token(
        &self,
        account: &AccountId,
        expires_in_secs: Option<i64>,
    ) -> Result<IssuedToken> {
        let mut tx = self.write_unlocked().await?;
        let issued = issue_token(&mut tx, account, expires_in_secs).await?;
        tx.commit().await?;
        Ok(issued)
    }

    /// Revokes a token, given whole or by its id. Revoking twice is harmless.
    pub async fn revoke_token(&self, token_or_id: &str) -> Result<()> {
        let id = match split_token(token_or_id) {
            Some((id, _)) => id,
            None if is_cuid(token_or_id) => token_or_id,
            None => return Err(Error::NotFound("token")),
        };
        let mut tx = self.write_unlocked().await?;
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

pub(crate) async fn insert_account(tx: &mut db::WriteTx, account: &Account) -> Result<()> {
    sqlx::query("INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)")
        .bind(account.id.as_str())
        .bind(account.name.as_str())
        .bind(now())
        .execute(&mut **tx)
        .await?;
    Ok(())
}

pub(crate) async fn issue_token(
    tx: &mut db::WriteTx,
    account: &AccountId,
    expires_in_secs: Option<i64>,
) -> Result<IssuedToken> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::Config(format!("no randomness: {e}")))?;
    let secret = to_hex(&raw);
    let id = db::new_id();
    let expires_at = expires_in_secs.map(now_plus);
    let inserted = sqlx::query(
        "INSERT INTO tokens (id, account_id, secret_hash, created_at, expires_at) \
         SELECT $1, id, $3, $4, $5 FROM accounts WHERE id = $2",
    )
    .bind(id.as_str())
    .bind(account.as_str())
    .bind(hash_secret(&secret))
    .bind(now())
    .bind(expires_at.clone())
    .execute(&mut **tx)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(Error::NotFound("account"));
    }
    Ok(IssuedToken {
        token: format!("{TOKEN_PREFIX}_{id}_{secret}"),
        id: TokenId::from_db(id),
        account_id: account.clone(),
        expires_at,
    })
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
