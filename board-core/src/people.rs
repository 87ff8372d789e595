//! People (api.md §23): signing in with a name and a password, the
//! session it opens, signing out, "who am I", and the operator's password.
//!
//! **Names.** A sign-in finds its account by the name's key (`names.rs`), as
//! account names are unique by it: `Admin` signs in as `admin`, as a person
//! who typed the name with a capital expects. An account left without a key
//! (two names that differed only in case before keys existed) is found by
//! its exact name, which wins over a key match. A name longer than an
//! account name can be ([`MAX_NAME_CHARS`]) is refused like an unknown one,
//! and is never kept or logged whole: its throttle row holds a SHA-256 of
//! it ([`subject_of`]), a log line its first characters ([`shown_name`]).
//!
//! **The throttle.** Every attempt is a row of `auth_failures` (address,
//! subject, time, pending), so the counts hold across servers on one
//! database. The subject is the name's key (`""` for a code), so `Admin`
//! and `admin` are one pair. A sign-in first *reserves* its attempt: in one
//! short write transaction, under a lock on the client's address
//! (PostgreSQL: an advisory lock; SQLite: the write transaction itself), it
//! counts the pair's and the address's *failures* (settled rows, and
//! pending rows older than [`STALE`]: a server that died mid-check) and
//! *pendings* (attempts being checked now) within [`WINDOW`]:
//!
//! - failures at [`PAIR_LIMIT`] (or [`ADDRESS_LIMIT`] for the address):
//!   refused with [`Error::TooManyAttempts`], no password checked;
//! - failures plus pendings at the limit: the attempt may not be checked
//!   yet, as every pending one may still fail. It waits (outside any
//!   transaction) and reserves again, until a pending one settles: a success
//!   clears the pair and lets it through, a failure may fill the budget
//!   (then it is refused). After [`WAIT`] it is refused all the same;
//! - else it adds its row as pending and commits.
//!
//! The password is checked after that commit, off the request threads. A
//! wrong password turns its row into a failure; a success deletes the
//! pair's failures and its own row (not the other pending rows, whose
//! attempts settle them); an attempt answered 503 because every hasher
//! stayed busy deletes its row, as nothing was checked. So at most
//! `PAIR_LIMIT - failures` passwords of a pair are ever being checked at
//! once, over every server: no number of racing wrong guesses gets more
//! than five checked; and right passwords racing one another all get in,
//! as none of them waits on a failure. Failures from other addresses never
//! count against a pair: no one can lock a colleague out.

use std::time::Duration;

use serde::Serialize;
use serde_json::Value;
use sqlx::Row;

use crate::access::check_account_name;
use crate::access::{issue_token, Account, Actor, IssuedToken, Role, TokenKind};
use crate::board::{Admin, Board};
use crate::error::{Error, Result, Rule};
use crate::ids::{AccountId, ProjectId, TokenId, WorkspaceId};
use crate::mail::address::{set_address, Email};
use crate::names::{name_key, MAX_NAME_CHARS};
use crate::passwords::{self, Hashers, Password, MAX_PASSWORD_CHARS};
use crate::sso::{identities_of, Identity};
use crate::store::WriteTx;
use crate::text::Name;
use crate::time::{now, now_millis, Timestamp};
use crate::validate::{self, Fields, FromJson, Input};

/// The throttle's window.
pub const WINDOW: Duration = Duration::from_secs(15 * 60);
/// Failures of one (name, address) pair within [`WINDOW`] before it is refused.
pub const PAIR_LIMIT: i64 = 5;
/// Failures from one address within [`WINDOW`] before it is refused.
pub const ADDRESS_LIMIT: i64 = 50;
/// A pending attempt older than this counts as a failure: its server died
/// while checking (a check takes at most the hashers' 5 s wait and a hash).
pub const STALE: Duration = Duration::from_secs(60);
/// How long an attempt waits for pending ones to settle before it is
/// refused.
pub const WAIT: Duration = Duration::from_secs(15);

/// The throttle's subject for a sign-in name: its key, or for a name longer
/// than an account name can be, `sha256:` and the SHA-256 of it in hex (a
/// fixed size, whatever was sent).
pub fn subject_of(name: &str) -> String {
    use sha2::{Digest, Sha256};
    match name.chars().count() > MAX_NAME_CHARS {
        false => name_key(name),
        true => format!(
            "sha256:{}",
            crate::access::to_hex(&Sha256::digest(name.as_bytes()))
        ),
    }
}

/// A sign-in name as a log line may show it: its first [`MAX_NAME_CHARS`]
/// characters, and `…` when there were more. (The log writes it quoted and
/// escaped.)
pub fn shown_name(name: &str) -> String {
    match name.char_indices().nth(MAX_NAME_CHARS) {
        None => name.to_string(),
        Some((cut, _)) => format!("{}…", &name[..cut]),
    }
}

/// The body of a sign-in (`POST /api/session`): a name and a password.
#[derive(Clone, PartialEq, Eq)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct SignIn {
    /// The account's name, as typed (trimmed).
    pub name: String,
    /// The password, as typed.
    pub password: String,
}

impl std::fmt::Debug for SignIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SignIn")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl FromJson for SignIn {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let name = f.required("name", validate::string);
        let password = f.required("password", |v| {
            let text = validate::string(v)?;
            match text.chars().count() <= MAX_PASSWORD_CHARS {
                true => Ok(text),
                false => Err(format!(
                    "A password has at most {MAX_PASSWORD_CHARS} characters"
                )),
            }
        });
        f.finish()?;
        Ok(SignIn {
            name: name.expect("checked").trim().to_string(),
            password: password.expect("checked"),
        })
    }
}

/// A session opened: the account, and the token the server sets as the
/// session cookie (never sent in a body).
#[derive(Debug, Clone)]
pub struct SignedIn {
    /// The account signed in.
    pub account: Account,
    /// The session token (its `Debug` hides the secret).
    pub session: IssuedToken,
}

/// "Who am I" (`GET /api/me`): the account and what it reaches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Me {
    /// The account's id.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: AccountId,
    /// Its name.
    pub name: String,
    /// Whether it has a password (it can sign in with one).
    pub has_password: bool,
    /// Its workspaces, by name.
    pub workspaces: Vec<MeWorkspace>,
    /// Its e-mail address (api.md §26), if it has one.
    pub email: Option<String>,
    /// Whether that address is verified (only a verified one gets mail).
    pub email_verified: bool,
    /// Whether the server sends e-mail (an SMTP server is set up).
    pub mail: bool,
    /// Its identities at the single sign-on provider (api.md §27), oldest
    /// first.
    pub identities: Vec<Identity>,
}

/// A workspace of [`Me`], with the account's role and its projects by name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MeWorkspace {
    /// The workspace's id.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: WorkspaceId,
    /// Its name.
    pub name: String,
    /// The account's role there.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub role: Role,
    /// Its projects, by name.
    pub projects: Vec<MeProject>,
}

/// A project of a [`MeWorkspace`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct MeProject {
    /// The project's id.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    pub id: ProjectId,
    /// Its name.
    pub name: String,
}

/// The body of `PATCH /api/me`: a new name, a new password, or both.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct MePatch {
    /// A new name (unique among accounts: else 409 `NAME_TAKEN`).
    pub name: Option<Name>,
    /// A new password.
    pub password: Option<PasswordChange>,
    /// A new e-mail address (`Some(None)`: remove it), checked by the
    /// operation: without mail it is 422 `MAIL_DISABLED` (api.md §26).
    pub email: Option<Option<String>>,
}

/// A password change: the current password (not needed by an account
/// without one) and the new one.
#[derive(Clone, PartialEq, Eq)]
pub struct PasswordChange {
    /// The current password.
    pub current: Option<String>,
    /// The new password.
    pub new: String,
}

impl std::fmt::Debug for MePatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MePatch")
            .field("name", &self.name)
            .field("password", &self.password.as_ref().map(|_| "…"))
            .field("email", &self.email)
            .finish()
    }
}

impl FromJson for MePatch {
    fn from_json(body: &Value) -> Result<Self> {
        let mut f = Fields::new(body);
        let name = f.optional("name", validate::name);
        let email = f.present("email", |v| match v {
            Value::Null => Ok(None),
            v => validate::string(v).map(Some),
        });
        let password = f.optional("password", |v| {
            let text = |key: &str| match v.get(key) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(other) => Err(format!("{key}: expected a string, received {other}")),
            };
            let Some(obj) = v.as_object() else {
                return Err("Expected an object {current, new}".to_string());
            };
            let unknown: Vec<String> = obj
                .keys()
                .filter(|k| !matches!(k.as_str(), "current" | "new"))
                .map(|k| format!("'{k}'"))
                .collect();
            if !unknown.is_empty() {
                return Err(format!(
                    "Unrecognized key(s) in object: {}",
                    unknown.join(", ")
                ));
            }
            let new = text("new")?.ok_or("new: required (the new password)")?;
            Ok(PasswordChange {
                current: text("current")?,
                new,
            })
        });
        f.finish()?;
        Ok(MePatch {
            name,
            password,
            email,
        })
    }
}

/// Ends `account`'s open sessions in `tx`, all but `keep` (the session that
/// asked, if any); its personal tokens stay. Returns how many ended.
pub(crate) async fn end_sessions(
    tx: &mut WriteTx,
    account: &AccountId,
    keep: Option<&TokenId>,
) -> Result<u64> {
    let done = sqlx::query(
        "UPDATE tokens SET revoked_at = $3 WHERE account_id = $1 AND kind = 'session' \
         AND revoked_at IS NULL AND id <> $2",
    )
    .bind(account)
    .bind(keep.map_or("", TokenId::as_str))
    .bind(now())
    .execute(&mut **tx)
    .await?;
    Ok(done.rows_affected())
}

/// Gives `account` the password `hash` in `tx`, ends its sessions but
/// `keep` and voids its open reset links (a new password is a new start
/// everywhere else: a link sent before it no longer serves).
pub(crate) async fn store_password(
    tx: &mut WriteTx,
    account: &AccountId,
    hash: &str,
    keep: Option<&TokenId>,
) -> Result<()> {
    sqlx::query("UPDATE accounts SET password_hash = $2 WHERE id = $1")
        .bind(account)
        .bind(hash)
        .execute(&mut **tx)
        .await?;
    sqlx::query(
        "UPDATE password_resets SET used_at = $2 WHERE account_id = $1 AND used_at IS NULL",
    )
    .bind(account)
    .bind(now())
    .execute(&mut **tx)
    .await?;
    end_sessions(tx, account, keep).await.map(|_| ())
}

/// Deletes the throttle's failures of (`address`, `subject`) in `tx`, and
/// the reservation `mine`: what a success does. Other pending attempts keep
/// their rows: they settle them.
async fn clear_pair(tx: &mut WriteTx, address: &str, subject: &str, mine: &str) -> Result<()> {
    sqlx::query(
        "DELETE FROM auth_failures WHERE address = $1 AND subject = $2 \
         AND (pending = 0 OR id = $3 OR at < $4)",
    )
    .bind(address)
    .bind(subject)
    .bind(mine)
    .bind(stale_start())
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// Pending rows older than this count as failures.
fn stale_start() -> Timestamp {
    Timestamp::from_millis(now_millis() - STALE.as_millis() as i64)
}

/// An account name taken (a unique violation) as 409 `NAME_TAKEN`.
pub(crate) fn account_name_taken(e: Error, name: &str) -> Error {
    match crate::error::is_unique_violation(&e) {
        true => Error::NameTaken(format!(
            "an account named {name:?} (or one that differs only in case or width) \
             already exists: choose another name"
        )),
        false => e,
    }
}

/// The oldest time still inside the window.
fn window_start() -> Timestamp {
    Timestamp::from_millis(now_millis() - WINDOW.as_millis() as i64)
}

/// Seconds until the failure at `oldest` leaves the window (at least 1).
fn retry_after(oldest: &str) -> u64 {
    let left = crate::time::parse_time(oldest)
        .map_or(0, |at| at + WINDOW.as_millis() as i64 - now_millis());
    (left.max(0) as u64).div_ceil(1000).max(1)
}

/// What one try of a reservation found.
enum Reserve {
    /// The attempt's row, pending.
    Done(String),
    /// The budget is used: refused, retry after so many seconds.
    Refused(u64),
    /// Pending attempts fill the budget: try again when one settles.
    Wait,
}

/// People: sign-in, who am I, passwords (api.md §23): the operations of `people.rs`.
impl Board {
    /// Reserves one attempt of `subject` from `address` (see the module's
    /// doc): refused with [`Error::TooManyAttempts`] when the pair (a
    /// subject other than `""`) or the address has used its budget of
    /// failures; waits while failures and pending attempts fill it. Returns
    /// the reservation's id, for [`Board::settle_attempt`].
    pub(crate) async fn reserve_attempt(&self, address: &str, subject: &str) -> Result<String> {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            match self.try_reserve(address, subject).await? {
                Reserve::Done(id) => return Ok(id),
                Reserve::Refused(secs) => return Err(Error::TooManyAttempts(secs)),
                Reserve::Wait if tokio::time::Instant::now() >= deadline => {
                    return Err(Error::TooManyAttempts(1))
                }
                Reserve::Wait => tokio::time::sleep(Duration::from_millis(20)).await,
            }
        }
    }

    /// One try of [`Board::reserve_attempt`], in one write transaction.
    async fn try_reserve(&self, address: &str, subject: &str) -> Result<Reserve> {
        let mut tx = self.write_unlocked().await?;
        if !self.backend.is_embedded() {
            sqlx::query("SELECT pg_advisory_xact_lock(hashtextextended($1, 0))")
                .bind(format!("auth:{address}"))
                .execute(&mut *tx)
                .await?;
        }
        let since = window_start();
        let row = sqlx::query(
            "SELECT COALESCE(SUM(f), 0) AS n, COALESCE(SUM(1 - f), 0) AS n_pending, \
                    MIN(CASE WHEN f = 1 THEN at END) AS oldest, \
                    COALESCE(SUM(CASE WHEN subject = $3 THEN f ELSE 0 END), 0) AS pair, \
                    COALESCE(SUM(CASE WHEN subject = $3 THEN 1 - f ELSE 0 END), 0) AS pair_pending, \
                    MIN(CASE WHEN subject = $3 AND f = 1 THEN at END) AS pair_oldest \
             FROM (SELECT subject, at, CASE WHEN pending = 0 OR at < $4 THEN 1 ELSE 0 END AS f \
                   FROM auth_failures WHERE address = $1 AND at >= $2) t",
        )
        .bind(address)
        .bind(&since)
        .bind(subject)
        .bind(stale_start())
        .fetch_one(&mut *tx)
        .await?;
        let count = |name: &str| row.try_get::<i64, _>(name);
        let (n, n_pending) = (count("n")?, count("n_pending")?);
        let (pair, pair_pending) = (count("pair")?, count("pair_pending")?);
        let paired = !subject.is_empty();
        if paired && pair >= PAIR_LIMIT {
            let oldest: String = row.try_get("pair_oldest")?;
            return Ok(Reserve::Refused(retry_after(&oldest)));
        }
        if n >= ADDRESS_LIMIT {
            let oldest: String = row.try_get("oldest")?;
            return Ok(Reserve::Refused(retry_after(&oldest)));
        }
        if (paired && pair + pair_pending >= PAIR_LIMIT) || n + n_pending >= ADDRESS_LIMIT {
            return Ok(Reserve::Wait);
        }
        // Rows of this address that left the window go with this write.
        sqlx::query("DELETE FROM auth_failures WHERE address = $1 AND at < $2")
            .bind(address)
            .bind(&since)
            .execute(&mut *tx)
            .await?;
        let id = cuid2::create_id();
        sqlx::query(
            "INSERT INTO auth_failures (id, address, subject, at, pending) \
             VALUES ($1, $2, $3, $4, 1)",
        )
        .bind(&id)
        .bind(address)
        .bind(subject)
        .bind(now())
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(Reserve::Done(id))
    }

    /// Settles a reservation of [`Board::reserve_attempt`]: a failure keeps
    /// its row, counted; anything else (a code that served, a hasher that
    /// stayed busy) takes it back.
    pub(crate) async fn settle_attempt(&self, id: &str, failed: bool) -> Result<()> {
        let sql = match failed {
            true => "UPDATE auth_failures SET pending = 0 WHERE id = $1",
            false => "DELETE FROM auth_failures WHERE id = $1",
        };
        let mut tx = self.write_unlocked().await?;
        sqlx::query(sql).bind(id).execute(&mut *tx).await?;
        tx.commit().await
    }

    /// Settles `reserved` after a check that answered `outcome`: 503 `BUSY`
    /// checked nothing (taken back), any other error is a failure (kept).
    async fn settle_after<T>(&self, reserved: &str, outcome: &Result<T>) -> Result<()> {
        match outcome {
            Ok(_) => Ok(()),
            Err(Error::Busy) => self.settle_attempt(reserved, false).await,
            Err(_) => self.settle_attempt(reserved, true).await,
        }
    }

    /// Signs in (api.md §23): [`Error::TooManyAttempts`] past the
    /// throttle, [`Error::BadCredentials`] for an unknown name, a wrong
    /// password or an account without one (the same answer, in the same
    /// time: a dummy hash is verified), [`Error::Busy`] when no hasher frees
    /// up in time. A success opens a session of `lifetime`, clears the pair's
    /// failures, and replaces a hash made with weaker parameters.
    pub async fn sign_in(
        &self,
        input: impl Into<Input<SignIn>>,
        address: &str,
        lifetime: Duration,
    ) -> Result<SignedIn> {
        let request = input.into().open()?;
        let name = request.name;
        let subject = subject_of(&name);
        let reserved = self.reserve_attempt(address, &subject).await?;
        let checked = self.check_sign_in(&name, &subject, request.password).await;
        self.settle_after(&reserved, &checked).await?;
        let (account, rehash) = checked?;
        let mut tx = self.write_unlocked().await?;
        clear_pair(&mut tx, address, &subject, &reserved).await?;
        if let Some(hash) = rehash.transpose()? {
            sqlx::query("UPDATE accounts SET password_hash = $2 WHERE id = $1")
                .bind(&account.id)
                .bind(hash)
                .execute(&mut *tx)
                .await?;
        }
        let session = issue_token(
            &mut tx,
            &account.id,
            Some(lifetime),
            TokenKind::Session,
            None,
        )
        .await?;
        tx.commit().await?;
        Ok(SignedIn { account, session })
    }

    /// The password check of a sign-in: the account of `name` (its exact
    /// name first, else its key `subject`) and a new hash when its own is
    /// outdated; [`Error::BadCredentials`] for anything else, in the same
    /// time; [`Error::Busy`] when no hasher freed up.
    async fn check_sign_in(
        &self,
        name: &str,
        subject: &str,
        password: String,
    ) -> Result<(Account, Option<Result<String>>)> {
        let row = match name.chars().count() > MAX_NAME_CHARS {
            true => None,
            false => sqlx::query(
                "SELECT id, name, password_hash FROM accounts WHERE name = $1 OR name_key = $2 \
                 ORDER BY CASE WHEN name = $1 THEN 0 ELSE 1 END LIMIT 1",
            )
            .bind(name)
            .bind(subject)
            .fetch_optional(&self.pool)
            .await?,
        };
        let (account, stored) = match &row {
            Some(r) => (
                Some(Account {
                    id: AccountId::from_db(r.try_get("id")?),
                    name: r.try_get("name")?,
                }),
                r.try_get::<Option<String>, _>("password_hash")?,
            ),
            None => (None, None),
        };
        let checked = stored.clone();
        let (matches, rehash) = self
            .local::<Hashers>()
            .run(move || {
                let hash = checked.as_deref().unwrap_or(&passwords::DUMMY_HASH);
                let matches = passwords::verify(&password, hash) && checked.is_some();
                let rehash =
                    (matches && passwords::is_outdated(hash)).then(|| passwords::hash(&password));
                (matches, rehash)
            })
            .await?;
        match (matches, account) {
            (true, Some(a)) => Ok((a, rehash)),
            _ => Err(Error::BadCredentials),
        }
    }

    /// Signs out: revokes the session that authenticated `actor`, and
    /// returns the ID token it was opened with through single sign-on
    /// (api.md §27), for the provider's sign-out. A request authenticated by
    /// a personal token has no session: 404.
    pub async fn sign_out(&self, actor: &Actor) -> Result<Option<String>> {
        let Actor::Session(session) = actor else {
            return Err(Error::NotFound("session"));
        };
        let mut tx = self.write_unlocked().await?;
        let row = sqlx::query(
            "UPDATE tokens SET revoked_at = COALESCE(revoked_at, $2) \
             WHERE id = $1 AND kind = 'session' RETURNING id_token",
        )
        .bind(session.token())
        .bind(now())
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(Error::NotFound("session"))?;
        let id_token: Option<String> = row.try_get("id_token")?;
        tx.commit().await?;
        Ok(id_token)
    }

    /// Who `actor` is, with its workspaces and their projects, by name (one
    /// statement). The operator is no account: 404.
    pub async fn me(&self, actor: &Actor) -> Result<Me> {
        let account = actor.account().ok_or(Error::NotFound("account"))?;
        let rows = sqlx::query(
            "SELECT a.id, a.name, CASE WHEN a.password_hash IS NULL THEN 0 ELSE 1 END AS has_password, \
                    a.email, CASE WHEN a.email_verified_at IS NULL THEN 0 ELSE 1 END AS verified, \
                    w.id AS w_id, w.name AS w_name, m.role, p.id AS p_id, p.name AS p_name \
             FROM accounts a \
             LEFT JOIN memberships m ON m.account_id = a.id \
             LEFT JOIN workspaces w ON w.id = m.workspace_id \
             LEFT JOIN projects p ON p.workspace_id = w.id \
             WHERE a.id = $1 ORDER BY w.name, w.id, p.name, p.id",
        )
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        let first = rows.first().ok_or(Error::Unauthenticated)?;
        let has_password: i64 = first.try_get("has_password")?;
        let mut me = Me {
            id: AccountId::from_db(first.try_get("id")?),
            name: first.try_get("name")?,
            has_password: has_password == 1,
            workspaces: Vec::new(),
            email: first.try_get("email")?,
            email_verified: first.try_get::<i64, _>("verified")? == 1,
            mail: self.mail_on(),
            identities: identities_of(&self.pool, account).await?,
        };
        for row in &rows {
            let Some(w) = row.try_get::<Option<String>, _>("w_id")? else {
                continue;
            };
            let w = WorkspaceId::from_db(w);
            if me.workspaces.last().is_none_or(|last| last.id != w) {
                let role: String = row.try_get("role")?;
                me.workspaces.push(MeWorkspace {
                    id: w,
                    name: row.try_get("w_name")?,
                    role: Role::parse(&role).unwrap_or(Role::Viewer),
                    projects: Vec::new(),
                });
            }
            if let Some(p) = row.try_get::<Option<String>, _>("p_id")? {
                let ws = me.workspaces.last_mut().expect("pushed above");
                ws.projects.push(MeProject {
                    id: ProjectId::from_db(p),
                    name: row.try_get("p_name")?,
                });
            }
        }
        Ok(me)
    }
}

/// People: sign-in, who am I, passwords (api.md §23): the operations of `people.rs`.
impl Board {
    /// Changes the calling account's name and/or password (`PATCH /api/me`).
    /// A wrong current password is 422 `WRONG_PASSWORD`, throttled as a
    /// sign-in from `address` is; a new password ends the account's other
    /// sessions (not this one, not its personal tokens). A name taken by
    /// another account is 409 `NAME_TAKEN`.
    pub async fn update_me(
        &self,
        actor: &Actor,
        input: impl Into<Input<MePatch>>,
        address: &str,
    ) -> Result<Me> {
        let account = actor.account().ok_or(Error::NotFound("account"))?.clone();
        let patch = input.into().open()?;
        let email = match &patch.email {
            None => None,
            Some(_) if !self.mail_on() => return Err(crate::mail::address::mail_disabled()),
            Some(None) => Some(None),
            Some(Some(text)) => {
                Some(Some(Email::parse(text).map_err(|m| {
                    crate::error::ValidationErrors::one("email", m)
                })?))
            }
        };
        let row = sqlx::query("SELECT name, password_hash FROM accounts WHERE id = $1")
            .bind(&account)
            .fetch_optional(&self.pool)
            .await?
            .ok_or(Error::Unauthenticated)?;
        let name: String = row.try_get("name")?;
        let stored: Option<String> = row.try_get("password_hash")?;
        let mut checked: Option<String> = None;
        let new_hash = match &patch.password {
            None => None,
            Some(change) => {
                let named = patch.name.as_ref().map_or(name.as_str(), |n| n.as_str());
                let new = Password::new(&change.new, named, "password")?;
                if let Some(stored) = stored {
                    let current = change.current.clone().ok_or_else(|| {
                        crate::error::ValidationErrors::one(
                            "password",
                            "current: required (the password the account has now)",
                        )
                    })?;
                    let reserved = self.reserve_attempt(address, &name_key(&name)).await?;
                    let right = match self
                        .local::<Hashers>()
                        .run(move || passwords::verify(&current, &stored))
                        .await
                    {
                        Ok(true) => Ok(reserved.clone()),
                        Ok(false) => Err(Error::rule(
                            Rule::WrongPassword,
                            "the current password is not right: nothing changed",
                        )),
                        Err(e) => Err(e),
                    };
                    if let Err(e) = &right {
                        let busy = matches!(e, Error::Busy);
                        self.settle_attempt(&reserved, !busy).await?;
                    }
                    checked = Some(right?);
                }
                Some(
                    self.local::<Hashers>()
                        .run(move || passwords::hash(new.expose()))
                        .await??,
                )
            }
        };
        let mut tx = self.write_unlocked().await?;
        if let Some(reserved) = &checked {
            clear_pair(&mut tx, address, &name_key(&name), reserved).await?;
        }
        if let Some(new_name) = &patch.name {
            check_account_name(new_name.as_str())?;
            sqlx::query("UPDATE accounts SET name = $2, name_key = $3 WHERE id = $1")
                .bind(&account)
                .bind(new_name.as_str())
                .bind(name_key(new_name.as_str()))
                .execute(&mut *tx)
                .await
                .map_err(|e| account_name_taken(e.into(), new_name.as_str()))?;
        }
        if let Some(hash) = new_hash {
            let keep = match actor {
                Actor::Session(s) => Some(s.token()),
                _ => None,
            };
            store_password(&mut tx, &account, &hash, keep).await?;
        }
        let code = match &email {
            Some(email) => set_address(&mut tx, &account, email.as_ref(), false).await?,
            None => None,
        };
        tx.commit().await?;
        if let (Some(code), Some(Some(email))) = (code, &email) {
            self.send_verification(email, &code)?;
        }
        self.me(actor).await
    }
}

/// People: sign-in, who am I, passwords (api.md §23) (the operator's side): the operations of `people.rs`.
impl Admin<'_> {
    /// Deletes the throttle's failures that left its window, of every
    /// address (each address's own go with its next attempt): the server's
    /// hourly sweep. Returns how many went.
    pub async fn prune_auth_failures(&self) -> Result<u64> {
        let mut tx = self.board.write_unlocked().await?;
        let gone = sqlx::query("DELETE FROM auth_failures WHERE at < $1")
            .bind(window_start())
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(gone.rows_affected())
    }

    /// Sets `account`'s password (the strength rule of [`Password::new`],
    /// against its name; 422 on `password`) and ends its sessions, as a
    /// reset does. Its personal tokens stay.
    pub async fn set_password(&self, account: &AccountId, password: &str) -> Result<()> {
        let name: String = sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
            .bind(account)
            .fetch_optional(&self.board.pool)
            .await?
            .ok_or(Error::NotFound("account"))?;
        let password = Password::new(password, &name, "password")?;
        let hash = self
            .board
            .local::<Hashers>()
            .run(move || passwords::hash(password.expose()))
            .await??;
        let mut tx = self.board.write_unlocked().await?;
        store_password(&mut tx, account, &hash, None).await?;
        tx.commit().await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::on_both_backends;
    use crate::time::format_millis;

    const PASSWORD: &str = "correct horse battery staple";

    async fn subjects(board: &Board) -> Vec<(String, i64)> {
        sqlx::query_as("SELECT subject, pending FROM auth_failures ORDER BY at")
            .fetch_all(&board.pool)
            .await
            .unwrap()
    }

    fn sign_in(name: &str, password: &str) -> SignIn {
        SignIn {
            name: name.into(),
            password: password.into(),
        }
    }

    on_both_backends! {
        /// An attempt answered 503 because every hasher stayed busy checked
        /// nothing: it leaves no failure behind.
        async fn a_busy_answer_is_not_a_failure(board) {
            let admin = board.admin();
            let account = admin.create_account(&Name::parse("ada").unwrap()).await.unwrap();
            admin.set_password(&account.id, PASSWORD).await.unwrap();
            let held = board.local::<Hashers>().hold_all().await;
            let lifetime = Duration::from_secs(60);
            let r = board.sign_in(sign_in("ada", "wrong horse battery staple"), "10.7.0.1", lifetime).await;
            assert!(matches!(r, Err(Error::Busy)), "{r:?}");
            assert_eq!(subjects(&board).await, vec![], "a busy answer counts nothing");
            drop(held);
            let r = board.sign_in(sign_in("ada", "wrong horse battery staple"), "10.7.0.1", lifetime).await;
            assert!(matches!(r, Err(Error::BadCredentials)), "{r:?}");
            assert_eq!(subjects(&board).await, vec![("ada".to_string(), 0)]);
        }

        /// A name longer than an account name is refused like an unknown one
        /// and kept only as a digest of fixed size.
        async fn an_over_long_name_is_kept_as_a_digest(board) {
            let name = "x".repeat(100_000);
            let r = board.sign_in(sign_in(&name, PASSWORD), "10.7.0.2", Duration::from_secs(60)).await;
            assert!(matches!(r, Err(Error::BadCredentials)), "{r:?}");
            let kept = subjects(&board).await;
            assert_eq!(kept.len(), 1);
            assert!(kept[0].0.starts_with("sha256:") && kept[0].0.len() == 71, "{kept:?}");
            assert_eq!(shown_name(&name).chars().count(), MAX_NAME_CHARS + 1);
        }

        /// Accounts made before name keys get them when the database
        /// opens, oldest first; one whose key an older one holds keeps none
        /// and signs in by its exact name.
        async fn older_accounts_get_their_keys_and_legacy_twins_sign_in_by_name(board) {
            for (id, name, at) in [("cka000000000000000000001", "bob", "2020-01-01T00:00:00.000Z"),
                                   ("cka000000000000000000002", "Bob", "2021-01-01T00:00:00.000Z")] {
                sqlx::query("INSERT INTO accounts (id, name, created_at) VALUES ($1, $2, $3)")
                    .bind(id).bind(name).bind(at).execute(&board.pool).await.unwrap();
            }
            board.fill_name_keys().await.unwrap();
            let keys: Vec<(String, Option<String>)> =
                sqlx::query_as("SELECT name, name_key FROM accounts WHERE name IN ('bob', 'Bob') ORDER BY created_at")
                    .fetch_all(&board.pool).await.unwrap();
            assert_eq!(keys, vec![("bob".into(), Some("bob".into())), ("Bob".into(), None)]);
            for (name, password) in [("bob", PASSWORD), ("Bob", "plaid unicorn orbits the lighthouse")] {
                let id = board.admin().find_account(name).await.unwrap().id;
                board.admin().set_password(&id, password).await.unwrap();
            }
            let lifetime = Duration::from_secs(60);
            let bob = board.sign_in(sign_in("bob", PASSWORD), "10.7.0.3", lifetime).await.unwrap();
            let twin = board.sign_in(sign_in("Bob", "plaid unicorn orbits the lighthouse"), "10.7.0.3", lifetime).await.unwrap();
            assert_eq!((bob.account.name.as_str(), twin.account.name.as_str()), ("bob", "Bob"));
            let by_key = board.sign_in(sign_in("BOB", PASSWORD), "10.7.0.3", lifetime).await.unwrap();
            assert_eq!(by_key.account.name, "bob");
        }

        /// Creates racing with names that differ only in case or width:
        /// the unique key lets exactly one win; the rest are NAME_TAKEN.
        async fn racing_look_alike_creates_let_one_win(board) {
            let names = ["zoe", "Zoe", "ZOE", "ｚｏｅ", "zOe", "ZoE"];
            let mut tasks = Vec::new();
            for name in names {
                let board = board.board.clone();
                tasks.push(tokio::spawn(async move {
                    board.admin().create_account(&Name::parse(name).unwrap()).await.map(|_| ())
                }));
            }
            let mut won = 0;
            for t in tasks {
                match t.await.unwrap() {
                    Ok(()) => won += 1,
                    Err(e) => assert_eq!(e.code(), "NAME_TAKEN", "{e:?}"),
                }
            }
            assert_eq!(won, 1);
            let e = board.admin().create_account(&Name::parse("zoe\u{200B}").unwrap()).await.unwrap_err();
            assert_eq!(e.code(), "VALIDATION_FAILED", "{e:?}");
        }
    }

    #[test]
    fn retry_after_counts_to_the_oldest_failure_leaving_the_window() {
        let window = WINDOW.as_millis() as i64;
        let oldest = format_millis(now_millis() - window + 90_000);
        let secs = retry_after(&oldest);
        assert!((89..=91).contains(&secs), "{secs}");
        assert_eq!(
            retry_after(&format_millis(now_millis() - window - 5_000)),
            1
        );
    }
}
