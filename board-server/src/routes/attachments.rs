//! Attachment routes: `GET|POST /api/cards/[id]/attachments`,
//! `DELETE /api/attachments/[id]`, and the multipart adapter both upload
//! routes hand to board-core (which counts, writes and checks the bytes).

use std::time::Duration;

use board_core::{AttachmentId, CardId, Error, PartInfo, UploadSource};
use futures_util::StreamExt;
use warp::http::StatusCode;
use warp::hyper::body::Bytes;
use warp::multipart::{FormData, Part};
use warp::reply::Response;
use warp::{Buf, Filter};

use super::{json, respond, with_app, Shared};
use crate::auth::{credentials, Credentials};

/// The attachment routes.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    let app = with_app(app);
    let card = warp::path!("api" / "cards" / String / "attachments")
        .and(app.clone())
        .and(credentials());
    let list = card.clone().and(warp::get()).then(list);
    let create = card.and(warp::post()).and(multipart()).then(create);
    let delete = warp::path!("api" / "attachments" / String)
        .and(warp::delete())
        .and(app)
        .and(credentials())
        .then(delete);
    list.or(create).unify().or(delete).unify().boxed()
}

#[utoipa::path(
    get, path = "/api/cards/{id}/attachments", operation_id = "listAttachments", tag = "attachments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    responses(
        (status = 200, description = "The card's attachments (scope CARD)", body = Vec<board_core::Attachment>),
    ),
)]
pub(crate) async fn list(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let found = app
            .board
            .card_attachments(&actor, &CardId::from_path(&id)?)
            .await?;
        Ok(json(StatusCode::OK, &found))
    })
    .await
}

#[utoipa::path(
    post, path = "/api/cards/{id}/attachments", operation_id = "createAttachments", tag = "attachments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body(content = crate::openapi::UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The stored files (all or none)", body = Vec<board_core::Attachment>),
        (status = 400, description = "No file in the form, an empty file, or an unreadable form (NO_FILE)", body = crate::error::ErrorBody),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or attachments are off (ATTACHMENTS_DISABLED)", body = crate::error::ErrorBody),
        (status = 413, description = "A file is over the installation's maximum (FILE_TOO_LARGE); nothing is stored", body = crate::error::ErrorBody),
        (status = 415, description = "A file's content is not an accepted format (images, PDF, ZIP, Office Open XML, plain text) (UNSUPPORTED_FORMAT); nothing is stored", body = crate::error::ErrorBody),
    ),
)]
pub(crate) async fn create(
    id: String,
    app: Shared,
    creds: Credentials,
    mut form: Multipart,
) -> Response {
    let result = respond(async {
        let actor = creds.actor(&app.board).await?;
        let id = CardId::from_path(&id)?;
        let stored = app.board.attach_files(&actor, &id, &mut form).await?;
        Ok(json(StatusCode::CREATED, &stored))
    })
    .await;
    form.drain_after_refusal(&result).await;
    result
}

#[utoipa::path(
    delete, path = "/api/attachments/{id}", operation_id = "deleteAttachment", tag = "attachments",
    params(("id" = board_core::AttachmentId, Path, description = "The attachment")),
    responses(
        (status = 200, description = "The attachment and its file are deleted", body = super::Deleted),
    ),
)]
pub(crate) async fn delete(id: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        app.board
            .delete_attachment(&actor, &AttachmentId::from_path(&id)?)
            .await?;
        Ok(super::deleted())
    })
    .await
}

/// A `multipart/form-data` body, still unread. A request that is not multipart
/// gives an empty one (so the operation answers 400 `NO_FILE` after its access
/// checks) instead of a rejection that would fall through to other routes.
pub struct Multipart {
    form: Option<FormData>,
    part: Option<Part>,
}

/// Extracts the multipart body without reading it and without a length cap
/// (board-core stops each file at the installation's maximum); never rejects.
pub fn multipart() -> impl Filter<Extract = (Multipart,), Error = std::convert::Infallible> + Clone
{
    warp::multipart::form()
        .max_length(None)
        .map(|form| Multipart {
            form: Some(form),
            part: None,
        })
        .or(warp::any().map(|| Multipart {
            form: None,
            part: None,
        }))
        .unify()
}

/// The most bytes read (and thrown away) after a refusal, so that the client
/// can read the answer instead of a reset connection.
const DRAIN_LIMIT: u64 = 64 << 20;

fn unreadable(e: warp::Error) -> Error {
    Error::NoFile(format!("the multipart body could not be read: {e}"))
}

impl Multipart {
    /// After a refused upload, reads what the client is still sending (up to
    /// 64 MiB, for at most 10 s) without keeping any of it.
    pub async fn drain_after_refusal(&mut self, response: &Response) {
        if response.status().is_success() || self.form.is_none() {
            return;
        }
        let mut left = DRAIN_LIMIT;
        let drain = async {
            loop {
                match self.next_chunk().await {
                    Ok(Some(chunk)) => {
                        left = left.saturating_sub(chunk.len() as u64);
                        if left == 0 {
                            return;
                        }
                    }
                    Ok(None) => match self.next_part().await {
                        Ok(Some(_)) => {}
                        _ => return,
                    },
                    Err(_) => return,
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(10), drain)
            .await
            .ok();
    }
}

impl UploadSource for Multipart {
    type Chunk = Bytes;

    async fn next_part(&mut self) -> board_core::Result<Option<PartInfo>> {
        self.part = None;
        let Some(form) = self.form.as_mut() else {
            return Ok(None);
        };
        match form.next().await {
            None => Ok(None),
            Some(Err(e)) => Err(unreadable(e)),
            Some(Ok(part)) => {
                let info = PartInfo {
                    field: part.name().to_string(),
                    file_name: part.filename().map(str::to_string),
                };
                self.part = Some(part);
                Ok(Some(info))
            }
        }
    }

    async fn next_chunk(&mut self) -> board_core::Result<Option<Bytes>> {
        let Some(part) = self.part.as_mut() else {
            return Ok(None);
        };
        match part.data().await {
            None => Ok(None),
            Some(Err(e)) => Err(unreadable(e)),
            Some(Ok(mut buf)) => Ok(Some(buf.copy_to_bytes(buf.remaining()))),
        }
    }
}
