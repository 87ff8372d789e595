//! `GET /api/files/<storedName>`: the bytes of an attachment, streamed, for a
//! Viewer of the owning workspace.

use tokio_util::io::ReaderStream;
use warp::http::header::{HeaderValue, CONTENT_DISPOSITION, CONTENT_LENGTH, CONTENT_TYPE};
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Filter, Reply};

use super::{respond, with_app, Shared};
use crate::auth::{credentials, Credentials};
use crate::error::ApiError;

/// The download route.
pub fn routes(app: Shared) -> warp::filters::BoxedFilter<(Response,)> {
    warp::path!("api" / "files" / String)
        .and(warp::get())
        .and(with_app(app))
        .and(credentials())
        .then(download)
        .boxed()
}

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
        (status = 200, description = "The bytes, with the detected Content-Type, nosniff and Content-Disposition", content_type = "*/*", body = crate::openapi::FileBytes),
    ),
)]
pub(crate) async fn download(name: String, app: Shared, creds: Credentials) -> Response {
    respond(async move {
        let actor = creds.actor(&app.board).await?;
        let (found, reader, len) = app.board.open_file(&actor, &name).await?;
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
    })
    .await
}
