//! Browser clients (api.md §12), around every route:
//!
//! - **Cross-site request forgery.** A POST, PATCH, PUT or DELETE authenticated
//!   by the `board_session` cookie is refused with 403 `CROSS_ORIGIN` before any
//!   handler runs (so it changes nothing and its body is never read) when its
//!   `Origin` is neither the server's own (the request's `Host`) nor an allowed
//!   origin, or, without `Origin`, when `Sec-Fetch-Site` is `cross-site`. A
//!   request that carries an `Authorization` header is authenticated by it
//!   (the header wins over the cookie, see [`crate::auth`]), so it is never
//!   refused for its origin.
//! - **CORS** for the origins of `--allowed-origins`: preflights answered from
//!   the route table, and the `Access-Control-*` headers on every response.
//! - **No caching of the API**: every answer under `/api/` carries
//!   `Cache-Control: no-store` and `X-Content-Type-Options: nosniff`, except
//!   that an event stream and a file download keep their own caching.
//!
//! These are rules of HTTP and browsers, not of the board: no core operation
//! sees an origin, so they live here, once.

use std::convert::Infallible;
use std::sync::Arc;

use warp::http::header::{
    ACCESS_CONTROL_ALLOW_CREDENTIALS, ACCESS_CONTROL_ALLOW_HEADERS, ACCESS_CONTROL_ALLOW_METHODS,
    ACCESS_CONTROL_ALLOW_ORIGIN, ACCESS_CONTROL_EXPOSE_HEADERS, ACCESS_CONTROL_MAX_AGE,
    ACCESS_CONTROL_REQUEST_METHOD, ALLOW, AUTHORIZATION, CACHE_CONTROL, HOST, ORIGIN, VARY,
    X_CONTENT_TYPE_OPTIONS,
};
use warp::http::{HeaderMap, HeaderValue, Method, StatusCode};
use warp::reply::Response;
use warp::{Filter, Rejection, Reply};

use crate::auth::{session_cookie, SESSION_COOKIE};
use crate::config::AllowedOrigins;
use crate::error::ErrorBody;
use crate::routes::RouteTemplate;

/// The request headers a browser client may send.
pub const ALLOWED_HEADERS: &str =
    "authorization, content-type, if-match, if-none-match, last-event-id, x-request-id";
/// The routes that sign in and set the session cookie: refused from a
/// foreign origin like a cookie write, whatever credential they carry (§23).
pub const SIGN_IN_PATHS: &[&str] = &[
    "/api/session",
    "/api/invitations/accept",
    "/api/password-reset",
];
/// How long a browser may cache a preflight answer, in seconds.
pub const MAX_AGE_SECONDS: u32 = 600;

/// Wraps `inner` (which never rejects) with the cross-origin refusal, the
/// preflight answers and the CORS headers.
pub fn wrap<F, R>(
    inner: F,
    origins: AllowedOrigins,
) -> impl Filter<Extract = (Response,), Error = Infallible> + Clone
where
    F: Filter<Extract = (R,), Error = Infallible> + Clone + Send + Sync + 'static,
    R: Reply,
{
    let origins = Arc::new(origins);
    let guard_origins = origins.clone();
    let guard = warp::method()
        .and(warp::path::full())
        .and(warp::header::headers_cloned())
        .and_then(move |method, path: warp::path::FullPath, headers| {
            let origins = guard_origins.clone();
            async move {
                match before_routing(&method, path.as_str(), &headers, &origins) {
                    Some(response) => Ok(response),
                    None => Err::<Response, Rejection>(warp::reject::not_found()),
                }
            }
        });
    let routed = inner.map(Reply::into_response);
    warp::header::headers_cloned()
        .and(warp::path::full())
        .and(guard.or(routed).unify())
        .map(
            move |headers: HeaderMap, path: warp::path::FullPath, mut response: Response| {
                decorate(&headers, &mut response, &origins);
                api_caching(path.as_str(), &mut response);
                response
            },
        )
}

/// The routes that keep their own `Cache-Control` on success: an event stream
/// (`no-cache`) and a file download (`private`, immutable).
const OWN_CACHING: &[&str] = &["/api/events", "/api/files/{storedName}"];

/// Every answer under `/api/` (errors too, and answers no route gave) carries
/// `X-Content-Type-Options: nosniff` and `Cache-Control: no-store`: an answer
/// that holds a person's data or a secret is kept in no cache, shared or
/// private. An event stream and a file download keep the caching they set.
fn api_caching(path: &str, response: &mut Response) {
    if !path.starts_with("/api/") {
        return;
    }
    let route = response.extensions().get::<RouteTemplate>().map(|t| t.0);
    let own = route.is_some_and(|r| OWN_CACHING.contains(&r))
        && response.status().is_success()
        && response.headers().contains_key(CACHE_CONTROL);
    let h = response.headers_mut();
    h.insert(X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    if !own {
        h.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    }
}

/// The answer given before any route runs: a refused cross-origin write, or a
/// preflight. `None` lets the request through to the routes.
fn before_routing(
    method: &Method,
    path: &str,
    headers: &HeaderMap,
    origins: &AllowedOrigins,
) -> Option<Response> {
    let origin = header(headers, ORIGIN.as_str());
    if method == Method::OPTIONS {
        let (template, methods) = crate::routes::table().allow(path)?;
        let preflight = headers.contains_key(ACCESS_CONTROL_REQUEST_METHOD);
        let response = match origin {
            Some(o) if preflight && !origins.contains(o) => cross_origin(format!(
                "the origin {o} may not call this API from a browser: list it in \
                 --allowed-origins (BOARD_ALLOWED_ORIGINS)"
            )),
            Some(_) if preflight => {
                let mut r = StatusCode::NO_CONTENT.into_response();
                let h = r.headers_mut();
                set(h, ACCESS_CONTROL_ALLOW_METHODS.as_str(), methods);
                set(h, ACCESS_CONTROL_ALLOW_HEADERS.as_str(), ALLOWED_HEADERS);
                h.insert(ACCESS_CONTROL_MAX_AGE, HeaderValue::from(MAX_AGE_SECONDS));
                r
            }
            // A plain OPTIONS: the methods of the route (RFC 9110).
            _ => {
                let mut r = StatusCode::NO_CONTENT.into_response();
                set(r.headers_mut(), ALLOW.as_str(), methods);
                r
            }
        };
        return Some(labelled(response, Some(template)));
    }
    let writes = matches!(
        *method,
        Method::POST | Method::PATCH | Method::PUT | Method::DELETE
    );
    // A sign-in sets the cookie: it is checked as a cookie write is (§23).
    // Judged by the route the table matches, never by the spelling of the path.
    let template = crate::routes::table().allow(path).map(|(t, _)| t);
    let signs_in = *method == Method::POST && template.is_some_and(|t| SIGN_IN_PATHS.contains(&t));
    let by_cookie = !headers.contains_key(AUTHORIZATION) && session_cookie(headers).is_some();
    if !writes || !(by_cookie || signs_in) {
        return None;
    }
    let (what, or_else) = match signs_in {
        true => (format!("a sign-in ({method} {path})"), ""),
        false => (
            format!("a {method} with the {SESSION_COOKIE} cookie"),
            ", or authenticate with the Authorization header",
        ),
    };
    // Several Origin headers (which no browser sends) are refused: judging
    // by the first would let a forged second one pass (api.md §21).
    if headers.get_all(ORIGIN).iter().count() > 1 {
        let refusal = cross_origin(format!(
            "{what} with several Origin headers is refused: send one Origin, from this \
             server's own origin or one listed in --allowed-origins{or_else}"
        ));
        return Some(labelled(refusal, template));
    }
    let refusal = match origin {
        Some(o) if !same_origin(o, headers) && !origins.contains(o) => Some(cross_origin(format!(
            "{what} from the origin {o} is refused: send it from this server's own origin \
             or one listed in --allowed-origins{or_else}"
        ))),
        None if header(headers, "sec-fetch-site") == Some("cross-site") => {
            Some(cross_origin(format!(
                "{what} from another site (Sec-Fetch-Site: cross-site) is refused: send it \
                 from this server's own origin or one listed in --allowed-origins{or_else}"
            )))
        }
        _ => None,
    }?;
    Some(labelled(refusal, template))
}

/// A reply answered before routing, labelled with the route template of its
/// path for the request log and the metrics (`other` when there is none).
fn labelled(mut response: Response, template: Option<&'static str>) -> Response {
    if let Some(t) = template {
        response.extensions_mut().insert(RouteTemplate(t));
    }
    response
}

/// The CORS headers of a response to an allowed origin; `Vary: Origin` on
/// every response once origins are configured (the answer depends on it).
fn decorate(headers: &HeaderMap, response: &mut Response, origins: &AllowedOrigins) {
    if origins.0.is_empty() {
        return;
    }
    let h = response.headers_mut();
    h.append(VARY, HeaderValue::from_static("Origin"));
    let Some(origin) = header(headers, ORIGIN.as_str()).filter(|o| origins.contains(o)) else {
        return;
    };
    set(h, ACCESS_CONTROL_ALLOW_ORIGIN.as_str(), origin);
    h.insert(
        ACCESS_CONTROL_ALLOW_CREDENTIALS,
        HeaderValue::from_static("true"),
    );
    h.insert(
        ACCESS_CONTROL_EXPOSE_HEADERS,
        HeaderValue::from_static(EXPOSED_HEADERS),
    );
}

/// The response headers a browser client may read beyond the safe ones: the
/// request id and the entity tag of a conditional read (api.md §22).
pub const EXPOSED_HEADERS: &str = "etag, x-request-id";

/// True when `origin` names the server itself: its authority is the
/// request's `Host` (the scheme is the proxy's business, so it is not compared).
fn same_origin(origin: &str, headers: &HeaderMap) -> bool {
    let authority = origin
        .strip_prefix("https://")
        .or_else(|| origin.strip_prefix("http://"));
    match (authority, header(headers, HOST.as_str())) {
        (Some(a), Some(host)) => a.eq_ignore_ascii_case(host),
        _ => false,
    }
}

fn header<'h>(headers: &'h HeaderMap, name: &str) -> Option<&'h str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

fn set(headers: &mut HeaderMap, name: &'static str, value: &str) {
    if let Ok(v) = HeaderValue::from_str(value) {
        headers.insert(name, v);
    }
}

/// 403 `CROSS_ORIGIN`.
fn cross_origin(message: String) -> Response {
    let body = ErrorBody {
        error: "CROSS_ORIGIN".to_string(),
        message,
        details: None,
    };
    warp::reply::with_status(warp::reply::json(&body), StatusCode::FORBIDDEN).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::parse_origin;

    fn headers(pairs: &[(&'static str, &str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.append(*k, HeaderValue::from_str(v).unwrap());
        }
        h
    }

    #[test]
    fn origins_parse_and_normalise() {
        assert!(AllowedOrigins::parse(" ").unwrap().0.is_empty());
        let two = AllowedOrigins::parse("https://a.example, http://b.example:81").unwrap();
        assert_eq!(two.0, ["https://a.example", "http://b.example:81"]);
        assert_eq!(
            parse_origin("https://UI.example:8443/").unwrap(),
            "https://ui.example:8443"
        );
        for bad in [
            "ui.example",
            "ftp://x",
            "https://",
            "https://a/b",
            "https://u@a",
        ] {
            assert!(parse_origin(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn cookie_writes_from_foreign_origins_are_refused() {
        let allowed = AllowedOrigins::parse("https://ui.example").unwrap();
        let post = Method::POST;
        let cookie = ("cookie", "a=1; board_session=brd_x");
        let host = ("host", "127.0.0.1:8080");
        let refused = |h: &HeaderMap| before_routing(&post, "/api/cards", h, &allowed).is_some();
        assert!(refused(&headers(&[
            cookie,
            host,
            ("origin", "https://evil.example")
        ])));
        assert!(refused(&headers(&[cookie, host, ("origin", "null")])));
        assert!(refused(&headers(&[
            cookie,
            host,
            ("sec-fetch-site", "cross-site")
        ])));
        assert!(!refused(&headers(&[
            cookie,
            host,
            ("origin", "http://127.0.0.1:8080")
        ])));
        assert!(!refused(&headers(&[
            cookie,
            host,
            ("origin", "https://ui.example")
        ])));
        assert!(!refused(&headers(&[cookie, host])));
        let bearer = ("authorization", "Bearer brd_x");
        assert!(!refused(&headers(&[
            cookie,
            bearer,
            host,
            ("origin", "https://evil.example")
        ])));
        assert!(!refused(&headers(&[
            host,
            ("origin", "https://evil.example")
        ])));
        let get = headers(&[cookie, host, ("origin", "https://evil.example")]);
        assert!(before_routing(&Method::GET, "/api/cards/x", &get, &allowed).is_none());
    }
}
