//! `GET /healthz` (200 with the version when the database answers) and
//! `GET /metrics` (Prometheus text): no credential.

use serde_json::json;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Reply};

use super::{json, respond, with_app, Shared};

/// The health and metrics routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let metrics = warp::path!("metrics")
        .and(warp::get())
        .and(with_app(app.clone()))
        .map(|app: Shared| {
            let (size, idle, max) = app.board.pool_stats();
            let body = app.metrics.render(size, idle, max);
            warp::reply::with_header(body, "content-type", "text/plain; version=0.0.4")
                .into_response()
        });
    let health = warp::path!("healthz")
        .and(warp::get())
        .and(with_app(app))
        .then(|app: Shared| {
            respond(async move {
                app.board.ping().await?;
                Ok(json(
                    StatusCode::OK,
                    &json!({"status": "ok", "version": env!("CARGO_PKG_VERSION")}),
                ))
            })
        });
    health.or(metrics).unify().boxed()
}
