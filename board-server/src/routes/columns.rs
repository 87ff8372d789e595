//! Column routes: `GET|POST /api/columns`, `PATCH /api/columns/order`, and
//! `PATCH|DELETE /api/columns/[id]`. The order route is tried before `[id]`.

use std::collections::HashMap;

use board_core::{ColumnId, Input};
use serde_json::json as json_value;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, query, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The column routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let base = warp::path!("api" / "columns")
        .and(app.clone())
        .and(credentials());
    let list = base.clone().and(warp::get()).and(query()).then(list);
    let create = base.and(warp::post()).and(body()).then(create);
    let order = warp::path!("api" / "columns" / "order")
        .and(warp::patch())
        .and(app.clone())
        .and(credentials())
        .and(body())
        .then(reorder);
    let one = warp::path!("api" / "columns" / String)
        .and(app)
        .and(credentials());
    let update = one.clone().and(warp::patch()).and(body()).then(update);
    let delete = one.and(warp::delete()).and(body()).then(delete);
    list.or(create)
        .unify()
        .or(order)
        .unify()
        .or(update)
        .unify()
        .or(delete)
        .unify()
        .boxed()
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

async fn reorder(app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let bytes = read_body(body).await?;
        let updated = app
            .board
            .reorder_columns(&actor, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &json_value!({"updated": updated})))
    })
    .await
}

async fn update(id: String, app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = ColumnId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let column = app
            .board
            .update_column(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &column))
    })
    .await
}

async fn delete(id: String, app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = ColumnId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let outcome = app
            .board
            .delete_column(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &outcome))
    })
    .await
}
