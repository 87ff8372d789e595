//! Browser clients (api.md §12): cross-site request forgery refused for
//! cookie-authenticated writes, CORS for the origins of `--allowed-origins`.

use serde_json::{json, Value};

use crate::uploads::{attachment_rows, files_in, id, png};
use common::App;
use testkit::{self as common, on_both_backends};

const UI: &str = "https://ui.example";
const EVIL: &str = "https://evil.example";

async fn app(backend: common::Backend) -> App {
    common::spawn_app_with(backend, &[("BOARD_ALLOWED_ORIGINS", UI)]).await
}

/// A request with the session cookie and extra headers.
async fn with_cookie(
    app: &App,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> common::Res {
    let cookie = format!("board_session={}", app.token);
    let mut all = vec![("cookie", cookie.as_str())];
    all.extend_from_slice(headers);
    app.raw(method, path, &all, body).await
}

async fn comments(app: &App, card: &str) -> Vec<Value> {
    let r = app
        .call("GET", &format!("/api/cards/{card}/comments"), None)
        .await;
    assert_eq!(r.status, 200);
    r.body.as_array().expect("array").clone()
}

/// A response's headers, for the CORS checks.
async fn head(
    app: &App,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
) -> (u16, reqwest::header::HeaderMap) {
    let mut req = app.http.request(
        reqwest::Method::from_bytes(method.as_bytes()).expect("method"),
        format!("{}{path}", app.base),
    );
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    let res = req.send().await.expect("request");
    (res.status().as_u16(), res.headers().clone())
}

/// A multipart upload of one PNG with the session cookie, from `origin`.
async fn cookie_upload(app: &App, path: &str, origin: &str) -> common::Res {
    let part = reqwest::multipart::Part::bytes(png()).file_name("a.png");
    let form = reqwest::multipart::Form::new().part("files", part);
    let res = app
        .http
        .post(format!("{}{path}", app.base))
        .header("cookie", format!("board_session={}", app.token))
        .header("origin", origin)
        .multipart(form)
        .send()
        .await
        .expect("request");
    let status = res.status().as_u16();
    let body = res.json().await.unwrap_or(Value::Null);
    common::Res { status, body }
}

fn header<'h>(h: &'h reqwest::header::HeaderMap, name: &str) -> Option<&'h str> {
    h.get(name).and_then(|v| v.to_str().ok())
}

on_both_backends! {
    async fn cookie_writes_from_other_sites_are_refused(backend) {
        let app = app(backend).await;
        let card = id(&app.card("target").await);
        let path = format!("/api/cards/{card}/comments");
        let body = r#"{"content": "forged"}"#;
        let own = app.base.clone();

        // A page on another site posts JSON as text/plain (no preflight needed).
        let text = ("content-type", "text/plain");
        let r = with_cookie(&app, "POST", &path, &[("origin", EVIL), text], body).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        assert_eq!(r.body["error"], "CROSS_ORIGIN");
        assert!(r.body["message"].as_str().unwrap().contains("--allowed-origins"), "{:?}", r.body);
        let r = with_cookie(&app, "POST", &path, &[("origin", "null"), text], body).await;
        assert_eq!(r.status, 403);
        // No Origin, but the browser says the request is cross-site.
        let r = with_cookie(&app, "POST", &path, &[("sec-fetch-site", "cross-site"), text], body).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "CROSS_ORIGIN");
        // PATCH and DELETE too.
        let card_path = format!("/api/cards/{card}");
        let r = with_cookie(&app, "PATCH", &card_path, &[("origin", EVIL)], r#"{"title": "x"}"#).await;
        assert_eq!(r.status, 403);
        let r = with_cookie(&app, "DELETE", &card_path, &[("origin", EVIL)], "").await;
        assert_eq!(r.status, 403);
        assert!(comments(&app, &card).await.is_empty(), "refusals wrote nothing");
        assert_eq!(app.call("GET", &card_path, None).await.body["title"], "target");

        // The server's own origin, a listed origin, and no origin at all pass.
        let json_type = ("content-type", "application/json");
        for headers in [
            vec![("origin", own.as_str()), json_type],
            vec![("origin", UI), json_type],
            vec![("sec-fetch-site", "same-origin"), json_type],
            vec![json_type],
        ] {
            let r = with_cookie(&app, "POST", &path, &headers, body).await;
            assert_eq!(r.status, 201, "{headers:?}: {:?}", r.body);
        }
        assert_eq!(comments(&app, &card).await.len(), 4);

        // The Authorization header is never refused for its origin.
        let bearer = format!("Bearer {}", app.token);
        let r = app
            .raw("POST", &path, &[("authorization", &bearer), ("origin", EVIL), json_type], body)
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        // Reads with the cookie from anywhere are not checked.
        let r = with_cookie(&app, "GET", &path, &[("origin", EVIL), ("sec-fetch-site", "cross-site")], "").await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body.as_array().unwrap().len(), 5);
    }

    async fn a_foreign_multipart_form_stores_nothing(backend) {
        let app = app(backend).await;
        let card = id(&app.card("target").await);
        for path in [
            format!("/api/cards/{card}/attachments"),
            format!("/api/cards/{card}/comments/uploads"),
        ] {
            // What a plain HTML form on another site sends.
            let r = cookie_upload(&app, &path, EVIL).await;
            assert_eq!(r.status, 403, "{path}");
            assert_eq!(r.body["error"], "CROSS_ORIGIN");
        }
        assert_eq!(attachment_rows(&app).await, 0);
        assert!(files_in(&app.db.files_dir()).is_empty(), "no file written");
        // The same form from the listed origin is stored.
        let r = cookie_upload(&app, &format!("/api/cards/{card}/attachments"), UI).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(attachment_rows(&app).await, 1);
    }

    async fn cors_answers_listed_origins_only(backend) {
        let app = app(backend).await;
        let card = id(&app.card("c").await);
        let path = format!("/api/cards/{card}");
        let preflight = |origin: &'static str| {
            [
                ("origin", origin),
                ("access-control-request-method", "PATCH"),
                ("access-control-request-headers", "authorization, content-type"),
            ]
        };

        let (status, h) = head(&app, "OPTIONS", &path, &preflight(UI)).await;
        assert_eq!(status, 204);
        assert_eq!(header(&h, "access-control-allow-origin"), Some(UI));
        assert_eq!(header(&h, "access-control-allow-methods"), Some("GET, PATCH, DELETE"));
        assert_eq!(
            header(&h, "access-control-allow-headers"),
            Some("authorization, content-type, if-match, if-none-match, last-event-id, x-request-id")
        );
        assert_eq!(header(&h, "access-control-allow-credentials"), Some("true"));
        assert!(header(&h, "access-control-max-age").is_some_and(|s| s.parse::<u32>().unwrap() > 0));
        assert!(h.get_all("vary").iter().any(|v| v == "Origin"), "{h:?}");
        // Every route answers its own methods.
        let (status, h) = head(&app, "OPTIONS", "/api/cards", &preflight(UI)).await;
        assert_eq!(status, 204);
        assert_eq!(header(&h, "access-control-allow-methods"), Some("GET, POST"));

        // An origin not listed gets no Access-Control-Allow-Origin.
        let (status, h) = head(&app, "OPTIONS", &path, &preflight(EVIL)).await;
        assert_eq!(status, 403);
        assert_eq!(header(&h, "access-control-allow-origin"), None);
        assert_eq!(header(&h, "access-control-allow-methods"), None);

        // Actual responses to the listed origin carry the headers, errors too.
        let bearer = format!("Bearer {}", app.token);
        for (p, want) in [(path.as_str(), 200), ("/api/cards/nope", 404)] {
            let (status, h) = head(&app, "GET", p, &[("origin", UI), ("authorization", &bearer)]).await;
            assert_eq!(status, want);
            assert_eq!(header(&h, "access-control-allow-origin"), Some(UI));
            assert_eq!(header(&h, "access-control-allow-credentials"), Some("true"));
            assert_eq!(header(&h, "access-control-expose-headers"), Some("etag, x-request-id"));
            assert!(h.get_all("vary").iter().any(|v| v == "Origin"), "{h:?}");
        }
        let (status, h) = head(&app, "GET", &path, &[("origin", EVIL), ("authorization", &bearer)]).await;
        assert_eq!(status, 200);
        assert_eq!(header(&h, "access-control-allow-origin"), None);
        // A plain OPTIONS names the route's methods.
        let (status, h) = head(&app, "OPTIONS", &path, &[]).await;
        assert_eq!(status, 204);
        assert_eq!(header(&h, "allow"), Some("GET, PATCH, DELETE"));
    }
}

/// Without `--allowed-origins`, no origin gets CORS headers and only the
/// server's own origin may write with the cookie.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn no_origin_is_allowed_by_default() {
    let app = common::spawn_app(common::Backend::Sqlite).await;
    let (status, h) = head(
        &app,
        "OPTIONS",
        "/api/cards",
        &[("origin", UI), ("access-control-request-method", "POST")],
    )
    .await;
    assert_eq!(status, 403);
    assert_eq!(header(&h, "access-control-allow-origin"), None);
    let body = json!({"tenantId": app.tenant, "title": "t"}).to_string();
    let ct = ("content-type", "application/json");
    let r = with_cookie(&app, "POST", "/api/cards", &[("origin", UI), ct], &body).await;
    assert_eq!(r.status, 403);
    let own = app.base.clone();
    let r = with_cookie(&app, "POST", "/api/cards", &[("origin", &own), ct], &body).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
}
