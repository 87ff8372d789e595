//! The code flow (api.md §27): [`Board::sso_start`] sends the browser to
//! the provider; [`Board::sso_callback`] takes it back, checks everything,
//! and links, signs in or creates, in one transaction.
//!
//! **The state.** A start makes a `state` and a `nonce` of 256 random bits
//! each and a PKCE verifier (`S256`), and keeps them in `sso_states` (the
//! state as its SHA-256) for [`SSO_STATE_LIFETIME`], so that any server of
//! the installation can take the callback. The browser keeps the state in
//! its `board_oidc` cookie: a callback whose `state` is not the cookie's is
//! refused before anything is read. The callback deletes the row in its
//! first statement (`DELETE … RETURNING`): of two callbacks with one state,
//! on one server or several, exactly one gets it; the other is refused.
//!
//! **The identity** is (issuer, `sub`), unique in `identities`; an e-mail
//! address alone never chooses an account. With a signed-in session and
//! `link`, it joins that account (`IDENTITY_TAKEN` when another holds it);
//! else a linked identity signs its account in; else an invitation creates
//! the account (its membership and the spent invitation in the same
//! transaction, under the workspace's lock, as a password acceptance is);
//! else, with `--oidc-link-verified-email`, a token whose `email_verified`
//! is true links the one account whose verified address is its address
//! (none or several: on to the next case);
//! else, with `--oidc-create-accounts`, a new account without a workspace;
//! else `NO_ACCOUNT`. Every refusal changes nothing about accounts.

use std::time::Duration;

use openidconnect::core::{CoreAuthenticationFlow, CoreClient, CoreIdToken, CoreTokenResponse};
use openidconnect::{
    AuthType, AuthorizationCode, ClaimsVerificationError, ClientId, ClientSecret, CsrfToken, Nonce,
    PkceCodeChallenge, PkceCodeVerifier, RedirectUrl, Scope, SignatureVerificationError,
    TokenResponse,
};
use sha2::{Digest, Sha256};
use sqlx::Row;

use super::Provider;
use crate::access::{check_account_name, insert_account, issue_token, to_hex, Account};
use crate::access::{Actor, Role, TokenKind};
use crate::board::Board;
use crate::error::{is_unique_violation, Error, Result, SsoReason};
use crate::ids::{AccountId, WorkspaceId};
use crate::invitations::CREATOR_IS_ADMIN;
use crate::members::{apply_membership, MemberChange};
use crate::names::{name_key, MAX_NAME_CHARS};
use crate::store::{Lock, WriteTx};
use crate::text::Name;
use crate::time::{now, now_plus};

/// How long a start waits for its callback (the `board_oidc` cookie's age).
pub const SSO_STATE_LIFETIME: Duration = Duration::from_secs(600);

/// What a start asks for: `return`, `invite`, `link`, as the query gave them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SsoStart {
    /// The path to return to: kept only when it is a path of this site.
    pub return_to: String,
    /// An invitation's code (its account is created at the callback).
    pub invite: Option<String>,
    /// Link the identity to the account signed in in this browser.
    pub link: bool,
}

impl SsoStart {
    /// Reads the query's `return`, `invite` and `link`. `return` is kept
    /// only when it is a path of this site: it starts with one `/` (not
    /// `//` or `/\`) and holds no control character; anything else is `/`.
    /// `link` is on only as `true`.
    pub fn new(return_to: Option<&str>, invite: Option<&str>, link: Option<&str>) -> SsoStart {
        SsoStart {
            return_to: local_path(return_to.unwrap_or("/")),
            invite: invite
                .map(str::trim)
                .filter(|c| !c.is_empty())
                .map(String::from),
            link: link == Some("true"),
        }
    }
}

/// `path` when it is a path of this site, else `/`.
fn local_path(path: &str) -> String {
    let ok = path.starts_with('/')
        && !path.starts_with("//")
        && !path.starts_with("/\\")
        && path.len() <= 2000
        && path.bytes().all(|b| b.is_ascii_graphic());
    match ok {
        true => path.to_string(),
        false => "/".to_string(),
    }
}

/// A start made: where to send the browser, and the state its `board_oidc`
/// cookie keeps.
#[derive(Clone)]
pub struct SsoStarted {
    /// The provider's authorization URL, with the state, the nonce and the
    /// PKCE challenge.
    pub location: String,
    /// The state (256 random bits, hex): the cookie's value.
    pub state: String,
}

impl std::fmt::Debug for SsoStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoStarted").finish_non_exhaustive()
    }
}

/// The callback's query: `code` and `state`, or the provider's `error`.
#[derive(Clone, Default)]
pub struct SsoCallback {
    /// The authorization code.
    pub code: Option<String>,
    /// The state the start sent.
    pub state: Option<String>,
    /// The provider's error code (`access_denied`, …).
    pub error: Option<String>,
}

impl std::fmt::Debug for SsoCallback {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SsoCallback")
            .field("error", &self.error)
            .finish_non_exhaustive()
    }
}

/// A callback that succeeded.
#[derive(Debug, Clone)]
pub struct SsoDone {
    /// The account signed in (or linked to).
    pub account: Account,
    /// The session opened (none when the identity was linked to the session
    /// already signed in).
    pub session: Option<crate::access::IssuedToken>,
    /// Where the browser goes now (a path of this site).
    pub return_to: String,
    /// The identity's issuer.
    pub issuer: String,
    /// The identity's subject.
    pub subject: String,
    /// What happened: `linked`, `signed_in`, `invited` or `created`.
    pub outcome: &'static str,
}

/// 256 random bits, hex.
fn random_hex() -> Result<String> {
    let mut raw = [0u8; 32];
    getrandom::fill(&mut raw).map_err(|e| Error::Config(format!("no randomness: {e}")))?;
    Ok(to_hex(&raw))
}

fn sha256_hex(text: &str) -> String {
    to_hex(&Sha256::digest(text.as_bytes()))
}

/// A refusal of the callback.
fn refused(reason: SsoReason, message: impl Into<String>, subject: Option<&str>) -> Error {
    Error::SsoRefused(reason, message.into(), subject.map(String::from))
}

/// What the ID token said, once checked.
struct Claims {
    issuer: String,
    subject: String,
    email: Option<String>,
    /// The provider's `email_verified` (absent: false).
    email_verified: bool,
    names: Vec<String>,
    id_token: String,
}

/// The client for one request: the provider's endpoints, the client id and
/// secret, and the redirect URI (`<public URL>/api/auth/oidc/callback`);
/// `client_secret_post` when discovery lists only that.
fn client(
    provider: &Provider,
    metadata: super::Metadata,
    redirect_uri: &str,
) -> Result<
    CoreClient<
        openidconnect::EndpointSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointNotSet,
        openidconnect::EndpointMaybeSet,
        openidconnect::EndpointMaybeSet,
    >,
> {
    let settings = provider.settings();
    let post_only = metadata
        .token_endpoint_auth_methods_supported()
        .is_some_and(|m| {
            use openidconnect::core::CoreClientAuthMethod as M;
            m.contains(&M::ClientSecretPost) && !m.contains(&M::ClientSecretBasic)
        });
    let client = CoreClient::from_provider_metadata(
        metadata,
        ClientId::new(settings.client_id.clone()),
        settings.client_secret.clone().map(ClientSecret::new),
    )
    .set_redirect_uri(
        RedirectUrl::new(redirect_uri.to_string())
            .map_err(|e| Error::Config(format!("redirect URI {redirect_uri:?}: {e}")))?,
    );
    Ok(match post_only {
        true => client.set_auth_type(AuthType::RequestBody),
        false => client,
    })
}

/// Single sign-on (api.md §27): the operations of `sso/flow.rs`.
impl Board {
    /// Starts a sign-in at `provider`: keeps the state (see the module's
    /// doc) and returns where to send the browser. 503
    /// `PROVIDER_UNAVAILABLE` while discovery has not answered.
    pub async fn sso_start(
        &self,
        provider: &Provider,
        start: SsoStart,
        redirect_uri: &str,
    ) -> Result<SsoStarted> {
        let client = client(provider, provider.metadata()?, redirect_uri)?;
        let (state, nonce) = (random_hex()?, random_hex()?);
        let (challenge, verifier) = PkceCodeChallenge::new_random_sha256();
        let scopes = provider
            .settings()
            .scopes
            .iter()
            .filter(|s| s.as_str() != "openid")
            .map(|s| Scope::new(s.clone()));
        let (state_for_url, nonce_for_url) = (state.clone(), nonce.clone());
        let (url, _, _) = client
            .authorize_url(
                CoreAuthenticationFlow::AuthorizationCode,
                move || CsrfToken::new(state_for_url),
                move || Nonce::new(nonce_for_url),
            )
            .add_scopes(scopes)
            .set_pkce_challenge(challenge)
            .url();
        let mut tx = self.write_unlocked().await?;
        sqlx::query("DELETE FROM sso_states WHERE expires_at < $1")
            .bind(now())
            .execute(&mut *tx)
            .await?;
        sqlx::query(
            "INSERT INTO sso_states (id, nonce, verifier, return_to, invite_hash, link, \
             created_at, expires_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)",
        )
        .bind(sha256_hex(&state))
        .bind(&nonce)
        .bind(verifier.secret())
        .bind(&start.return_to)
        .bind(start.invite.as_deref().map(sha256_hex))
        .bind(i64::from(start.link))
        .bind(now())
        .bind(now_plus(SSO_STATE_LIFETIME.as_secs() as i64))
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(SsoStarted {
            location: url.to_string(),
            state,
        })
    }

    /// Takes the provider's answer (see the module's doc). `cookie` is the
    /// browser's `board_oidc`; `actor`, the session it is signed in with,
    /// if any. A refusal is [`Error::SsoRefused`] (or 503
    /// `PROVIDER_UNAVAILABLE`) and changes nothing about accounts.
    pub async fn sso_callback(
        &self,
        provider: &Provider,
        actor: Option<&Actor>,
        cookie: Option<&str>,
        callback: SsoCallback,
        redirect_uri: &str,
        lifetime: Duration,
    ) -> Result<SsoDone> {
        let stale = || {
            refused(
                SsoReason::State,
                "this sign-in is unknown, used, expired or was started in another browser: \
                 start again",
                None,
            )
        };
        // The provider's error first (not every provider sends the state
        // back with it); the state it names, if any, is spent all the same.
        if let Some(error) = &callback.error {
            if let Some(state) = callback.state.as_deref() {
                self.take_state(state, cookie).await?;
            }
            let shown: String = error.chars().take(100).collect();
            return Err(refused(
                SsoReason::Provider,
                format!("the sign-in provider refused: {shown:?}"),
                None,
            ));
        }
        let state = callback.state.as_deref().ok_or_else(stale)?;
        let row = self.take_state(state, cookie).await?.ok_or_else(stale)?;
        let expires: String = row.try_get("expires_at")?;
        if expires.as_str() <= now().as_str() {
            return Err(stale());
        }
        let nonce: String = row.try_get("nonce")?;
        let verifier: String = row.try_get("verifier")?;
        let return_to: String = row.try_get("return_to")?;
        let invite_hash: Option<String> = row.try_get("invite_hash")?;
        let link = row.try_get::<i64, _>("link")? == 1;
        let code = callback
            .code
            .ok_or_else(|| refused(SsoReason::Token, "the provider sent no code", None))?;
        let claims = self
            .exchange(provider, redirect_uri, code, verifier, nonce)
            .await?;
        let linking = match (link, actor) {
            (true, Some(a)) => a.account().cloned(),
            _ => None,
        };
        self.bind_identity(provider, claims, linking, invite_hash, lifetime)
            .await
            .map(|mut done| {
                done.return_to = return_to;
                done
            })
    }

    /// Spends the state `state` when it is the browser's (`cookie`): its row,
    /// deleted in the statement that reads it (none: unknown, used, or not
    /// this browser's).
    async fn take_state(
        &self,
        state: &str,
        cookie: Option<&str>,
    ) -> Result<Option<sqlx::any::AnyRow>> {
        let same_browser = cookie.is_some_and(|c| {
            let (a, b) = (c.as_bytes(), state.as_bytes());
            a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
        });
        if !same_browser {
            return Ok(None);
        }
        let mut tx = self.write_unlocked().await?;
        let row = sqlx::query(
            "DELETE FROM sso_states WHERE id = $1 \
             RETURNING nonce, verifier, return_to, invite_hash, link, expires_at",
        )
        .bind(sha256_hex(state))
        .fetch_optional(&mut *tx)
        .await?;
        tx.commit().await?;
        Ok(row)
    }

    /// Exchanges `code` with the PKCE `verifier` and checks the ID token
    /// (signature with the provider's keys, fetched again once on an unknown
    /// key id; `iss`, `aud`, `azp`, `exp` with 60 s leeway, `nonce`).
    async fn exchange(
        &self,
        provider: &Provider,
        redirect_uri: &str,
        code: String,
        verifier: String,
        nonce: String,
    ) -> Result<Claims> {
        let bad = |why: String| refused(SsoReason::Token, why, None);
        let response: CoreTokenResponse = client(provider, provider.metadata()?, redirect_uri)?
            .exchange_code(AuthorizationCode::new(code))
            .map_err(|e| bad(format!("the provider has no token endpoint: {e}")))?
            .set_pkce_verifier(PkceCodeVerifier::new(verifier))
            .request_async(&provider.http)
            .await
            .map_err(|e| bad(format!("the provider did not exchange the code: {e}")))?;
        let token: CoreIdToken = response
            .id_token()
            .cloned()
            .ok_or_else(|| bad("the provider sent no ID token".into()))?;
        let nonce = Nonce::new(nonce);
        let mut retried = false;
        loop {
            let client = client(provider, provider.metadata()?, redirect_uri)?;
            // Other audiences beside this client are allowed when `azp`
            // names this client (checked below: the crate leaves `azp` out).
            let verifier = client
                .id_token_verifier()
                .set_other_audience_verifier_fn(|_| true)
                .set_time_fn(|| chrono::Utc::now() - chrono::Duration::seconds(60));
            match token.claims(&verifier, &nonce) {
                Ok(c) => {
                    let client_id = provider.settings().client_id.as_str();
                    let azp = c.authorized_party().map(|a| a.as_str());
                    if azp.is_some_and(|a| a != client_id)
                        || (c.audiences().len() > 1 && azp.is_none())
                    {
                        return Err(bad(format!(
                            "the ID token's azp {azp:?} is not this client {client_id:?} (with \
                             several audiences, azp must name it)"
                        )));
                    }
                    let names = [
                        c.preferred_username().map(|u| u.as_str().to_string()),
                        c.name()
                            .and_then(|n| n.get(None))
                            .map(|n| n.as_str().to_string()),
                        c.email()
                            .and_then(|e| e.as_str().split('@').next().map(String::from)),
                    ];
                    return Ok(Claims {
                        issuer: c.issuer().as_str().to_string(),
                        subject: c.subject().as_str().to_string(),
                        email: c.email().map(|e| e.as_str().to_string()),
                        email_verified: c.email_verified() == Some(true),
                        names: names.into_iter().flatten().collect(),
                        id_token: token.to_string(),
                    });
                }
                Err(ClaimsVerificationError::SignatureVerification(
                    SignatureVerificationError::NoMatchingKey,
                )) if !retried && provider.refresh_keys().await? => retried = true,
                Err(e) => return Err(bad(format!("the ID token was refused: {e}"))),
            }
        }
    }

    /// Links, signs in or creates by the identity of `claims`, in one
    /// transaction (see the module's doc).
    async fn bind_identity(
        &self,
        provider: &Provider,
        claims: Claims,
        linking: Option<AccountId>,
        invite_hash: Option<String>,
        lifetime: Duration,
    ) -> Result<SsoDone> {
        let subject = Some(claims.subject.as_str());
        // An invitation's workspace is locked as its acceptance locks it.
        let ws: Option<WorkspaceId> = match (&linking, &invite_hash) {
            (None, Some(hash)) => sqlx::query_scalar::<_, String>(
                "SELECT workspace_id FROM invitations WHERE code_hash = $1",
            )
            .bind(hash)
            .fetch_optional(&self.pool)
            .await?
            .map(WorkspaceId::from_db),
            _ => None,
        };
        let mut tx = match &ws {
            Some(ws) => self.write(Lock::Workspace(ws)).await?,
            None => self.write_unlocked().await?,
        };
        let holder: Option<String> = sqlx::query_scalar(
            "SELECT account_id FROM identities WHERE issuer = $1 AND subject = $2",
        )
        .bind(&claims.issuer)
        .bind(&claims.subject)
        .fetch_optional(&mut *tx)
        .await?;
        let holder = holder.map(AccountId::from_db);
        let done = |account: Account, session, outcome| SsoDone {
            account,
            session,
            return_to: String::new(),
            issuer: claims.issuer.clone(),
            subject: claims.subject.clone(),
            outcome,
        };
        if let Some(me) = linking {
            if holder.as_ref().is_some_and(|h| *h != me) {
                return Err(refused(
                    SsoReason::IdentityTaken,
                    "this identity is linked to another account: nothing changed",
                    subject,
                ));
            }
            if holder.is_none() {
                insert_identity(&mut tx, &me, &claims).await?;
            }
            let account = account_of(&mut tx, &me).await?;
            tx.commit().await?;
            return Ok(done(account, None, "linked"));
        }
        if let Some(holder) = holder {
            let account = account_of(&mut tx, &holder).await?;
            let session = open_session(&mut tx, &holder, lifetime, &claims.id_token).await?;
            tx.commit().await?;
            return Ok(done(account, Some(session), "signed_in"));
        }
        if let (Some(hash), Some(ws)) = (&invite_hash, &ws) {
            let sql = format!(
                "UPDATE invitations SET used_at = $2 WHERE code_hash = $1 AND used_at IS NULL \
                 AND revoked_at IS NULL AND expires_at > $2 AND {CREATOR_IS_ADMIN} RETURNING role"
            );
            let role: Option<String> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(hash)
                .bind(now())
                .fetch_optional(&mut *tx)
                .await?;
            let role = role.ok_or_else(|| {
                refused(
                    SsoReason::Invitation,
                    "this invitation is unknown, used, expired or revoked: ask an ADMIN for a \
                     new one",
                    subject,
                )
            })?;
            let account = create_account(&mut tx, &claims).await?;
            let by = Actor::Account(account.id.clone());
            let join = MemberChange::Role {
                role: Role::parse(&role).unwrap_or(Role::Viewer),
                add: true,
                keep_higher: true,
            };
            apply_membership(&mut tx, &by, ws, &account.id, join).await?;
            let session = open_session(&mut tx, &account.id, lifetime, &claims.id_token).await?;
            tx.commit().await?;
            return Ok(done(account, Some(session), "invited"));
        }
        if invite_hash.is_some() {
            return Err(refused(
                SsoReason::Invitation,
                "this invitation is unknown, used, expired or revoked: ask an ADMIN for a new one",
                subject,
            ));
        }
        if provider.settings().link_verified_email {
            if let Some(account) = verified_owner(&mut tx, &claims).await? {
                insert_identity(&mut tx, &account, &claims).await?;
                let account = account_of(&mut tx, &account).await?;
                let session =
                    open_session(&mut tx, &account.id, lifetime, &claims.id_token).await?;
                tx.commit().await?;
                return Ok(done(account, Some(session), "linked_by_email"));
            }
        }
        if provider.settings().create_accounts {
            let account = create_account(&mut tx, &claims).await?;
            let session = open_session(&mut tx, &account.id, lifetime, &claims.id_token).await?;
            tx.commit().await?;
            return Ok(done(account, Some(session), "created"));
        }
        Err(refused(
            SsoReason::NoAccount,
            "no account is linked to this identity: ask an ADMIN of your workspace for an \
             invitation",
            subject,
        ))
    }
}

/// The one account whose verified address is the verified address of
/// `claims` (none when the token does not say it is verified, or when no
/// account or several have it).
async fn verified_owner(tx: &mut WriteTx, claims: &Claims) -> Result<Option<AccountId>> {
    let Some(email) = claims.email.as_deref().filter(|_| claims.email_verified) else {
        return Ok(None);
    };
    let Ok(email) = crate::mail::address::Email::parse(email) else {
        return Ok(None);
    };
    let owners: Vec<String> = sqlx::query_scalar(
        "SELECT id FROM accounts WHERE email_key = $1 AND email_verified_at IS NOT NULL LIMIT 2",
    )
    .bind(email.key())
    .fetch_all(&mut **tx)
    .await?;
    Ok(match <[String; 1]>::try_from(owners) {
        Ok([one]) => Some(AccountId::from_db(one)),
        Err(_) => None,
    })
}

/// Links the identity of `claims` to `account` in `tx` (a unique violation:
/// another sign-in linked it first, `IDENTITY_TAKEN`).
async fn insert_identity(tx: &mut WriteTx, account: &AccountId, claims: &Claims) -> Result<()> {
    sqlx::query(
        "INSERT INTO identities (id, account_id, issuer, subject, email, linked_at) \
         VALUES ($1, $2, $3, $4, $5, $6)",
    )
    .bind(cuid2::create_id())
    .bind(account)
    .bind(&claims.issuer)
    .bind(&claims.subject)
    .bind(&claims.email)
    .bind(now())
    .execute(&mut **tx)
    .await
    .map_err(|e| {
        let e = Error::from(e);
        match is_unique_violation(&e) {
            true => refused(
                SsoReason::IdentityTaken,
                "this identity was linked to another account meanwhile: nothing changed",
                Some(&claims.subject),
            ),
            false => e,
        }
    })?;
    Ok(())
}

async fn account_of(tx: &mut WriteTx, id: &AccountId) -> Result<Account> {
    let name: String = sqlx::query_scalar("SELECT name FROM accounts WHERE id = $1")
        .bind(id)
        .fetch_one(&mut **tx)
        .await?;
    Ok(Account {
        id: id.clone(),
        name,
    })
}

/// A session for `account`, keeping the ID token for the provider's sign-out.
async fn open_session(
    tx: &mut WriteTx,
    account: &AccountId,
    lifetime: Duration,
    id_token: &str,
) -> Result<crate::access::IssuedToken> {
    let session = issue_token(tx, account, Some(lifetime), TokenKind::Session, None).await?;
    sqlx::query("UPDATE tokens SET id_token = $2 WHERE id = $1")
        .bind(&session.id)
        .bind(id_token)
        .execute(&mut **tx)
        .await?;
    Ok(session)
}

/// A new account (no password) for the identity of `claims`, linked to it:
/// named from `preferred_username`, else `name`, else the e-mail's local
/// part (the first that makes a valid name; else `user`), made unique by
/// adding ` 2`, ` 3`…
async fn create_account(tx: &mut WriteTx, claims: &Claims) -> Result<Account> {
    let base = claims
        .names
        .iter()
        .filter_map(|n| {
            let cut: String = n.trim().chars().take(MAX_NAME_CHARS - 6).collect();
            Name::parse(cut.trim()).ok()
        })
        .find(|n| check_account_name(n.as_str()).is_ok())
        .map_or_else(|| "user".to_string(), |n| n.as_str().to_string());
    let key = name_key(&base);
    let taken: Vec<String> = sqlx::query_scalar(
        "SELECT name_key FROM accounts WHERE substr(name_key, 1, CAST($2 AS INTEGER)) = $1",
    )
    .bind(&key)
    .bind(key.chars().count() as i64)
    .fetch_all(&mut **tx)
    .await?;
    let name = (1..)
        .map(|n| match n {
            1 => base.clone(),
            n => format!("{base} {n}"),
        })
        .find(|candidate| !taken.contains(&name_key(candidate)))
        .expect("some number is free");
    let account = Account {
        id: AccountId::new(),
        name,
    };
    insert_account(tx, &account)
        .await
        .map_err(|e| match is_unique_violation(&e) {
            true => Error::Conflict(
                "another account took this name at the same moment: sign in again".into(),
            ),
            false => e,
        })?;
    insert_identity(tx, &account.id, claims).await?;
    Ok(account)
}
