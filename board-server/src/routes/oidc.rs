//! Single sign-on (api.md §27): `GET /api/auth` (what the sign-in page
//! offers), `GET /api/auth/oidc/start` and `…/callback` (the code flow, as
//! redirects), `DELETE /api/me/identities/[id]`.
//!
//! A callback never answers with an error body: a success goes to its
//! `return` path with the session cookie, a refusal to `/?sso=CODE`, which the
//! sign-in page shows in role `alert` (`/account?sso=CODE` for a browser signed
//! in already: the account page shows it). Both clear the `board_oidc` cookie and
//! are logged at info with the issuer, the subject (when known) and the
//! outcome; never a code, a token or a secret.

use std::collections::HashMap;

use board_core::{Error, SsoCallback, SsoStart};
use serde::Serialize;
use warp::http::header::{LOCATION, SET_COOKIE};
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;
use warp::Reply;

use super::session::set_cookie;
use super::{json, Answer, Request};

/// The cookie that binds a sign-in under way to its browser.
pub const OIDC_COOKIE: &str = "board_oidc";

/// What the sign-in page offers (`GET /api/auth`).
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AuthOffer {
    /// Whether password sign-in is on.
    pub password: bool,
    /// Whether the server sends e-mail.
    pub mail: bool,
    /// The single sign-on provider, when one is configured.
    pub oidc: Option<OidcOffer>,
}

/// The single sign-on of an [`AuthOffer`].
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct OidcOffer {
    /// The button's words: "Sign in with <name>".
    pub name: String,
}

#[utoipa::path(
    get, path = "/api/auth", operation_id = "authOptions", tag = "session",
    security(()),
    responses(
        (status = 200, description = "How one can sign in here: with a password, by e-mail, through the single sign-on provider", body = AuthOffer),
    ),
)]
pub(super) async fn auth(req: Request) -> Answer {
    let config = &req.app.config;
    let body = AuthOffer {
        password: config.password_sign_in(),
        mail: req.board().mail_on(),
        oidc: req.app.sso.as_ref().map(|p| OidcOffer {
            name: p.name().to_string(),
        }),
    };
    Ok(json(StatusCode::OK, &body))
}

/// The provider, or 404 when single sign-on is not set up.
fn provider(req: &Request) -> Result<std::sync::Arc<board_core::Provider>, Error> {
    req.app
        .sso
        .clone()
        .ok_or(Error::NotFound("single sign-on provider"))
}

/// `<public URL>/api/auth/oidc/callback`.
fn redirect_uri(req: &Request) -> String {
    format!("{}/api/auth/oidc/callback", req.public_url())
}

/// A 302 to `location`.
fn found(location: &str) -> Response {
    let mut response = warp::reply::with_status(warp::reply(), StatusCode::FOUND).into_response();
    if let Ok(v) = HeaderValue::from_str(location) {
        response.headers_mut().insert(LOCATION, v);
    }
    response
}

/// `Set-Cookie` for `board_oidc`: `value` for `max_age` seconds (0 clears
/// it), `HttpOnly; SameSite=Lax`, only for the callback's path.
fn set_oidc_cookie(response: &mut Response, req: &Request, value: &str, max_age: u64) {
    let secure = match req.app.config.secure_cookies {
        true => "; Secure",
        false => "",
    };
    let cookie = format!(
        "{OIDC_COOKIE}={value}; HttpOnly; SameSite=Lax; Path=/api/auth/oidc; Max-Age={max_age}{secure}"
    );
    if let Ok(v) = HeaderValue::from_str(&cookie) {
        response.headers_mut().append(SET_COOKIE, v);
    }
}

/// The query of a start (a schema only).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct StartParams {
    /// The path to return to after signing in (a path of this site; anything else is `/`).
    #[param(rename = "return")]
    return_to: Option<String>,
    /// An invitation's code: a new person's account is made from it.
    invite: Option<String>,
    /// `true`: link the identity to the account signed in in this browser.
    link: Option<bool>,
}

#[utoipa::path(
    get, path = "/api/auth/oidc/start", operation_id = "ssoStart", tag = "session",
    security(()),
    params(StartParams),
    responses(
        (status = 302, description = "To the provider's authorization endpoint (code flow, state, nonce, PKCE S256), with the board_oidc cookie (10 minutes)"),
        (status = 404, description = "No single sign-on provider is set up", body = crate::error::ErrorBody),
        (status = 503, description = "PROVIDER_UNAVAILABLE: the provider could not be reached yet; password sign-in works (a browser's page load, Accept: text/html, gets 302 to /?sso=PROVIDER_UNAVAILABLE instead, which the sign-in page shows)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn start(req: Request) -> Answer {
    let provider = provider(&req)?;
    let q: HashMap<String, String> = req.query();
    let get = |k: &str| q.get(k).map(String::as_str);
    let start = SsoStart::new(get("return"), get("invite"), get("link"));
    let started = match req
        .board()
        .sso_start(&provider, start, &redirect_uri(&req))
        .await
    {
        Ok(started) => started,
        // A person who pressed "Sign in with …" sees the sign-in page say
        // why, not the error's JSON; an API client gets the 503.
        Err(e @ Error::ProviderUnavailable(_)) if wants_html(&req) => {
            tracing::info!(error = %e, "single sign-on start: the provider is unavailable");
            return Ok(found(&format!("/?sso={}", e.code())));
        }
        Err(e) => return Err(e.into()),
    };
    let mut response = found(&started.location);
    let age = board_core::SSO_STATE_LIFETIME.as_secs();
    set_oidc_cookie(&mut response, &req, &started.state, age);
    Ok(response)
}

/// Whether the request is a browser's page load (`Accept` names HTML).
fn wants_html(req: &Request) -> bool {
    req.headers()
        .get(warp::http::header::ACCEPT)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.contains("text/html"))
}

/// The query of a callback (a schema only).
#[derive(utoipa::IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
struct CallbackParams {
    /// The authorization code.
    code: Option<String>,
    /// The state the start sent.
    state: Option<String>,
    /// The provider's error, instead of a code.
    error: Option<String>,
}

#[utoipa::path(
    get, path = "/api/auth/oidc/callback", operation_id = "ssoCallback", tag = "session",
    security(()),
    params(CallbackParams),
    responses(
        (status = 302, description = "Signed in (the board_session cookie) or linked: to the start's return path. Refused: to /?sso=CODE (SSO_STATE, SSO_PROVIDER_ERROR, SSO_TOKEN, IDENTITY_TAKEN, NO_ACCOUNT, SSO_INVITATION, PROVIDER_UNAVAILABLE), which the sign-in page shows"),
        (status = 404, description = "No single sign-on provider is set up", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn callback(req: Request) -> Answer {
    let provider = provider(&req)?;
    let q: HashMap<String, String> = req.query();
    let callback = SsoCallback {
        code: q.get("code").cloned(),
        state: q.get("state").cloned(),
        error: q.get("error").cloned(),
    };
    // A session cookie that no longer checks out is no session: the
    // sign-in goes on without it.
    let actor = req.actor_if_any().await.ok().flatten();
    let cookie = crate::auth::cookie(req.headers(), OIDC_COOKIE).map(str::to_string);
    let lifetime = req.app.config.session_lifetime;
    let issuer = &provider.settings().issuer;
    let address = req.client_address();
    let outcome = req
        .board()
        .sso_callback(
            &provider,
            actor.as_ref(),
            cookie.as_deref(),
            callback,
            &redirect_uri(&req),
            lifetime,
        )
        .await;
    let mut response = match outcome {
        Ok(done) => {
            tracing::info!(issuer = ?done.issuer, subject = ?done.subject, account = ?done.account.name,
                address = ?address, outcome = done.outcome, "single sign-on");
            let mut response = found(&done.return_to);
            if let Some(session) = &done.session {
                set_cookie(&mut response, &req, &session.token, lifetime.as_secs());
            }
            response
        }
        Err(e) => {
            let subject = match &e {
                Error::SsoRefused(_, _, subject) => subject.clone(),
                _ => None,
            };
            match e.code() {
                "INTERNAL" => {
                    tracing::error!(issuer = ?issuer, error = %e, "single sign-on failed")
                }
                code => tracing::info!(issuer = ?issuer, subject = ?subject, address = ?address,
                    reason = code, message = %e, "single sign-on refused"),
            }
            // Every refusal lands on `/` (a link refused too: the UI takes a
            // signed-in person on to the account page, which shows why).
            found(&format!("/?sso={}", e.code()))
        }
    };
    set_oidc_cookie(&mut response, &req, "", 0);
    Ok(response)
}

#[utoipa::path(
    delete, path = "/api/me/identities/{id}", operation_id = "unlinkIdentity", tag = "session",
    params(("id" = String, Path, description = "One of the account's identities")),
    responses(
        (status = 200, description = "Unlinked", body = super::Deleted),
        (status = 404, description = "No such identity of this account", body = crate::error::ErrorBody),
        (status = 422, description = "LAST_SIGN_IN_METHOD: the account has no password and no other identity", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn unlink(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board().unlink_identity(&actor, req.param()).await?;
    Ok(super::deleted())
}
