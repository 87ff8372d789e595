//! Routes: the route table ([`table`]) and one file per resource holding its
//! handlers. A route is declared once: the `#[utoipa::path]` attribute on its
//! handler gives its method, path template and documentation, and one line of
//! the `route_table!` list below serves it. Every handler authenticates,
//! calls one core operation and maps its result.
//!
//! From that one line come: the router (`Table`, `table.rs`, matches the path once, picks the
//! method's handler, answers 404 `NOT_FOUND` or 405 `METHOD_NOT_ALLOWED` with `Allow`); the
//! OpenAPI document (each declaration's one-operation document, merged, then
//! `openapi::finish`); the `Allow` of a 405 and of a plain `OPTIONS`, and a preflight's
//! methods; and the metrics label and the log's route, since the reply carries its
//! `RouteTemplate`, so nothing matches the path a second time. `tests/e2e/openapi.rs`
//! compares the document with the contract's routes and probes every method of every path.
//!
//! A handler takes one [`Request`]: the path parameter, read as a typed id by `path_id`
//! (a malformed id is a 404), and the query, headers, credential and body, each read on
//! demand. Something parsed before a fused read reports its error only after the credential
//! is checked (`Request::after_credential`), so 401 still comes first.

mod activity;
mod attachments;
mod cards;
mod checklist;
mod columns;
mod comments;
mod docs;
mod events;
mod files;
mod flow;
mod health;
mod imports;
mod invitations;
mod labels;
mod mail;
mod markdown;
mod members;
mod notifications;
mod oidc;
mod projects;
mod relations;
mod search;
mod session;
mod settings;
mod table;
mod tokens;
mod webhooks;

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};

use board_core::{Actor, Bearer, Board};
use futures_util::{Stream, StreamExt, TryStreamExt};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use warp::http::{HeaderMap, Method, StatusCode};
use warp::hyper::body::Bytes;
use warp::reply::Response;
use warp::{Buf, Filter, Reply};

use crate::auth::Credentials;
use crate::config::Config;
use crate::error::ApiError;

pub use table::{table, Route, RouteTemplate, Table};

/// What every handler shares.
#[derive(Debug)]
pub struct App {
    /// The core handle.
    pub board: Board,
    /// The configuration the server started with.
    pub config: Config,
    /// Request counters and latencies, for `GET /metrics`.
    pub metrics: Arc<crate::metrics::Metrics>,
    /// The places for open event streams (`--max-event-streams`).
    pub streams: Arc<tokio::sync::Semaphore>,
    /// Becomes `true` when the server starts shutting down: event streams end.
    pub closing: tokio::sync::watch::Receiver<bool>,
    /// The OpenID provider (api.md §27), when configured.
    pub sso: Option<Arc<board_core::Provider>>,
}

/// The shared application state.
pub type Shared = Arc<App>;

/// A request body, read by the handler only after its access checks.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, warp::Error>> + Send>>;

/// What a handler returns: the reply, or the error that becomes the JSON
/// error reply.
pub type Answer = Result<Response, ApiError>;

/// A handler's future.
pub type HandlerFuture = Pin<Box<dyn Future<Output = Answer> + Send>>;

/// A handler: takes the matched request, answers. It never falls through to
/// another route.
pub type Handler = fn(Request) -> HandlerFuture;

/// The largest JSON body a route reads.
pub const JSON_LIMIT: usize = 1 << 20;

/// A request matched to its route: the shared state, the path parameter,
/// the query, the headers, and the body still unread.
pub struct Request {
    /// The shared state.
    pub app: Shared,
    param: String,
    query: Option<String>,
    headers: HeaderMap,
    /// The connection's peer (none under `warp::test`).
    peer: Option<std::net::SocketAddr>,
    /// In a mutex only to make the request `Sync` (handlers hold `&Request`
    /// across awaits); it is never locked: the body is read through `&mut`.
    body: Mutex<BodyStream>,
}

impl Request {
    /// The client's address: the connection's peer, or behind a trusted
    /// proxy the address it appended to `X-Forwarded-For` (see
    /// [`crate::proxy`]); `unknown` when neither is known.
    pub fn client_address(&self) -> String {
        let peer = self.peer.map(|p| p.ip());
        match self.app.config.trust().client(peer, &self.headers) {
            Some(ip) => ip.to_string(),
            None => "unknown".to_string(),
        }
    }

    /// The route's path parameter (`{id}`, `{storedName}`), as sent; empty on
    /// a route without one.
    pub fn param(&self) -> &str {
        &self.param
    }

    /// The route's path parameter as a typed id: a malformed one is "not
    /// found", like an unknown one (api.md §3).
    pub fn path_id<T: PathId>(&self) -> Result<T, ApiError> {
        T::parse(&self.param).ok_or(ApiError::Core(board_core::Error::NotFound(T::WHAT)))
    }

    /// The route's two path parameters (`/api/cards/{id}/labels/{labelId}`)
    /// as typed ids: a malformed one is "not found", the first checked first.
    pub fn path_ids<A: PathId, B: PathId>(&self) -> Result<(A, B), ApiError> {
        let (a, b) = self.param.split_once('/').unwrap_or((&self.param, ""));
        let a = A::parse(a).ok_or(ApiError::Core(board_core::Error::NotFound(A::WHAT)))?;
        let b = B::parse(b).ok_or(ApiError::Core(board_core::Error::NotFound(B::WHAT)))?;
        Ok((a, b))
    }

    /// The board.
    pub fn board(&self) -> &Board {
        &self.app.board
    }

    /// The actor behind the request's credential: 401 comes before every
    /// other check.
    pub async fn actor(&self) -> Result<Actor, ApiError> {
        Ok(Credentials::from_headers(&self.headers)
            .actor(&self.app.board)
            .await?)
    }

    /// The actor behind the request's credential, or `None` when it carries
    /// none (a credential that does not check out is still 401).
    pub async fn actor_if_any(&self) -> Result<Option<Actor>, ApiError> {
        let has = self.headers.contains_key(warp::http::header::AUTHORIZATION)
            || crate::auth::session_cookie(&self.headers).is_some();
        match has {
            true => Ok(Some(self.actor().await?)),
            false => Ok(None),
        }
    }

    /// The installation's public URL (`--public-url`), else the request's
    /// origin: `http://` and its `Host` (`https://` when a trusted proxy
    /// says `X-Forwarded-Proto: https`).
    pub fn public_url(&self) -> String {
        if let Some(url) = &self.app.config.public_url {
            return url.trim_end_matches('/').to_string();
        }
        let header = |name: &str| self.headers.get(name).and_then(|v| v.to_str().ok());
        let trusted = self.app.config.trust().believes(self.peer.map(|p| p.ip()));
        let https = trusted && header("x-forwarded-proto") == Some("https");
        let scheme = if https { "https" } else { "http" };
        format!("{scheme}://{}", header("host").unwrap_or("localhost"))
    }

    /// The request's bearer token, parsed, not yet checked: a fused read (or
    /// a new comment) of board-core checks it in its first statement (a
    /// malformed or missing one is 401 here, before anything else).
    pub fn bearer(&self) -> Result<Bearer, ApiError> {
        Ok(Credentials::from_headers(&self.headers).bearer()?)
    }

    /// `parsed` (a path id, query or body a fused operation parsed before its
    /// credential was checked); an error only once the credential is checked,
    /// so that 401 still comes before every other answer (404, 403, 422).
    pub async fn after_credential<T>(&self, parsed: Result<T, ApiError>) -> Result<T, ApiError> {
        if parsed.is_err() {
            self.actor().await?;
        }
        parsed
    }

    /// The query string as the route's parameters (an absent or unreadable
    /// query gives the defaults: every parameter absent). Each parameter is
    /// text here; board-core parses it into its typed input with the
    /// contract's outcome for a missing or malformed value.
    pub fn query<T: DeserializeOwned + Default>(&self) -> T {
        // Through a map: a repeated parameter's last value wins.
        self.query
            .as_deref()
            .and_then(|q| serde_urlencoded::from_str::<HashMap<String, String>>(q).ok())
            .and_then(|map| serde_json::to_value(map).ok())
            .and_then(|value| serde_json::from_value(value).ok())
            .unwrap_or_default()
    }

    /// The request headers.
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The `If-None-Match` condition (api.md §22; every header of the name).
    pub fn if_none_match(&self) -> board_core::IfNoneMatch {
        board_core::IfNoneMatch::parse(self.header_values("if-none-match"))
    }

    /// The `If-Match` condition (api.md §22; every header of the name).
    pub fn if_match(&self) -> board_core::IfMatch {
        board_core::IfMatch::parse(self.header_values("if-match"))
    }

    /// Every value of the header `name`, as bytes: an unreadable one is the
    /// condition's to judge, never dropped here.
    fn header_values(&self, name: &str) -> Vec<&[u8]> {
        self.headers
            .get_all(name)
            .iter()
            .map(|v| v.as_bytes())
            .collect()
    }

    /// Reads a JSON route's body, refusing more than [`JSON_LIMIT`] bytes
    /// with 413, and a body not sent as JSON with 415 (see [`json_media`]).
    pub async fn json_body(&mut self) -> Result<Vec<u8>, ApiError> {
        let declared = json_media(&self.headers)?;
        let mut out = Vec::new();
        let body = self.body.get_mut().unwrap_or_else(|e| e.into_inner());
        while let Some(chunk) = body.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::Http(
                    StatusCode::BAD_REQUEST,
                    "BAD_REQUEST",
                    format!("unreadable body: {e}"),
                )
            })?;
            if out.len() + chunk.len() > JSON_LIMIT {
                return Err(ApiError::Http(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "PAYLOAD_TOO_LARGE",
                    format!("a JSON body is at most {JSON_LIMIT} bytes"),
                ));
            }
            out.extend_from_slice(&chunk);
        }
        if !declared && !out.is_empty() {
            return Err(not_json("no Content-Type"));
        }
        Ok(out)
    }

    /// The body as a `multipart/form-data` stream, still unread (empty when
    /// the request is not multipart).
    pub fn multipart(self) -> (Request, attachments::Multipart) {
        let Request {
            app,
            param,
            query,
            headers,
            peer,
            body,
        } = self;
        let body = body.into_inner().unwrap_or_else(|e| e.into_inner());
        let form = attachments::Multipart::new(&headers, body);
        let rest = Request {
            app,
            param,
            query,
            headers,
            peer,
            body: Mutex::new(Box::pin(futures_util::stream::empty())),
        };
        (rest, form)
    }
}

/// Whether a JSON route's body is declared JSON: `Content-Type:
/// application/json` (parameters allowed) or a `+json` type is; no
/// `Content-Type` at all is `false` (only an empty body passes then). Any
/// other type is 415 `UNSUPPORTED_MEDIA_TYPE` before the body is read: a page
/// on another site can post `text/plain` (or a form) without a preflight, and
/// such a request must never reach a JSON route's handler.
fn json_media(headers: &HeaderMap) -> Result<bool, ApiError> {
    let mut types = headers.get_all(warp::http::header::CONTENT_TYPE).iter();
    let (Some(value), None) = (types.next(), types.next()) else {
        return match headers.contains_key(warp::http::header::CONTENT_TYPE) {
            true => Err(not_json("several Content-Type headers")),
            false => Ok(false),
        };
    };
    let text = value.to_str().unwrap_or("");
    let essence = text.split(';').next().unwrap_or("").trim();
    let essence = essence.to_ascii_lowercase();
    let json = match essence.split_once('/') {
        Some(("application", "json")) => true,
        Some((kind, sub)) => {
            let token = |t: &str| !t.is_empty() && t.bytes().all(|b| b.is_ascii_graphic());
            token(kind) && sub.strip_suffix("+json").is_some_and(token)
        }
        None => false,
    };
    match json {
        true => Ok(true),
        false => Err(not_json(&format!("Content-Type {text:?}"))),
    }
}

/// 415 `UNSUPPORTED_MEDIA_TYPE` for a JSON route's body sent as `what`.
fn not_json(what: &str) -> ApiError {
    ApiError::Http(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "UNSUPPORTED_MEDIA_TYPE",
        format!("this route reads a JSON body, sent with {what}: send it with Content-Type: application/json"),
    )
}

/// The query of the routes that read a column set: `tenant` and `project`.
#[derive(Debug, Default, Deserialize)]
pub struct SetParams {
    /// The workspace.
    pub tenant: Option<String>,
    /// A project of it.
    pub project: Option<String>,
}

/// A JSON reply with a status.
pub fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    warp::reply::with_status(warp::reply::json(value), status).into_response()
}

/// The reply of a conditional read (api.md §22): `304 Not Modified` with
/// the tag and no body, or `200` with the payload and its tag.
pub fn tagged<T: Serialize>(read: board_core::Conditional<T>) -> Response {
    let tag = read.tag().clone();
    let mut reply = match read {
        board_core::Conditional::NotModified(_) => {
            warp::reply::with_status(warp::reply(), StatusCode::NOT_MODIFIED).into_response()
        }
        board_core::Conditional::Modified(_, payload) => json(StatusCode::OK, &payload),
    };
    if let Ok(value) = warp::http::HeaderValue::from_str(tag.as_str()) {
        reply.headers_mut().insert(warp::http::header::ETAG, value);
    }
    reply
}

/// A write's answer with the tag a read of it would now carry (api.md §22).
pub fn saved<T: Serialize>(status: StatusCode, saved: board_core::Saved<T>) -> Response {
    let mut reply = json(status, &saved.value);
    if let Ok(value) = warp::http::HeaderValue::from_str(saved.tag.as_str()) {
        reply.headers_mut().insert(warp::http::header::ETAG, value);
    }
    reply
}

/// The reply of every DELETE route: `{"deleted": true}`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Deleted {
    /// Always `true`.
    pub deleted: bool,
}

/// `{"deleted": true}`, with status 200.
pub fn deleted() -> Response {
    json(StatusCode::OK, &Deleted { deleted: true })
}

fn boxed_body<S, B>(s: S) -> BodyStream
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf,
{
    Box::pin(s.map_ok(|mut b| b.copy_to_bytes(b.remaining())))
}

/// Declares the route table: for each handler, a one-route OpenAPI document
/// derived from its `#[utoipa::path]` (its method, template, operation and
/// schemas), paired with the handler.
macro_rules! route_table {
    ($($($segment:ident)::+),* $(,)?) => {
        /// The routes as declared, in the table's order.
        fn declared() -> Vec<Route> {
            vec![$({
                #[derive(utoipa::OpenApi)]
                #[openapi(paths($($segment)::+))]
                struct One;
                Route::new(
                    <One as utoipa::OpenApi>::openapi(),
                    |req: Request| -> HandlerFuture { Box::pin($($segment)::+(req)) },
                )
            }),*]
        }
    };
}

// The route table: one line per route. The handler's `#[utoipa::path]`
// declares its method and path template; from this list come the router, the
// OpenAPI document, the `Allow` of a 405 and the metrics label.
route_table! {
    health::health,
    health::health_head,
    health::metrics,
    docs::openapi,
    settings::get,
    settings::patch,
    columns::list,
    columns::create,
    columns::reorder,
    columns::update,
    columns::delete,
    cards::list,
    cards::create,
    cards::get,
    cards::patch,
    cards::delete,
    cards::history,
    activity::card,
    activity::feed,
    cards::archive,
    cards::restore,
    cards::board,
    cards::put_label,
    cards::delete_label,
    cards::put_assignee,
    cards::delete_assignee,
    notifications::put_watch,
    notifications::delete_watch,
    notifications::list,
    notifications::count,
    notifications::read,
    labels::list,
    labels::create,
    labels::patch,
    labels::delete,
    checklist::list,
    checklist::create,
    checklist::patch,
    checklist::delete,
    flow::get,
    search::get,
    markdown::render,
    comments::list,
    comments::create,
    comments::patch,
    comments::delete,
    comments::upload,
    attachments::list,
    attachments::create,
    attachments::delete,
    files::download,
    relations::list,
    relations::create,
    relations::delete,
    members::list,
    members::patch,
    members::delete,
    projects::create,
    projects::patch,
    session::sign_in,
    session::sign_out,
    session::me,
    session::patch_me,
    oidc::auth,
    oidc::start,
    oidc::callback,
    oidc::unlink,
    session::verify_email,
    session::mail_preferences,
    session::patch_mail_preferences,
    mail::page_get,
    mail::post,
    tokens::list,
    tokens::create,
    tokens::delete,
    invitations::list,
    invitations::create,
    invitations::delete,
    invitations::accept,
    invitations::reset,
    invitations::reset_account,
    invitations::request_reset,
    events::stream,
    webhooks::list,
    webhooks::create,
    webhooks::patch,
    webhooks::delete,
    webhooks::deliveries,
    imports::trello,
}

/// Every route of the server, as one filter (which rejects only when the
/// body cannot be taken): the path is
/// matched once against the route table; a path the table does not have is
/// 404, a method its route does not serve is 405 with `Allow`.
pub fn all(app: Shared) -> impl Filter<Extract = (Response,), Error = warp::Rejection> + Clone {
    let query = warp::query::raw()
        .map(Some)
        .or(warp::any().map(|| None))
        .unify();
    warp::method()
        .and(warp::path::full())
        .and(query)
        .and(warp::header::headers_cloned())
        .and(warp::body::stream().map(boxed_body))
        .and(warp::ext::optional::<crate::conn::Peer>())
        .and(warp::any().map(move || app.clone()))
        .then(
            |method: Method,
             path: warp::path::FullPath,
             query: Option<String>,
             headers: HeaderMap,
             body: BodyStream,
             peer: Option<crate::conn::Peer>,
             app: Shared| async move {
                table()
                    .dispatch(&method, path.as_str(), |param| Request {
                        app,
                        param,
                        query,
                        headers,
                        peer: peer.map(|p| p.0),
                        body: Mutex::new(body),
                    })
                    .await
            },
        )
}

/// An id type a route reads from its path.
pub trait PathId: Sized {
    /// What it names, for the 404 (`card`).
    const WHAT: &'static str;
    /// The id, when `s` is well formed.
    fn parse(s: &str) -> Option<Self>;
}

macro_rules! path_ids {
    ($($id:ty => $what:literal),+ $(,)?) => {$(
        impl PathId for $id {
            const WHAT: &'static str = $what;
            fn parse(s: &str) -> Option<Self> {
                <$id>::parse(s)
            }
        }
    )+};
}

path_ids!(
    board_core::CardId => "card",
    board_core::ColumnId => "column",
    board_core::CommentId => "comment",
    board_core::AttachmentId => "attachment",
    board_core::RelationId => "relation",
    board_core::WebhookId => "webhook",
    board_core::LabelId => "label",
    board_core::AccountId => "account",
    board_core::ChecklistItemId => "checklist item",
    board_core::TokenId => "token",
    board_core::ProjectId => "project",
    board_core::InvitationId => "invitation",
);
