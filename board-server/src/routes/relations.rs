//! Relation routes: `GET|POST /api/cards/[id]/relations` and
//! `DELETE /api/relations/[id]`.

use board_core::{CardId, Input, RelationId};
use serde_json::json as json_value;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::{body, json, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The relation routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let of_card = warp::path!("api" / "cards" / String / "relations")
        .and(app.clone())
        .and(credentials());
    let list = of_card.clone().and(warp::get()).then(list);
    let create = of_card.and(warp::post()).and(body()).then(create);
    let delete = warp::path!("api" / "relations" / String)
        .and(warp::delete())
        .and(app)
        .and(credentials())
        .then(delete);
    list.or(create).unify().or(delete).unify().boxed()
}

async fn list(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let links = app
            .board
            .card_relations(&actor, &CardId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &links))
    })
    .await
}

async fn create(id: String, app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = CardId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let link = app
            .board
            .create_relation(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::CREATED, &link))
    })
    .await
}

async fn delete(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        app.board
            .delete_relation(&actor, &RelationId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &json_value!({"deleted": true})))
    })
    .await
}
