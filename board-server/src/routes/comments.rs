//! Comment routes: `GET|POST /api/cards/[id]/comments`,
//! `PATCH|DELETE /api/comments/[id]`, and the image upload
//! `POST /api/cards/[id]/comments/uploads`.

use board_core::{CardId, CommentId, Input};
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

#[utoipa::path(
    get, path = "/api/cards/{id}/comments", operation_id = "listComments", tag = "comments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card's comments, oldest first", body = Vec<board_core::Comment>),
    ),
)]
pub(crate) async fn list(id: String, app: Shared, creds: Credentials) -> Response {
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

#[utoipa::path(
    post, path = "/api/cards/{id}/comments", operation_id = "createComment", tag = "comments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body = board_core::CommentInput,
    responses(
        (status = 201, description = "The new comment, with the images it bound", body = board_core::Comment),
        (status = 422, description = "The body failed the schema, or INVALID_ATTACHMENT", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn create(
    id: String,
    app: Shared,
    creds: Credentials,
    body: BodyStream,
) -> Response {
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

#[utoipa::path(
    patch, path = "/api/comments/{id}", operation_id = "updateComment", tag = "comments",
    params(("id" = board_core::CommentId, Path, description = "The comment")),
    request_body = board_core::CommentInput,
    responses(
        (status = 200, description = "The comment", body = board_core::Comment),
        (status = 422, description = "The body failed the schema, or INVALID_ATTACHMENT", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn patch(
    id: String,
    app: Shared,
    creds: Credentials,
    body: BodyStream,
) -> Response {
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

#[utoipa::path(
    delete, path = "/api/comments/{id}", operation_id = "deleteComment", tag = "comments",
    params(("id" = board_core::CommentId, Path, description = "The comment")),
    responses(
        (status = 200, description = "The comment is deleted with its images", body = super::Deleted),
    ),
)]
pub(crate) async fn delete(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        app.board
            .delete_comment(&actor, &CommentId::from_path(&id)?)
            .await?;
        Ok(super::deleted())
    })
    .await
}

#[utoipa::path(
    post, path = "/api/cards/{id}/comments/uploads", operation_id = "uploadCommentImages", tag = "comments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body(content = crate::openapi::UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The images, loose until a comment binds them", body = Vec<board_core::Attachment>),
        (status = 400, description = "No file in the form, an empty file, or an unreadable form (NO_FILE)", body = crate::error::ErrorBody),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or attachments are off (ATTACHMENTS_DISABLED)", body = crate::error::ErrorBody),
        (status = 413, description = "A file is over the installation's maximum (FILE_TOO_LARGE); nothing is stored", body = crate::error::ErrorBody),
        (status = 415, description = "A file's content is not an accepted format (PNG, JPEG, GIF, WebP) (UNSUPPORTED_FORMAT); nothing is stored", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn upload(
    id: String,
    app: Shared,
    creds: Credentials,
    mut form: Multipart,
) -> Response {
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
