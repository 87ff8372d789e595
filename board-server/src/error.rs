//! Maps `board_core::Error` and every warp rejection to a status and the JSON
//! body `{"error": CODE, "message": text, "details"?}`.

use std::convert::Infallible;

use board_core::{Error, ValidationErrors};
use serde::Serialize;
use warp::http::StatusCode;
use warp::reply::Response;
use warp::{Rejection, Reply};

/// The body of every error reply.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// The error code (`NOT_FOUND`, `VALIDATION_FAILED`, `LINK_EXISTS`, ...).
    pub error: String,
    /// A sentence for people.
    pub message: String,
    /// For a schema failure (422 `VALIDATION_FAILED`): what failed, field by field.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details: Option<ValidationErrors>,
}

impl ErrorBody {
    fn new(code: &str, message: String) -> Self {
        ErrorBody {
            error: code.to_string(),
            message,
            details: None,
        }
    }
}

/// The `Retry-After` of a 503 `UNAVAILABLE`: a database restart usually takes
/// a few seconds.
pub const RETRY_AFTER_SECONDS: u32 = 2;

/// An error on its way to the client.
#[derive(Debug)]
pub enum ApiError {
    /// An error of a core operation.
    Core(Error),
    /// An HTTP-level refusal (body too large for a JSON route, unreadable body).
    Http(StatusCode, &'static str, String),
}

impl From<Error> for ApiError {
    fn from(e: Error) -> Self {
        ApiError::Core(e)
    }
}

impl ApiError {
    /// The response: status from the core error, JSON body.
    pub fn into_response(self) -> Response {
        let e = match self {
            ApiError::Core(e) => e,
            ApiError::Http(status, code, message) => {
                return error_reply(status, ErrorBody::new(code, message))
            }
        };
        let status =
            StatusCode::from_u16(e.status_code()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        let message = match status {
            StatusCode::SERVICE_UNAVAILABLE
                if matches!(e, Error::Busy | Error::ProviderUnavailable(_)) =>
            {
                e.to_string()
            }
            StatusCode::SERVICE_UNAVAILABLE => {
                tracing::warn!(error = %e, "database unavailable");
                format!("the database cannot be reached now: retry in {RETRY_AFTER_SECONDS} s")
            }
            s if s.is_server_error() => {
                tracing::error!(error = %e, "request failed");
                "internal error".to_string()
            }
            _ => e.to_string(),
        };
        let mut body = ErrorBody::new(e.code(), message);
        body.details = e.details().cloned();
        let mut response = error_reply(status, body);
        if let Error::TooManyAttempts(seconds) = e {
            response.headers_mut().insert(
                warp::http::header::RETRY_AFTER,
                warp::http::HeaderValue::from(seconds),
            );
        }
        response
    }
}

/// The JSON error reply; a 503 says when to retry.
fn error_reply(status: StatusCode, body: ErrorBody) -> Response {
    let mut response = warp::reply::with_status(warp::reply::json(&body), status).into_response();
    if status == StatusCode::SERVICE_UNAVAILABLE {
        response.headers_mut().insert(
            warp::http::header::RETRY_AFTER,
            warp::http::HeaderValue::from(RETRY_AFTER_SECONDS),
        );
    }
    response
}

/// Turns any rejection left after routing into the JSON error shape.
pub async fn recover(err: Rejection) -> Result<Response, Infallible> {
    let (status, code, message) = if err.is_not_found() {
        (
            StatusCode::NOT_FOUND,
            "NOT_FOUND",
            "no such route".to_string(),
        )
    } else if err.find::<warp::reject::MethodNotAllowed>().is_some() {
        (
            StatusCode::METHOD_NOT_ALLOWED,
            "METHOD_NOT_ALLOWED",
            "method not allowed on this route".to_string(),
        )
    } else if err.find::<warp::reject::PayloadTooLarge>().is_some() {
        (
            StatusCode::PAYLOAD_TOO_LARGE,
            "PAYLOAD_TOO_LARGE",
            "request body too large".to_string(),
        )
    } else if err.find::<warp::reject::LengthRequired>().is_some() {
        (
            StatusCode::LENGTH_REQUIRED,
            "LENGTH_REQUIRED",
            "a Content-Length header is required".to_string(),
        )
    } else {
        (StatusCode::BAD_REQUEST, "BAD_REQUEST", format!("{err:?}"))
    };
    Ok(error_reply(status, ErrorBody::new(code, message)))
}

/// The HTTP status of a core error: the server's mapping of board-core's
/// [`Error`] (which knows no HTTP) onto the contract's statuses.
pub trait HttpStatus {
    /// The status the server answers with.
    fn status_code(&self) -> u16;
}

impl HttpStatus for Error {
    fn status_code(&self) -> u16 {
        match self {
            Error::Unauthenticated | Error::BadCredentials => 401,
            Error::TooManyAttempts(_) => 429,
            Error::Forbidden(_)
            | Error::ColumnManagementDisabled
            | Error::AttachmentsDisabled
            | Error::NotAuthor(_)
            | Error::PasswordSignInDisabled => 403,
            Error::NotFound(_) | Error::Unknown(_) => 404,
            Error::LinkExists | Error::Conflict(_) | Error::NameTaken(_) | Error::Transfer(_) => {
                409
            }
            Error::NoFile(_) => 400,
            Error::PreconditionFailed(_) => 412,
            Error::FileTooLarge(_) | Error::TooManyFiles(_) => 413,
            Error::UnsupportedFormat(_) => 415,
            // Every domain rule, `WIP_LIMIT` (api.md §20) included.
            Error::Validation(_) | Error::Rule(..) | Error::NotATrelloExport(_) => 422,
            Error::SsoRefused(reason, ..) => match reason {
                board_core::SsoReason::IdentityTaken => 409,
                board_core::SsoReason::NoAccount => 403,
                board_core::SsoReason::Invitation => 404,
                _ => 400,
            },
            Error::Unavailable(_) | Error::Busy | Error::ProviderUnavailable(_) => 503,
            Error::Config(_)
            | Error::Database(_)
            | Error::Io(_)
            | Error::NoDatabase(_)
            | Error::Internal(_) => 500,
        }
    }
}

#[cfg(test)]
mod tests {
    use board_core::{Error, Rule};

    use super::HttpStatus;

    #[test]
    fn a_wip_limit_refusal_is_a_422() {
        let e = Error::rule(
            Rule::WipLimit,
            "the column 'Doing' has a WIP limit of 2 cards",
        );
        assert_eq!((e.status_code(), e.code()), (422, "WIP_LIMIT"));
    }

    #[test]
    fn a_comment_of_someone_else_is_a_403_not_author() {
        let e = Error::NotAuthor("only its author edits a comment");
        assert_eq!((e.status_code(), e.code()), (403, "NOT_AUTHOR"));
    }
}
