//! Routes, one file per resource: filters first, then handlers. Every handler
//! authenticates, calls one core operation and maps its result; none rejects,
//! so a failed request never falls through to another route.

pub mod attachments;
pub mod cards;
pub mod columns;
pub mod comments;
pub mod files;
pub mod health;
pub mod relations;
pub mod settings;

use std::collections::HashMap;
use std::convert::Infallible;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use board_core::Board;
use futures_util::{Stream, StreamExt, TryStreamExt};
use serde::Serialize;
use warp::http::StatusCode;
use warp::hyper::body::Bytes;
use warp::reply::Response;
use warp::{Buf, Filter, Rejection, Reply};

use crate::config::Config;
use crate::error::ApiError;

/// What every handler shares.
#[derive(Debug)]
pub struct App {
    /// The core handle.
    pub board: Board,
    /// The configuration the server started with.
    pub config: Config,
    /// Request counters and latencies, for `GET /metrics`.
    pub metrics: Arc<crate::metrics::Metrics>,
}

/// The shared application state.
pub type Shared = Arc<App>;

/// A request body, read by the handler only after its access checks.
pub type BodyStream = Pin<Box<dyn Stream<Item = Result<Bytes, warp::Error>> + Send>>;

/// The largest JSON body a route reads.
pub const JSON_LIMIT: usize = 1 << 20;

/// Hands the shared state to a handler.
pub fn with_app(app: Shared) -> impl Filter<Extract = (Shared,), Error = Infallible> + Clone {
    warp::any().map(move || app.clone())
}

/// The request body as a stream, left unread.
pub fn body() -> impl Filter<Extract = (BodyStream,), Error = Rejection> + Clone {
    warp::body::stream().map(boxed_body)
}

fn boxed_body<S, B>(s: S) -> BodyStream
where
    S: Stream<Item = Result<B, warp::Error>> + Send + 'static,
    B: Buf,
{
    Box::pin(s.map_ok(|mut b| b.copy_to_bytes(b.remaining())))
}

/// The query string as a map (an absent query is empty).
pub fn query() -> impl Filter<Extract = (HashMap<String, String>,), Error = Infallible> + Clone {
    warp::query::<HashMap<String, String>>()
        .or(warp::any().map(HashMap::new))
        .unify()
}

/// Reads a JSON route's body, refusing more than [`JSON_LIMIT`] bytes with 413.
pub async fn read_body(mut body: BodyStream) -> Result<Vec<u8>, ApiError> {
    let mut out = Vec::new();
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
    Ok(out)
}

/// A JSON reply with a status.
pub fn json<T: Serialize>(status: StatusCode, value: &T) -> Response {
    warp::reply::with_status(warp::reply::json(value), status).into_response()
}

/// Runs a handler body, turning its error into the JSON error reply.
pub async fn respond(handler: impl Future<Output = Result<Response, ApiError>>) -> Response {
    handler.await.unwrap_or_else(ApiError::into_response)
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

/// Every route of the server.
pub fn all(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    health::routes(app.clone())
        .or(crate::openapi::routes())
        .unify()
        .or(settings::routes(app.clone()))
        .unify()
        .or(columns::routes(app.clone()))
        .unify()
        .or(relations::routes(app.clone()))
        .unify()
        .or(cards::routes(app.clone()))
        .unify()
        .or(comments::routes(app.clone()))
        .unify()
        .or(attachments::routes(app.clone()))
        .unify()
        .or(files::routes(app))
        .unify()
        .boxed()
}
