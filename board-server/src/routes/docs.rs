//! `GET /api/openapi.json`: the OpenAPI document of every route (no credential).

use warp::reply::Response;
use warp::Reply;

use super::{table, Answer, Request};

/// This document.
#[utoipa::path(
    get, path = "/api/openapi.json", operation_id = "openapi", tag = "service", security(()),
    responses((status = 200, description = "The OpenAPI 3.1 document of every route", content_type = "application/json", body = Object)),
)]
pub(super) async fn openapi(_: Request) -> Answer {
    let doc: Response =
        warp::reply::with_header(table().document(), "content-type", "application/json")
            .into_response();
    Ok(doc)
}
