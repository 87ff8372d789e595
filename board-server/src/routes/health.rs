//! `GET /healthz` (200 with the version when the database answers; `HEAD`
//! answers the same without the body) and `GET /metrics` (Prometheus text):
//! no credential.

use serde::Serialize;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Reply};

use super::{json, respond, with_app, Shared};

/// The health and metrics routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let metrics = warp::path!("metrics")
        .and(warp::get())
        .and(with_app(app.clone()))
        .then(metrics);
    let health = warp::path!("healthz")
        .and(warp::get())
        .and(with_app(app.clone()))
        .then(health);
    // The same answer; the HTTP layer sends no body for a HEAD.
    let health_head = warp::path!("healthz")
        .and(warp::head())
        .and(with_app(app))
        .then(health_head);
    health.or(health_head).unify().or(metrics).unify().boxed()
}

/// The reply of `GET /healthz`.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct Health {
    /// `ok`.
    pub status: &'static str,
    /// The server's version.
    pub version: &'static str,
}

#[utoipa::path(
    get, path = "/healthz", operation_id = "health", tag = "service", security(()),
    responses(
        (status = 200, description = "The database answers", body = Health),
        (status = 503, description = "The database cannot be reached (UNAVAILABLE, with Retry-After)", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn health(app: Shared) -> Response {
    respond(async move {
        app.board.ping().await?;
        Ok(json(
            StatusCode::OK,
            &Health {
                status: "ok",
                version: env!("CARGO_PKG_VERSION"),
            },
        ))
    })
    .await
}

#[utoipa::path(
    head, path = "/healthz", operation_id = "healthHead", tag = "service", security(()),
    responses(
        (status = 200, description = "The database answers (the headers of GET, no body)"),
        (status = 503, description = "The database cannot be reached (UNAVAILABLE, with Retry-After; no body)"),
    ),
)]
pub(crate) async fn health_head(app: Shared) -> Response {
    health(app).await
}

#[utoipa::path(
    get, path = "/metrics", operation_id = "metrics", tag = "service", security(()),
    responses(
        (status = 200, description = "Request counts and latency histograms per route, and the database pool's use, in the Prometheus text format", content_type = "text/plain", body = String),
    ),
)]
pub(crate) async fn metrics(app: Shared) -> Response {
    let pool = app.board.pool_stats();
    let body = app.metrics.render(pool.open, pool.idle, pool.max);
    warp::reply::with_header(body, "content-type", "text/plain; version=0.0.4").into_response()
}
