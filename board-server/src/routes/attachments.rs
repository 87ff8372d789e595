//! Attachment routes: `GET|POST /api/cards/[id]/attachments`,
//! `DELETE /api/attachments/[id]`, and the multipart adapter both upload
//! routes hand to board-core (which counts, writes and checks the bytes).
//!
//! `Multipart` adapts the body, parsed by `multer` while it streams, to core's
//! `UploadSource`. A body that is not multipart is an empty upload, so it is refused (400
//! `NO_FILE`) after the access checks, like any upload without a file. The body reaches
//! multer paced (`PACE` bytes, then one "pending"), because multer copies all the connection
//! holds into its buffer each time it reads.

use std::time::Duration;

use board_core::{AttachmentId, CardId, Error, PartInfo, UploadSource};
use utoipa::openapi::schema::Schema;
use utoipa::openapi::RefOr;
use utoipa::{PartialSchema, ToSchema};
use warp::http::header::CONTENT_TYPE;
use warp::http::{HeaderMap, StatusCode};
use warp::hyper::body::Bytes;

use crate::error::ApiError;

use super::{json, Answer, BodyStream, Request};

#[utoipa::path(
    get, path = "/api/cards/{id}/attachments", operation_id = "listAttachments", tag = "attachments",
    params(("id" = board_core::CardId, Path, description = "The card"), ("If-None-Match" = Option<String>, Header, description = "Entity tags (or *) the client holds: when one names the current tag (weak comparison), 304 without a body (api.md §22)")),
    responses(
        (status = 200, description = "The card's attachments (scope CARD)", body = Vec<board_core::Attachment>, headers(("ETag" = String, description = "The strong entity tag of the payload (api.md §22)"))),
        (status = 304, description = "Not modified: If-None-Match names the current tag (no body)", headers(("ETag" = String, description = "The current tag"))),
    ),
)]
pub(super) async fn list(req: Request) -> Answer {
    let actor = req.actor().await?;
    let id = req.path_id::<CardId>()?;
    let read = req
        .board()
        .card_attachments_if(&actor, &id, &req.if_none_match())
        .await?;
    Ok(super::tagged(read))
}

#[utoipa::path(
    post, path = "/api/cards/{id}/attachments", operation_id = "createAttachments", tag = "attachments",
    params(("id" = board_core::CardId, Path, description = "The card")),
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses(
        (status = 201, description = "The stored files (all or none)", body = Vec<board_core::Attachment>),
        (status = 400, description = "No file in the form, an empty file, or an unreadable form (NO_FILE)", body = crate::error::ErrorBody),
        (status = 403, description = "The account does not reach the workspace, its role is too low, or attachments are off (ATTACHMENTS_DISABLED)", body = crate::error::ErrorBody),
        (status = 413, description = "A file is over the installation's maximum (FILE_TOO_LARGE), or the request holds more files than `--max-files-per-request` (default 100) allows (TOO_MANY_FILES); nothing is stored", body = crate::error::ErrorBody),
        (status = 415, description = "A file's content is not an accepted format (images, PDF, ZIP, Office Open XML, plain text) (UNSUPPORTED_FORMAT); nothing is stored", body = crate::error::ErrorBody),
    ),
)]
pub(super) async fn create(req: Request) -> Answer {
    let (req, mut form) = req.multipart();
    let stored: Result<_, ApiError> = async {
        let actor = req.actor().await?;
        let id = req.path_id::<CardId>()?;
        Ok(req.board().attach_files(&actor, &id, &mut form).await?)
    }
    .await;
    form.drain_after_refusal(stored.is_err()).await;
    Ok(json(StatusCode::CREATED, &stored?))
}

#[utoipa::path(
    delete, path = "/api/attachments/{id}", operation_id = "deleteAttachment", tag = "attachments",
    params(("id" = board_core::AttachmentId, Path, description = "The attachment")),
    responses(
        (status = 200, description = "The attachment and its file are deleted", body = super::Deleted),
    ),
)]
pub(super) async fn delete(req: Request) -> Answer {
    let actor = req.actor().await?;
    req.board()
        .delete_attachment(&actor, &req.path_id::<AttachmentId>()?)
        .await?;
    Ok(super::deleted())
}

/// A `multipart/form-data` body, still unread. A request that is not multipart
/// gives an empty one (so the operation answers 400 `NO_FILE` after its access
/// checks). There is no length cap here: board-core stops each file at the
/// installation's maximum while it streams it.
pub struct Multipart {
    form: Option<multer::Multipart<'static>>,
    field: Option<multer::Field<'static>>,
}

impl Multipart {
    /// The form of a request with these headers and body.
    pub(super) fn new(headers: &HeaderMap, body: BodyStream) -> Multipart {
        let form = headers
            .get(CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .and_then(|ct| multer::parse_boundary(ct).ok())
            .map(|boundary| multer::Multipart::new(Paced::new(body), boundary));
        Multipart { form, field: None }
    }
}

/// How much of the body multer takes in one go.
const PACE: usize = 64 << 10;

/// The request body handed to multer a little at a time. multer reads its
/// stream until the stream is pending, so whatever the connection holds would be
/// copied into its buffer at once: megabytes, when the client sends faster than
/// a file is stored (a part going to the object store). After [`PACE`] bytes
/// this stream says "pending" once (and asks to be polled again at once), so
/// the server holds about that much of a body beyond the file's own buffer.
struct Paced {
    body: BodyStream,
    taken: usize,
}

impl Paced {
    fn new(body: BodyStream) -> Paced {
        Paced { body, taken: 0 }
    }
}

impl futures_util::Stream for Paced {
    type Item = Result<Bytes, warp::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        if self.taken >= PACE {
            self.taken = 0;
            cx.waker().wake_by_ref();
            return Poll::Pending;
        }
        let next = self.body.as_mut().poll_next(cx);
        match &next {
            Poll::Ready(Some(Ok(chunk))) => self.taken += chunk.len(),
            Poll::Pending => self.taken = 0,
            Poll::Ready(_) => {}
        }
        next
    }
}

/// The most bytes read (and thrown away) after a refusal, so that the client
/// can read the answer instead of a reset connection.
const DRAIN_LIMIT: u64 = 64 << 20;

fn unreadable(e: multer::Error) -> Error {
    Error::NoFile(format!("the multipart body could not be read: {e}"))
}

impl Multipart {
    /// After a refused upload, reads what the client is still sending (up to
    /// 64 MiB, for at most 10 s) without keeping any of it.
    pub async fn drain_after_refusal(&mut self, refused: bool) {
        if !refused || self.form.is_none() {
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
        // A field is dropped before the next is asked for.
        self.field = None;
        let Some(form) = self.form.as_mut() else {
            return Ok(None);
        };
        let Some(field) = form.next_field().await.map_err(unreadable)? else {
            return Ok(None);
        };
        let info = PartInfo {
            field: field.name().unwrap_or_default().to_string(),
            file_name: field.file_name().map(str::to_string),
        };
        self.field = Some(field);
        Ok(Some(info))
    }

    async fn next_chunk(&mut self) -> board_core::Result<Option<Bytes>> {
        match self.field.as_mut() {
            Some(field) => field.chunk().await.map_err(unreadable),
            None => Ok(None),
        }
    }
}

/// A file sent in a multipart form.
pub struct FileBytes;

impl PartialSchema for FileBytes {
    fn schema() -> RefOr<Schema> {
        utoipa::openapi::ObjectBuilder::new()
            .schema_type(utoipa::openapi::Type::String)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Binary,
            )))
            .content_media_type("application/octet-stream")
            .into()
    }
}

impl ToSchema for FileBytes {}

/// The multipart form of both upload routes: files in the repeatable field
/// `files` (the singular `file` is accepted too; other fields are skipped).
#[derive(ToSchema)]
#[allow(dead_code)] // a schema only: `Multipart` reads the form
pub struct UploadForm {
    /// The files (repeat the field to send several).
    #[schema(inline)]
    pub files: Option<Vec<FileBytes>>,
    /// A single file.
    #[schema(inline)]
    pub file: Option<FileBytes>,
}
