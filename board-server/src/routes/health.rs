//! `GET /healthz`: no credential; 200 when the database answers.

use serde_json::json;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{json, respond, with_app, Shared};

/// The health route.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    warp::path!("healthz")
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
        })
        .boxed()
}
