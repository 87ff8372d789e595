//! `GET /api/files/<storedName>`: the bytes of an attachment, streamed, for a
//! Viewer of the owning workspace.

use tokio_util::io::ReaderStream;
use warp::http::header::{HeaderValue, CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_TYPE};
use warp::http::StatusCode;
use warp::Reply;

use super::{Answer, Request};
use crate::error::ApiError;

fn header(value: &str) -> Result<HeaderValue, ApiError> {
    HeaderValue::from_str(value).map_err(|_| {
        ApiError::Http(
            StatusCode::INTERNAL_SERVER_ERROR,
            "INTERNAL",
            "unrepresentable header".into(),
        )
    })
}

#[utoipa::path(
    get, path = "/api/files/{storedName}", operation_id = "downloadFile", tag = "attachments",
    params(("storedName" = String, Path, description = "The stored file (`storedName` of an attachment)")),
    responses(
        (status = 200, description = "The bytes, with the detected Content-Type, nosniff and Content-Disposition", content_type = "*/*", body = super::attachments::FileBytes),
    ),
)]
pub(super) async fn download(req: Request) -> Answer {
    let actor = req.actor().await?;
    let (found, reader, len) = req.board().open_file(&actor, req.param()).await?;
    let mut res = warp::reply::stream(ReaderStream::new(reader)).into_response();
    let h = res.headers_mut();
    h.insert(CONTENT_TYPE, header(&found.mime_type)?);
    h.insert(CONTENT_LENGTH, HeaderValue::from(len));
    h.insert(CONTENT_DISPOSITION, header(&found.content_disposition())?);
    h.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    Ok(res)
}
