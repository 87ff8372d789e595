//! Comment routes: `GET|POST /api/cards/[id]/comments`,
//! `PATCH|DELETE /api/comments/[id]`, and the image upload
//! `POST /api/cards/[id]/comments/uploads`.

use board_core::{CardId, CommentId, Input, ThreadQuery};
use serde::Deserialize;
use warp::http::StatusCode;

use crate::error::ApiError;

use super::{json, Answer, Request};

/// The query of `GET /api/cards/[id]/comments`, as text.
#[derive(Debug, Default, Deserialize)]
struct ThreadParams {
    html: Option<String>,
}

#[utoipa::path(
    get, path = "/api/cards/{id}/comments", operation_id = "listComments", tag = "comments",
    params(("id" = board_core::CardId, Path, description = "The card"), ("html" = Option<bool>, Query, description = "true: each comment also carries contentHtml, its Markdown rendered to safe HTML (api.md §24), under a tag of its own"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The card's comments, oldest first", body = Vec<board_core::Comment>, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
        (status = 422, description = "html is neither true nor false", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    // The token is checked by the read's first statement.
    let bearer = req.bearer()?;
    let id = req.after_credential(req.path_id::<CardId>()).await?;
    let params: ThreadParams = req.query();
    let query = ThreadQuery::from_query(params.html.as_deref());
    let read = req
        .board()
        .card_comments_if(&bearer, &id, &query, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    post, path = "/api/cards/{id}/comments", operation_id = "createComment", tag = "comments",
    params(("id" = board_core::CardId, Path, description = "The card"), ("html" = Option<bool>, Query, description = "true: the answer also carries contentHtml, and the tag of the thread's html representation (api.md §22, §24)")),
    request_body = board_core::CommentInput,
    responses(
        (status = 201, description = "The new comment, with the images it bound", body = board_core::Comment, headers(("ETag" = String, description = "The tag of the card's comments (with the same html) now: save again with it as If-Match (api.md §22)"))),
        (status = 422, description = "The body failed the schema, html is neither true nor false, or INVALID_ATTACHMENT", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(mut req: Request) -> Answer {
    // The token is checked by the write's first statement, which finds the card.
    let bearer = req.bearer()?;
    let id = req.after_credential(req.path_id::<CardId>()).await?;
    let bytes = req.json_body().await;
    let bytes = req.after_credential(bytes).await?;
    let params: ThreadParams = req.query();
    let query = ThreadQuery::from_query(params.html.as_deref());
    let saved = req
        .board()
        .save_comment(&bearer, &id, Input::from_body(&bytes), &query)
        .await?;
    Ok(super::saved(StatusCode::CREATED, saved))
}

#[utoipa::path(
    patch, path = "/api/comments/{id}", operation_id = "updateComment", tag = "comments",
    params(("id" = board_core::CommentId, Path, description = "The comment"), ("html" = Option<bool>, Query, description = "true: the answer also carries contentHtml, and the tag of the thread's html representation (api.md §22, §24)"), ("If-Match" = Option<String>, Header, description = "The tag of GET /api/cards/{id}/comments of the comment's card (strong comparison, or *): when they changed since, 412 PRECONDITION_FAILED and nothing changes (api.md §22)")),
    request_body = board_core::CommentInput,
    responses(
        (status = 200, description = "The comment", body = board_core::Comment, headers(("ETag" = String, description = "The tag of the card's comments (with the same html) now: save again with it as If-Match (api.md §22)"))),
        (status = 412, description = "PRECONDITION_FAILED: If-Match names no current tag; nothing changed", body = crate::error::ErrorBody),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or the comment is not its own (NOT_AUTHOR: only its author edits a comment, an ADMIN included); nothing changes", body = crate::error::ErrorBody),
        (status = 422, description = "The body failed the schema, html is neither true nor false, or INVALID_ATTACHMENT", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn patch(mut req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CommentId>()?;
    let bytes = req.json_body().await?;
    let cond = req.if_match();
    let params: ThreadParams = req.query();
    let query = ThreadQuery::from_query(params.html.as_deref());
    let saved = req
        .board()
        .edit_comment(&actor, &id, Input::from_body(&bytes), &cond, &query)
        .await?;
    Ok(super::saved(StatusCode::OK, saved))
}

#[utoipa::path(
    delete, path = "/api/comments/{id}", operation_id = "deleteComment", tag = "comments",
    params(("id" = board_core::CommentId, Path, description = "The comment")),
    responses(
        (status = 200, description = "The comment is deleted with its images", body = super::Deleted),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or it is neither the comment's author nor an ADMIN of its workspace (NOT_AUTHOR); nothing changes", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_comment(&actor, &req.path_id::<CommentId>()?)
        .await?;
    Ok(super::deleted())
}

#[utoipa::path(
    post, path = "/api/cards/{id}/comments/uploads", operation_id = "uploadCommentImages", tag = "comments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body(content = super::attachments::UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The images, loose until a comment binds them", body = Vec<board_core::Attachment>),
        (status = 400, description = "No file in the form, an empty file, or an unreadable form (NO_FILE)", body = crate::error::ErrorBody),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or attachments are off (ATTACHMENTS_DISABLED)", body = crate::error::ErrorBody),
        (status = 413, description = "A file is over the installation's maximum (FILE_TOO_LARGE), or the request holds more files than `--max-files-per-request` (default 100) allows (TOO_MANY_FILES); nothing is stored", body = crate::error::ErrorBody),
        (status = 415, description = "A file's content is not an accepted format (PNG, JPEG, GIF, WebP) (UNSUPPORTED_FORMAT); nothing is stored", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn upload(req: Request) -> Answer {
    let (req, mut form) = req.multipart();
    let stored: Result<_, ApiError> = async {
        let actor = req.actor().await?;
        let id = req.path_id::<CardId>()?;
        Ok(req
            .board()
            .upload_comment_images(&actor, &id, &mut form)
            .await?)
    }
    .await;
    form.drain_after_refusal(stored.is_err()).await;
    Ok(json(StatusCode::CREATED, &stored?))
}
