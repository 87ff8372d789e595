//! Signing in and out, and "who am I" (api.md §23): `POST|DELETE
//! /api/session`, `GET /api/me`. The session token travels only in the
//! `board_session` cookie, never in a body.

use board_core::{Error, Input, SignIn};
use serde::Serialize;
use warp::http::header::SET_COOKIE;
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;

use super::{json, Answer, Request};
use crate::auth::SESSION_COOKIE;

/// The body of a sign-in's answer.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Session {
    /// The account signed in.
    pub account: SessionAccount,
    /// When the session ends.
    pub expires_at: Option<String>,
}

/// The account of a [`Session`].
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct SessionAccount {
    /// Its id.
    pub id: String,
    /// Its name.
    pub name: String,
}

/// `Set-Cookie` for the session cookie: `value` for `max_age` seconds (0
/// clears it), `HttpOnly; SameSite=Lax; Path=/`, and `Secure` with
/// `--secure-cookies`.
pub(super) fn set_cookie(response: &mut Response, req: &Request, value: &str, max_age: u64) {
    let secure = if req.app.config.secure_cookies {
        "; Secure"
    } else {
        ""
    };
    let cookie = format!(
        "{SESSION_COOKIE}={value}; HttpOnly; SameSite=Lax; Path=/; Max-Age={max_age}{secure}"
    );
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(SET_COOKIE, v);
    }
}

#[utoipa::path(
    post, path = "/api/session", operation_id = "signIn", tag = "session",
    request_body = board_core::SignIn,
    security(()),
    responses(
        (status = 200, description = "Signed in: the session is the board_session cookie (Set-Cookie), never in the body", body = Session),
        (status = 401, description = "BAD_CREDENTIALS: an unknown name, a wrong password or an account without one (one answer for all)", body = crate::error::ErrorBody),
        (status = 403, description = "CROSS_ORIGIN: a sign-in from a foreign origin; PASSWORD_SIGN_IN_DISABLED: this server signs in only through its provider", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
        (status = 429, description = "TOO_MANY_ATTEMPTS: too many failures for this account from this address, or from this address; retry after Retry-After", body = crate::error::ErrorBody),
        (status = 503, description = "BUSY: every password hasher stayed busy for 5 s", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn sign_in(mut req: Request) -> Answer {
    if !req.app.config.password_sign_in() {
        return Err(Error::PasswordSignInDisabled.into());
    }
    let bytes = req.json_body().await?;
    let address = req.client_address();
    let input = Input::<SignIn>::from_body(&bytes).open()?;
    // Logged quoted and escaped (`?`), cut to an account name's length: no
    // name or header a client sends can start a log line of its own.
    let name = board_core::shown_name(&input.name);
    let lifetime = req.app.config.session_lifetime;
    let signed = match req.board().sign_in(input, &address, lifetime).await {
        Ok(signed) => signed,
        Err(e) => {
            if matches!(e, Error::BadCredentials | Error::TooManyAttempts(_)) {
                tracing::info!(account = ?name, address = ?address, outcome = e.code(), "sign-in refused");
            }
            return Err(e.into());
        }
    };
    tracing::info!(account = ?name, address = ?address, "signed in");
    let body = Session {
        account: SessionAccount {
            id: signed.account.id.to_string(),
            name: signed.account.name.clone(),
        },
        expires_at: signed.session.expires_at.as_ref().map(|t| t.to_string()),
    };
    let mut response = json(StatusCode::OK, &body);
    set_cookie(
        &mut response,
        &req,
        &signed.session.token,
        lifetime.as_secs(),
    );
    Ok(response)
}

/// The answer of a sign-out.
#[derive(Debug, Serialize, utoipa::ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignedOut {
    /// Always `true`.
    pub deleted: bool,
    /// For a session opened through single sign-on (api.md §27), when the
    /// provider names a sign-out endpoint: that page, with `id_token_hint`
    /// and `post_logout_redirect_uri` (the board's public URL and `/`); the UI
    /// goes there.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub logout_url: Option<String>,
}

#[utoipa::path(
    delete, path = "/api/session", operation_id = "signOut", tag = "session",
    responses(
        (status = 200, description = "Signed out: the session is revoked and its cookie cleared (Max-Age=0); logoutUrl: the provider's sign-out, for a session made through it", body = SignedOut),
        (status = 404, description = "The request was authenticated by a personal token, not a session", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn sign_out(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id_token = req.board().sign_out(&actor).await?;
    let logout_url = match (id_token, &req.app.sso) {
        (Some(token), Some(provider)) => provider.logout_url(&token, &req.public_url()),
        _ => None,
    };
    let mut response = json(
        StatusCode::OK,
        &SignedOut {
            deleted: true,
            logout_url,
        },
    );
    set_cookie(&mut response, &req, "", 0);
    Ok(response)
}

#[utoipa::path(
    get, path = "/api/me", operation_id = "me", tag = "session",
    responses(
        (status = 200, description = "The account, whether it has a password, its workspaces with its role and their projects, by name, and its single sign-on identities", body = board_core::Me),
    ),
)]
pub(super) async fn me(req: Request) -> Answer {
    let actor = req.actor().await?;
    let me = req.board().me(&actor).await?;
    Ok(json(StatusCode::OK, &me))
}

/// The body of `PATCH /api/me` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct MePatchBody {
    /// A new name, unique among accounts.
    name: Option<String>,
    /// A new password.
    password: Option<PasswordChangeBody>,
    /// A new e-mail address (null removes it): unverified, sent a
    /// verification link. 422 MAIL_DISABLED when the server sends no mail.
    email: Option<String>,
}

/// A password change (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct PasswordChangeBody {
    /// The password the account has now (not needed by an account without one).
    current: Option<String>,
    /// The new password: 8 to 1,000 characters, strong enough (zxcvbn 3 of 4), without the account's name.
    new: String,
}

#[utoipa::path(
    patch, path = "/api/me", operation_id = "updateMe", tag = "session",
    request_body(content = inline(MePatchBody), description = "A new name, a new password, a new e-mail address"),
    responses(
        (status = 200, description = "The account as GET /api/me shows it; a new password ended its other sessions", body = board_core::Me),
        (status = 409, description = "NAME_TAKEN: another account has that name", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, WEAK_PASSWORD, WRONG_PASSWORD: the current password is not right, or MAIL_DISABLED: an email while the server sends no mail", body = crate::error::ErrorBody),
        (status = 429, description = "TOO_MANY_ATTEMPTS: too many wrong passwords from this address; retry after Retry-After", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch_me(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let address = req.client_address();
    let me = req
        .board()
        .update_me(&actor, Input::from_body(&bytes), &address)
        .await?;
    Ok(json(StatusCode::OK, &me))
}

#[utoipa::path(
    post, path = "/api/email/verify", operation_id = "verifyEmail", tag = "session",
    request_body(content = board_core::VerifyInput, description = "The code after `#` in the link `<public URL>/verify#<code>`"),
    security(()),
    responses(
        (status = 200, description = "The address the code was sent to is verified", body = board_core::Verified),
        (status = 403, description = "CROSS_ORIGIN: from a foreign origin", body = crate::error::ErrorBody),
        (status = 404, description = "The code is unknown, used or expired, or the account has another address now", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn verify_email(mut req: Request) -> Answer {
    let bytes = req.json_body().await?;
    let done = req.board().verify_email(Input::from_body(&bytes)).await?;
    Ok(json(StatusCode::OK, &done))
}

#[utoipa::path(
    get, path = "/api/me/notifications", operation_id = "mailPreferences", tag = "notifications",
    responses(
        (status = 200, description = "Which kinds of notification the caller wants by e-mail, and how long they gather (the inbox gets every kind)", body = board_core::MailPreferences),
        (status = 403, description = "The operator has no account", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn mail_preferences(req: Request) -> Answer {
    let actor = req.actor().await?;
    let prefs = req.board().mail_preferences(&actor).await?;
    Ok(json(StatusCode::OK, &prefs))
}

#[utoipa::path(
    patch, path = "/api/me/notifications", operation_id = "updateMailPreferences", tag = "notifications",
    request_body(content = inline(PreferencesBody), description = "The parts to change"),
    responses(
        (status = 200, description = "The preferences, all of them", body = board_core::MailPreferences),
        (status = 403, description = "The operator has no account", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch_mail_preferences(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let bytes = req.json_body().await?;
    let prefs = req
        .board()
        .update_mail_preferences(&actor, Input::from_body(&bytes))
        .await?;
    Ok(json(StatusCode::OK, &prefs))
}

/// The body of `PATCH /api/me/notifications` (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
#[schema(rename_all = "camelCase")]
struct PreferencesBody {
    /// Per kind, whether it is e-mailed.
    email: Option<KindsBody>,
    /// How long notifications gather before one message: 0 (at once) to 1440.
    #[schema(minimum = 0, maximum = 1440)]
    batch_minutes: Option<i64>,
}

/// The kinds of a [`PreferencesBody`] (a schema only).
#[derive(utoipa::ToSchema)]
#[allow(dead_code)]
struct KindsBody {
    assigned: Option<bool>,
    mentioned: Option<bool>,
    commented: Option<bool>,
    moved: Option<bool>,
    due_soon: Option<bool>,
}
