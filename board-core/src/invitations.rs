//! Invitations and password resets (api.md §23): one-time codes, shown
//! once and stored as their SHA-256 (as tokens are), each serving once.
//!
//! An invitation (ADMIN) brings a person into a workspace with a role: with
//! no credential, its acceptance creates the account and signs it in; with
//! one, it adds the signed-in account, keeping a higher role it has. A reset
//! link (the operator's) sets a password, ends every session of the account
//! and signs it in. An unknown, used, expired or revoked code is the same
//! 404, and every try counts against the client's address in the sign-in
//! throttle (`people.rs`); a code is marked used by the one `UPDATE` that
//! finds it open, so two servers cannot both spend it.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::access::{
    code_hash, insert_account, issue_token, new_code, Account, Actor, IssuedToken, Role, TokenKind,
};
use crate::board::{Admin, Board};
use crate::error::{Error, Result, ValidationErrors};
use crate::ids::{AccountId, InvitationId, WorkspaceId};
use crate::mail::address::Email;
use crate::members::{apply_membership, role, MemberChange};
use crate::passwords::{self, Hashers, Password};
use crate::people::{account_name_taken, store_password};
use crate::store::Lock;
use crate::text::Name;
use crate::time::{now, now_plus, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

/// How long an invitation stays open.
pub const INVITATION_LIFETIME: Duration = Duration::from_secs(7 * 86_400);
/// How long a reset link stays open.
pub const RESET_LIFETIME: Duration = Duration::from_secs(86_400);

/// An open invitation, as `GET /api/invitations` lists it: never its code.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Invitation {
    /// Its id.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: InvitationId,
    /// The workspace it brings people into.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub tenant_id: WorkspaceId,
    /// The role it gives.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub role: Role,
    /// Who created it (null: the operator).
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    pub created_by: Option<AccountId>,
    /// When.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub created_at: Timestamp,
    /// When it stops serving.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub expires_at: Timestamp,
}

/// An invitation just created, with its code and link, shown this once. Its
/// `Debug` hides both.
#[derive(Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct CreatedInvitation {
    /// The invitation.
    #[serde(flatten)]
    pub invitation: Invitation,
    /// The code (256 random bits, hex).
    pub code: String,
    /// `<public URL>/invite#<code>`.
    pub url: String,
}

impl std::fmt::Debug for CreatedInvitation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CreatedInvitation")
            .field("invitation", &self.invitation)
            .finish_non_exhaustive()
    }
}

/// The body of `POST /api/invitations`: `{tenantId, role}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewInvitation {
    /// The workspace.
    pub workspace_id: WorkspaceId,
    /// The role it gives.
    pub role: Role,
    /// An address the link is also sent to (api.md §26; 422
    /// `MAIL_DISABLED` without mail), checked by the operation.
    pub email: Option<String>,
}

impl FromJson for NewInvitation {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let tenant = f.required("tenantId", validate::id(WorkspaceId::parse));
        let role = f.required("role", role);
        let email = f.optional("email", validate::string);
        f.finish()?;
        Ok(NewInvitation {
            workspace_id: tenant.expect("checked"),
            role: role.expect("checked"),
            email,
        })
    }
}

/// The body of `POST /api/invitations/accept`: `{code, name?, password?}`.
#[derive(Clone, PartialEq, Eq)]
pub struct CodeUse {
    /// The code of the link.
    pub code: String,
    /// The new account's name (an invitation without a credential).
    pub name: Option<Name>,
    /// The new password.
    pub password: Option<String>,
}

impl std::fmt::Debug for CodeUse {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeUse")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl FromJson for CodeUse {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let code = f.required("code", validate::string);
        let name = f.optional("name", validate::name);
        let password = f.optional("password", validate::string);
        f.finish()?;
        Ok(CodeUse {
            code: code.expect("checked"),
            name,
            password,
        })
    }
}

/// The body of `POST /api/password-reset`: `{code, password}`, nothing else
/// (an unknown key, a `name` included, is 422).
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordReset {
    /// The code of the link.
    pub code: String,
    /// The new password.
    pub password: String,
}

impl std::fmt::Debug for PasswordReset {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PasswordReset").finish_non_exhaustive()
    }
}

impl FromJson for PasswordReset {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let code = f.required("code", validate::string);
        let password = f.required("password", validate::string);
        f.finish()?;
        Ok(PasswordReset {
            code: code.expect("checked"),
            password: password.expect("checked"),
        })
    }
}

/// The body of `POST /api/password-reset/account`: `{code}`, nothing else.
#[derive(Clone, PartialEq, Eq)]
pub struct ResetCode {
    /// The code of the link.
    pub code: String,
}

impl std::fmt::Debug for ResetCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResetCode").finish_non_exhaustive()
    }
}

impl FromJson for ResetCode {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let code = f.required("code", validate::string);
        f.finish()?;
        Ok(ResetCode {
            code: code.expect("checked"),
        })
    }
}

/// What using a code did: the account, where it now is (an invitation), and
/// the session it opened (none when it was already signed in).
#[derive(Debug, Clone)]
pub struct CodeUsed {
    /// The account.
    pub account: Account,
    /// Its membership, after an invitation.
    pub member: Option<(WorkspaceId, Role)>,
    /// The session opened (the server sets it as the cookie).
    pub session: Option<IssuedToken>,
}

/// The condition under which an invitation row still serves: its creator
/// (none: the operator) is an ADMIN of its workspace now. Read with the
/// acceptance's `UPDATE`, under the workspace's lock, which a demotion or a
/// removal also takes: an acceptance sees the role before or after the
/// change, never a mix.
pub(crate) const CREATOR_IS_ADMIN: &str =
    "(created_by IS NULL OR EXISTS (SELECT 1 FROM memberships c \
     WHERE c.workspace_id = invitations.workspace_id AND c.account_id = invitations.created_by \
     AND c.role = 'ADMIN'))";

/// The one answer for a code that does not serve.
fn no_code(what: &'static str) -> Error {
    Error::NotFound(what)
}

const INVITATION_COLUMNS: &str = "id, workspace_id, role, created_by, created_at, expires_at";

fn invitation(row: &sqlx::any::AnyRow) -> Result<Invitation> {
    let role: String = row.try_get("role")?;
    Ok(Invitation {
        id: row.try_get("id")?,
        tenant_id: WorkspaceId::from_db(row.try_get("workspace_id")?),
        role: Role::parse(&role).unwrap_or(Role::Viewer),
        created_by: row
            .try_get::<Option<String>, _>("created_by")?
            .map(AccountId::from_db),
        created_at: row.try_get("created_at")?,
        expires_at: row.try_get("expires_at")?,
    })
}

/// Invitations and password resets (api.md §23): the operations of `invitations.rs`.
impl Board {
    /// Creates an invitation to `tenantId` with `role` (ADMIN): its link is
    /// `<public_url>/invite#<code>`.
    pub async fn create_invitation(
        &self,
        actor: &Actor,
        input: impl Into<Input<NewInvitation>>,
        public_url: &str,
    ) -> Result<CreatedInvitation> {
        let new = input.into().open()?;
        self.require(&self.pool, actor, &new.workspace_id, Role::Admin)
            .await?;
        let email = match &new.email {
            None => None,
            Some(_) if !self.mail_on() => return Err(crate::mail::address::mail_disabled()),
            Some(text) => Some(Email::parse(text).map_err(|m| ValidationErrors::one("email", m))?),
        };
        let (code, hash) = new_code()?;
        let mut tx = self.write_unlocked().await?;
        self.workspace_exists(&mut *tx, &new.workspace_id).await?;
        let sql = format!(
            "INSERT INTO invitations (id, workspace_id, role, code_hash, created_by, created_at, \
             expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING {INVITATION_COLUMNS}"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(InvitationId::new())
            .bind(&new.workspace_id)
            .bind(new.role)
            .bind(hash)
            .bind(actor.account())
            .bind(now())
            .bind(now_plus(INVITATION_LIFETIME.as_secs() as i64))
            .fetch_one(&mut *tx)
            .await?;
        let invitation = invitation(&row)?;
        tx.commit().await?;
        let url = format!("{}/invite#{code}", public_url.trim_end_matches('/'));
        if let Some(email) = &email {
            self.send_link(
                email,
                "board: you are invited to a workspace",
                &format!(
                    "You are invited to a workspace of board, as {}.\n\n\
                     To join it, open this link within 7 days:\n\n{url}\n",
                    invitation.role.as_str()
                ),
                "invitation",
            )?;
        }
        Ok(CreatedInvitation {
            invitation,
            code,
            url,
        })
    }

    /// The open invitations of `ws` (ADMIN), newest first, without codes.
    pub async fn invitations(&self, actor: &Actor, ws: &WorkspaceId) -> Result<Vec<Invitation>> {
        self.require(&self.pool, actor, ws, Role::Admin).await?;
        let sql = format!(
            "SELECT {INVITATION_COLUMNS} FROM invitations WHERE workspace_id = $1 \
             AND used_at IS NULL AND revoked_at IS NULL AND expires_at > $2 \
             ORDER BY created_at DESC, id"
        );
        let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(ws)
            .bind(now())
            .fetch_all(&self.pool)
            .await?;
        rows.iter().map(invitation).collect()
    }

    /// Revokes an open invitation (ADMIN of its workspace); none is 404.
    pub async fn revoke_invitation(&self, actor: &Actor, id: &InvitationId) -> Result<()> {
        let ws: WorkspaceId = sqlx::query_scalar(
            "SELECT workspace_id FROM invitations WHERE id = $1 AND used_at IS NULL \
             AND revoked_at IS NULL",
        )
        .bind(id)
        .fetch_optional(&self.pool)
        .await?
        .ok_or(Error::NotFound("invitation"))?;
        self.require(&self.pool, actor, &ws, Role::Admin).await?;
        let mut tx = self.write_unlocked().await?;
        sqlx::query("UPDATE invitations SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL")
            .bind(id)
            .bind(now())
            .execute(&mut *tx)
            .await?;
        tx.commit().await
    }

    /// Accepts an invitation from `address`. `actor`: the signed-in account
    /// it adds (keeping a higher role it has); without one, the body's `name`
    /// and `password` make a new account, signed in for `lifetime`
    /// (409 `NAME_TAKEN`, 422 `WEAK_PASSWORD`). A code that does not serve
    /// is 404, counted against the address.
    pub async fn accept_invitation(
        &self,
        actor: Option<&Actor>,
        input: impl Into<Input<CodeUse>>,
        address: &str,
        lifetime: Duration,
    ) -> Result<CodeUsed> {
        let body = input.into().open()?;
        let joining = match actor {
            Some(a) => Some(a.account().ok_or(Error::NotFound("account"))?.clone()),
            None => None,
        };
        let new_account = match &joining {
            Some(_) => None,
            None => {
                let name = body.name.clone().ok_or_else(|| {
                    ValidationErrors::one("name", "Required (the new account's name)")
                })?;
                let text = body.password.clone().ok_or_else(|| {
                    ValidationErrors::one("password", "Required (the new account's password)")
                })?;
                Some((
                    name.clone(),
                    Password::new(&text, name.as_str(), "password")?,
                ))
            }
        };
        let hash = code_hash(&body.code);
        let ws = self.open_code(address, "invitations", &hash).await?;
        let ws = WorkspaceId::from_db(ws);
        let password_hash = match &new_account {
            Some((_, p)) => {
                let p = p.clone();
                Some(
                    self.local::<Hashers>()
                        .run(move || passwords::hash(p.expose()))
                        .await??,
                )
            }
            None => None,
        };
        let mut tx = self.write(Lock::Workspace(&ws)).await?;
        let sql = format!(
            "UPDATE invitations SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL \
             AND revoked_at IS NULL AND expires_at > $2 AND {CREATOR_IS_ADMIN} RETURNING role"
        );
        let row = sqlx::query(sqlx::AssertSqlSafe(sql))
            .bind(&hash)
            .bind(now())
            .fetch_optional(&mut *tx)
            .await?
            .ok_or_else(|| no_code("invitation"))?;
        let invited = Role::parse(&row.try_get::<String, _>("role")?).unwrap_or(Role::Viewer);
        let account = match (&joining, new_account) {
            (Some(id), _) => {
                let name: String = sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
                    .bind(id)
                    .fetch_one(&mut *tx)
                    .await?;
                Account {
                    id: id.clone(),
                    name,
                }
            }
            (None, Some((name, _))) => {
                let account = Account {
                    id: AccountId::new(),
                    name: name.to_string(),
                };
                insert_account(&mut tx, &account)
                    .await
                    .map_err(|e| account_name_taken(e, &account.name))?;
                sqlx::query("UPDATE accounts SET password_hash = $2 WHERE id = $1")
                    .bind(&account.id)
                    .bind(password_hash)
                    .execute(&mut *tx)
                    .await?;
                account
            }
            (None, None) => unreachable!("a new account without a credential"),
        };
        let by = actor.cloned().unwrap_or(Actor::Account(account.id.clone()));
        let join = MemberChange::Role {
            role: invited,
            add: true,
            keep_higher: true,
        };
        let (member, _) = apply_membership(&mut tx, &by, &ws, &account.id, join).await?;
        let role = member.role;
        let session = match joining {
            Some(_) => None,
            None => Some(
                issue_token(
                    &mut tx,
                    &account.id,
                    Some(lifetime),
                    TokenKind::Session,
                    None,
                )
                .await?,
            ),
        };
        tx.commit().await?;
        Ok(CodeUsed {
            account,
            member: Some((ws, role)),
            session,
        })
    }

    /// Sets a password with a reset link's code (`POST /api/password-reset`):
    /// ends every session of the account and opens a new one for `lifetime`.
    /// A code that does not serve is 404, counted against `address`.
    pub async fn reset_password(
        &self,
        input: impl Into<Input<PasswordReset>>,
        address: &str,
        lifetime: Duration,
    ) -> Result<CodeUsed> {
        let body = input.into().open()?;
        let text = body.password;
        let hash = code_hash(&body.code);
        let account = AccountId::from_db(self.open_code(address, "password_resets", &hash).await?);
        let name: String = sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
            .bind(&account)
            .fetch_one(&self.pool)
            .await?;
        let password = Password::new(&text, &name, "password")?;
        let new_hash = self
            .local::<Hashers>()
            .run(move || passwords::hash(password.expose()))
            .await??;
        let mut tx = self.write_unlocked().await?;
        let used = sqlx::query(
            "UPDATE password_resets SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL \
             AND expires_at > $2",
        )
        .bind(&hash)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        if used.rows_affected() == 0 {
            return Err(no_code("reset link"));
        }
        store_password(&mut tx, &account, &new_hash, None).await?;
        let session =
            issue_token(&mut tx, &account, Some(lifetime), TokenKind::Session, None).await?;
        tx.commit().await?;
        Ok(CodeUsed {
            account: Account { id: account, name },
            member: None,
            session: Some(session),
        })
    }

    /// The account a reset link would set the password of, without using the
    /// link: the reset page names it, so that a password manager files the
    /// new password under it. A code that does not serve is 404, counted
    /// against `address` like a reset's.
    pub async fn reset_link_account(
        &self,
        input: impl Into<Input<ResetCode>>,
        address: &str,
    ) -> Result<Account> {
        let body = input.into().open()?;
        let hash = code_hash(&body.code);
        let id = AccountId::from_db(self.open_code(address, "password_resets", &hash).await?);
        let name: String = sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
            .bind(&id)
            .fetch_one(&self.pool)
            .await?;
        Ok(Account { id, name })
    }

    /// The workspace (an invitation) or account (a reset link) of the open
    /// code whose hash is `hash` in `table`, after the throttle's reservation
    /// for `address`: a code that serves takes its reservation back; one that
    /// does not is a failure, and 404.
    async fn open_code(&self, address: &str, table: &str, hash: &str) -> Result<String> {
        let reserved = self.reserve_attempt(address, "").await?;
        let owner = if table == "invitations" {
            "workspace_id"
        } else {
            "account_id"
        };
        let revoked = if table == "invitations" {
            format!(" AND revoked_at IS NULL AND {CREATOR_IS_ADMIN}")
        } else {
            String::new()
        };
        let sql = format!(
            "SELECT {owner} FROM {table} WHERE code_hash = $1 AND used_at IS NULL \
             AND expires_at > $2{revoked}"
        );
        let found: Option<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .bind(hash)
            .bind(now())
            .fetch_optional(&self.pool)
            .await?;
        let what = if table == "invitations" {
            "invitation"
        } else {
            "reset link"
        };
        self.settle_attempt(&reserved, found.is_none()).await?;
        found.ok_or_else(|| no_code(what))
    }
}

/// Invitations and password resets (api.md §23) (the operator's side): the operations of `invitations.rs`.
impl Admin<'_> {
    /// A one-time link that sets `account`'s password (24 hours):
    /// `<public_url>/reset#<code>`. Its code is shown only here.
    pub async fn reset_link(&self, account: &AccountId, public_url: &str) -> Result<String> {
        let (code, hash) = new_code()?;
        let mut tx = self.board.write_unlocked().await?;
        let added = sqlx::query(
            "INSERT INTO password_resets (id, account_id, code_hash, created_at, expires_at) \
             SELECT $1, id, $3, $4, $5 FROM accounts WHERE id = $2",
        )
        .bind(cuid2::create_id())
        .bind(account)
        .bind(hash)
        .bind(now())
        .bind(now_plus(RESET_LIFETIME.as_secs() as i64))
        .execute(&mut *tx)
        .await?;
        if added.rows_affected() == 0 {
            return Err(Error::NotFound("account"));
        }
        tx.commit().await?;
        Ok(format!("{}/reset#{code}", public_url.trim_end_matches('/')))
    }
}
