//! `GET /healthz` (200 with the version and schema when the database
//! answers; `HEAD` answers the same without the body) and `GET /metrics`
//! (Prometheus text): no credential.

use serde::Serialize;
use warp::http::StatusCode;
use warp::Reply;

use super::{json, Answer, Request};

/// The reply of `GET /healthz`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// The server's version (what `board-server --version` prints).
    pub version: &'static str,
    /// The schema the server runs: the version of its last migration (the
    /// `NNNN` of `migrations/<backend>/NNNN_….sql`). The server migrates the
    /// database at start, so this is the database's schema too.
    pub schema: i64,
}

#[utoipa::path(
    get, path = "/healthz", operation_id = "health", tag = "service", security(()),
    responses(
        (status = 200, description = "The database answers", body = Health),
        (status = 503, description = "The database cannot be reached (UNAVAILABLE, with Retry-After)", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn health(req: Request) -> Answer {
    req.board().ping().await?;
    Ok(json(
        StatusCode::OK,
        &Health {
            status: "ok",
            version: env!("CARGO_PKG_VERSION"),
            schema: req.board().backend().schema_version(),
        },
    ))
}

#[utoipa::path(
    head, path = "/healthz", operation_id = "healthHead", tag = "service", security(()),
    responses(
        (status = 200, description = "The database answers (the headers of GET, no body)"),
        (status = 503, description = "The database cannot be reached (UNAVAILABLE, with Retry-After; no body)"),
    ),
)]
pub(super) async fn health_head(req: Request) -> Answer {
    // The same answer; the HTTP layer sends no body for a HEAD.
    health(req).await
}

#[utoipa::path(
    get, path = "/metrics", operation_id = "metrics", tag = "service", security(()),
    responses(
        (status = 200, description = "Request counts and latency histograms per route, and the database pool's use, in the Prometheus text format", content_type = "text/plain", body = String),
    ),
)]
pub(super) async fn metrics(req: Request) -> Answer {
    let pool = req.board().pool_stats();
    let body = req.app.metrics.render(pool.open, pool.idle, pool.max);
    Ok(warp::reply::with_header(body, "content-type", "text/plain; version=0.0.4").into_response())
}
