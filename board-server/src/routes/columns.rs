//! `GET /api/columns` (Viewer) and `POST /api/columns` (Member).

use std::collections::HashMap;

use board_core::Input;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, query, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The column routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let base = warp::path!("api" / "columns")
        .and(with_app(app))
        .and(credentials());
    let list = base.clone().and(warp::get()).and(query()).then(list);
    let create = base.and(warp::post()).and(body()).then(create);
    list.or(create).unify().boxed()
}

async fn list(app: Shared, creds: Credentials, q: HashMap<String, String>) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let tenant = q.get("tenant").map(String::as_str);
        let project = q.get("project").map(String::as_str);
        let columns = app.board.list_columns(&actor, tenant, project).await?;
        Ok(json(StatusCode::OK, &columns))
    })
    .await
}

async fn create(app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let bytes = read_body(body).await?;
        let column = app
            .board
            .create_column(&actor, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::CREATED, &column))
    })
    .await
}
