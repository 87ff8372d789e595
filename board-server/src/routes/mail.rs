//! Unsubscribing from e-mail (api.md §26, RFC 8058):
//! `GET|POST /api/mail/unsubscribe?token=T`, the URL of every message's
//! `List-Unsubscribe`. No credential: the token is one. The `GET` answers a
//! small page with a button and changes nothing; the `POST` (the button, or
//! a mail client's one-click `List-Unsubscribe=One-Click`) turns the kinds
//! off. Both answer HTML, for a person, whatever the body.

use serde::Deserialize;
use warp::http::header::CONTENT_TYPE;
use warp::http::{HeaderValue, StatusCode};
use warp::reply::Response;

use super::{Answer, Request};

#[derive(Debug, Default, Deserialize)]
struct TokenParams {
    token: Option<String>,
}

fn page(status: StatusCode, title: &str, body: &str) -> Response {
    let html = format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta name=\"viewport\" content=\"width=device-width\"><title>{title}</title></head>\
         <body><main><h1>{title}</h1>{body}</main></body></html>"
    );
    let mut response = Response::new(html.into());
    *response.status_mut() = status;
    response.headers_mut().insert(
        CONTENT_TYPE,
        HeaderValue::from_static("text/html; charset=utf-8"),
    );
    response
}

fn kinds_text(kinds: &[String]) -> String {
    if kinds.is_empty() {
        "these notifications".into()
    } else {
        kinds
            .iter()
            .map(|k| k.replace('_', " "))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

fn token(req: &Request) -> String {
    req.query::<TokenParams>().token.unwrap_or_default()
}

fn unknown() -> Response {
    page(
        StatusCode::NOT_FOUND,
        "Link not found",
        "<p>This unsubscribe link is unknown or no longer kept.</p>",
    )
}

#[utoipa::path(
    get, path = "/api/mail/unsubscribe", operation_id = "unsubscribePage", tag = "notifications",
    params(("token" = String, Query, description = "The token of the message's List-Unsubscribe URL")),
    security(()),
    responses(
        (status = 200, description = "An HTML page with a button that unsubscribes (this GET changes nothing)", content_type = "text/html"),
        (status = 404, description = "An HTML page: the token is unknown", content_type = "text/html"),
    ),
)]
pub(super) async fn page_get(req: Request) -> Answer {
    let token = token(&req);
    match req.board().unsubscribe_preview(&token).await {
        Ok(u) => {
            let action = format!("/api/mail/unsubscribe?token={}", urlencode(&token));
            Ok(page(
                StatusCode::OK,
                "Stop these e-mails",
                &format!(
                    "<p>Stop getting e-mail about: {}. The notifications stay in the app.</p>\
                     <form method=\"post\" action=\"{action}\"><button type=\"submit\">Unsubscribe\
                     </button></form>",
                    kinds_text(&u.kinds)
                ),
            ))
        }
        Err(board_core::Error::NotFound(_)) => Ok(unknown()),
        Err(e) => Err(e.into()),
    }
}

#[utoipa::path(
    post, path = "/api/mail/unsubscribe", operation_id = "unsubscribe", tag = "notifications",
    params(("token" = String, Query, description = "The token of the message's List-Unsubscribe URL")),
    request_body(content = String, content_type = "application/x-www-form-urlencoded", description = "Anything (RFC 8058 sends List-Unsubscribe=One-Click); it is not read"),
    security(()),
    responses(
        (status = 200, description = "An HTML page: those kinds are no longer e-mailed to the account", content_type = "text/html"),
        (status = 404, description = "An HTML page: the token is unknown", content_type = "text/html"),
    ),
)]
pub(super) async fn post(req: Request) -> Answer {
    let token = token(&req);
    match req.board().unsubscribe(&token).await {
        Ok(u) => Ok(page(
            StatusCode::OK,
            "Unsubscribed",
            &format!(
                "<p>You will no longer get e-mail about: {}. Your account page sets it again.</p>",
                kinds_text(&u.kinds)
            ),
        )),
        Err(board_core::Error::NotFound(_)) => Ok(unknown()),
        Err(e) => Err(e.into()),
    }
}

/// `text` for a URL's query.
fn urlencode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            b => format!("%{b:02X}"),
        })
        .collect()
}
