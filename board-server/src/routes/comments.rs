//! Comment routes: `GET|POST /api/cards/[id]/comments`,
//! `PATCH|DELETE /api/comments/[id]`, and the image upload
//! `POST /api/cards/[id]/comments/uploads`.

use board_core::{CardId, CommentId, Input};
use serde_json::json as json_value;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::Filter;

use super::attachments::{multipart, Multipart};
use super::{body, json, read_body, respond, with_app, BodyStream, Shared};
use crate::auth::{credentials, Credentials};

/// The comment routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let thread = warp::path!("api" / "cards" / String / "comments")
        .and(app.clone())
        .and(credentials());
    let list = thread.clone().and(warp::get()).then(list);
    let create = thread.and(warp::post()).and(body()).then(create);
    let one = warp::path!("api" / "comments" / String)
        .and(app.clone())
        .and(credentials());
    let patch = one.clone().and(warp::patch()).and(body()).then(patch);
    let delete = one.and(warp::delete()).then(delete);
    let upload = warp::path!("api" / "cards" / String / "comments" / "uploads")
        .and(warp::post())
        .and(app)
        .and(credentials())
        .and(multipart())
        .then(upload);
    list.or(create)
        .unify()
        .or(patch)
        .unify()
        .or(delete)
        .unify()
        .or(upload)
        .unify()
        .boxed()
}

async fn list(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let comments = app
            .board
            .card_comments(&actor, &CardId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &comments))
    })
    .await
}

async fn create(id: String, app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = CardId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let comment = app
            .board
            .create_comment(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::CREATED, &comment))
    })
    .await
}

async fn patch(id: String, app: Shared, creds: Credentials, body: BodyStream) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let id = CommentId::from_path(&id)?;
        let bytes = read_body(body).await?;
        let comment = app
            .board
            .update_comment(&actor, &id, Input::from_body(&bytes))
            .await?;
        Ok(json(StatusCode::OK, &comment))
    })
    .await
}

async fn delete(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        app.board
            .delete_comment(&actor, &CommentId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &json_value!({"deleted": true})))
    })
    .await
}

async fn upload(id: String, app: Shared, creds: Credentials, mut form: Multipart) -> Response {
    let result = respond(async {
        let actor = creds.actor(&app.board).await?;
        let id = CardId::from_path(&id)?;
        let stored = app
            .board
            .upload_comment_images(&actor, &id, &mut form)
            .await?;
        Ok(json(StatusCode::CREATED, &stored))
    })
    .await;
    form.drain_after_refusal(&result).await;
    result
}
