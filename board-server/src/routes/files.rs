//! `GET /api/files/<storedName>`: the bytes of an attachment, streamed, for a
//! Viewer of the owning workspace.

use tokio_util::io::ReaderStream;
use warp::http::header::{
    HeaderValue, CACHE_CONTROL, CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_SECURITY_POLICY,
    CONTENT_TYPE,
};
use warp::http::StatusCode;
use warp::Reply;

use super::{Answer, Request};
use crate::error::ApiError;

/// The `Content-Security-Policy` of a download.
pub const FILE_CSP: &str = "default-src 'none'; sandbox";

/// The `Cache-Control` of a download: private (it needs a credential), and
/// the bytes under a stored name never change.
pub const FILE_CACHE: &str = "private, max-age=31536000, immutable";

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
        (status = 200, description = "The bytes, with the detected Content-Type, nosniff, Content-Disposition, `Content-Security-Policy: default-src 'none'; sandbox` and `Cache-Control: private, max-age=31536000, immutable`", content_type = "*/*", body = super::attachments::FileBytes,
            headers(
                ("Content-Disposition" = String, description = "inline (images) or attachment, with the original name"),
                ("Content-Security-Policy" = String, description = "default-src 'none'; sandbox"),
                ("Cache-Control" = String, description = "private, max-age=31536000, immutable"),
                ("X-Content-Type-Options" = String, description = "nosniff"),
            )),
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
    // api.md §21: a file opened in a browser runs nothing and reaches
    // nothing (an HTML or SVG file served as such stays inert), and a stored
    // file never changes under its name, so it may be kept.
    h.insert(CONTENT_SECURITY_POLICY, HeaderValue::from_static(FILE_CSP));
    h.insert(CACHE_CONTROL, HeaderValue::from_static(FILE_CACHE));
    Ok(res)
}
