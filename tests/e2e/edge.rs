//! The HTTP edge (docs/decisions.md, and `board-server/src/proxy.rs`): the
//! client address behind proxies, exact route matching, JSON bodies only as
//! JSON, and no caching of the API's answers.

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const PASSWORD: &str = "correct horse battery staple";
const EVIL: &str = "https://evil.example";

/// Gives `admin` the password [`PASSWORD`], as the operator.
async fn admin_password(app: &common::App) {
    let admin = app.operator().admin();
    let account = admin.find_account("admin").await.unwrap();
    admin.set_password(&account.id, PASSWORD).await.unwrap();
}

/// `POST /api/session` as `admin` with `password` and each `X-Forwarded-For`
/// of `xff` as its own header: the status.
async fn sign_in(app: &common::App, xff: &[&str], password: &str) -> u16 {
    let mut req = app
        .http
        .post(format!("{}/api/session", app.base))
        .json(&json!({"name": "admin", "password": password}));
    for value in xff {
        req = req.header("x-forwarded-for", *value);
    }
    req.send().await.expect("sign-in").status().as_u16()
}

/// A request written byte for byte on its own connection (no client library
/// normalises the path): the status, the head in lower case, and the body.
async fn raw(app: &common::App, request: &str) -> (u16, String, String) {
    let addr = app.base.trim_start_matches("http://");
    let mut stream = tokio::net::TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.ok();
    let answer = String::from_utf8_lossy(&answer).to_string();
    let (head, body) = answer.split_once("\r\n\r\n").unwrap_or((&answer, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (status, head.to_ascii_lowercase(), body.to_string())
}

/// `POST path` with `headers` and `body`, on its own connection.
async fn post(
    app: &common::App,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> (u16, String, String) {
    let host = app.base.trim_start_matches("http://");
    let mut request = format!("POST {path} HTTP/1.1\r\nhost: {host}\r\nconnection: close\r\n");
    for (k, v) in headers {
        request.push_str(&format!("{k}: {v}\r\n"));
    }
    request.push_str(&format!("content-length: {}\r\n\r\n{body}", body.len()));
    raw(app, &request).await
}

async fn card_count(app: &common::App) -> usize {
    let r = app
        .call("GET", &format!("/api/board?tenant={}", app.tenant), None)
        .await;
    let columns = r.body["columns"].as_array().expect("the board's columns");
    columns
        .iter()
        .map(|c| c["cards"].as_array().expect("cards").len())
        .sum()
}

on_both_backends! {
    // With --trust-proxy the right-most entry of the last header is the
    // client: whatever a client writes to its left counts for nothing.
    async fn behind_a_proxy_a_client_cannot_pick_its_address(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        admin_password(&app).await;
        // The attacker is 10.0.0.1 (what the proxy appended); it forges the
        // victim's 10.0.0.2 in front, a different way each time.
        let forged: [&[&str]; 5] = [
            &["10.0.0.2, 10.0.0.1"],
            &["10.0.0.2,10.0.0.1"],
            &["10.0.0.2, 6.6.6.6, 10.0.0.1"],
            &["10.0.0.2", "10.0.0.1"],
            &["10.0.0.2, 7.7.7.7", "8.8.8.8, 10.0.0.1"],
        ];
        for xff in forged {
            assert_eq!(sign_in(&app, xff, "wrong password").await, 401, "{xff:?}");
        }
        assert_eq!(sign_in(&app, &["9.9.9.9, 10.0.0.1"], PASSWORD).await, 429, "the attacker is counted as itself");
        assert_eq!(sign_in(&app, &["10.0.0.2"], PASSWORD).await, 200, "the victim is not locked out");
    }

    // An entry that is not an IP address is never the client: the peer is.
    async fn a_forwarded_for_that_is_no_address_counts_as_the_peer(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        admin_password(&app).await;
        let long = "a".repeat(5000);
        let garbage: [&[&str]; 5] = [&["not-an-ip"], &[&long], &["10.0.0.9, not-an-ip"], &["10.0.0.9", "1.2.3.4:80"], &["10.0.0.9,"]];
        for xff in garbage {
            assert_eq!(sign_in(&app, xff, "wrong password").await, 401, "{xff:?}");
        }
        assert_eq!(sign_in(&app, &[], PASSWORD).await, 429, "all five counted under the peer");
        assert_eq!(sign_in(&app, &["10.0.0.9"], PASSWORD).await, 200);
    }

    // With --trusted-proxies, listed proxies are skipped from the right, and
    // the header counts only from a listed peer.
    async fn trusted_proxies_are_skipped_and_only_they_are_believed(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUSTED_PROXIES", "127.0.0.1, 10.0.0.0/8")]).await;
        admin_password(&app).await;
        for i in 0..5 {
            let xff = format!("203.0.113.{i}, 198.51.100.1, 10.0.0.{i}");
            assert_eq!(sign_in(&app, &[&xff], "wrong password").await, 401);
        }
        assert_eq!(sign_in(&app, &["198.51.100.1"], PASSWORD).await, 429);
        assert_eq!(sign_in(&app, &["198.51.100.1, 10.9.9.9"], PASSWORD).await, 429);
        assert_eq!(sign_in(&app, &["198.51.100.2, 10.0.0.1"], PASSWORD).await, 200);

        // The test client (127.0.0.1) is no listed proxy here: the peer counts.
        let app = common::spawn_app_with(backend, &[("BOARD_TRUSTED_PROXIES", "10.0.0.0/8")]).await;
        admin_password(&app).await;
        for i in 0..5 {
            let xff = format!("203.0.113.{i}");
            assert_eq!(sign_in(&app, &[&xff], "wrong password").await, 401);
        }
        assert_eq!(sign_in(&app, &["198.51.100.7"], PASSWORD).await, 429);
    }

    // Every route is matched exactly: no other spelling of a path reaches it,
    // so no check keyed on the path is walked around.
    async fn only_the_exact_path_reaches_a_route(backend) {
        let app = common::spawn_app(backend).await;
        admin_password(&app).await;
        app.card("already there").await;
        let body = json!({"name": "admin", "password": PASSWORD}).to_string();
        let spellings = [
            "/api/session/", "/api/session//", "//api/session", "/api//session",
            "/api/./session", "/api/x/../session", "/api/%2e%2e/api/session", "/api/%2E/session",
            "/api%2Fsession", "/api%2fsession", "/api/invitations/accept/", "/api/password-reset/",
        ];
        for path in spellings {
            for origin in [EVIL, app.base.as_str()] {
                let (status, head, body) = post(&app, path, &[("origin", origin), ("content-type", "application/json")], &body).await;
                assert_eq!(status, 404, "{path} from {origin}: {head}");
                assert!(!head.contains("set-cookie"), "{path}: {head}");
                assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["error"], "NOT_FOUND");
            }
        }
        let token = format!("Bearer {}", app.token);
        let create = json!({"tenantId": app.tenant, "title": "x"}).to_string();
        for path in ["/api/cards/", "/api//cards", "/api/./cards"] {
            let (status, ..) = post(&app, path, &[("authorization", &token), ("content-type", "application/json")], &create).await;
            assert_eq!(status, 404, "{path}");
        }
        assert_eq!(card_count(&app).await, 1, "nothing was created");
        let (status, head, _) = post(&app, "/api/session", &[("origin", app.base.as_str()), ("content-type", "application/json")], &body).await;
        assert_eq!(status, 200, "the route itself: {head}");
    }

    // A JSON route takes its body only as JSON; a form or text/plain (which a
    // page on another site can send without a preflight) is 415 and changes
    // nothing, after the cross-origin check.
    async fn a_json_route_takes_only_a_json_body(backend) {
        let app = common::spawn_app(backend).await;
        admin_password(&app).await;
        app.card("already there").await;
        let own = app.base.clone();
        let creds = json!({"name": "admin", "password": PASSWORD}).to_string();
        let refused = [
            Some("text/plain"), Some("text/plain;charset=UTF-8"), Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"), Some("application/jsonx"), Some("json"),
            Some("application/+json"), Some("text/json;"), Some(""), None,
        ];
        for content_type in refused {
            let mut headers = vec![("origin", own.as_str())];
            headers.extend(content_type.map(|t| ("content-type", t)));
            let (status, head, body) = post(&app, "/api/session", &headers, &creds).await;
            assert_eq!(status, 415, "{content_type:?}: {head}");
            assert!(!head.contains("set-cookie"), "{content_type:?}");
            assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["error"], "UNSUPPORTED_MEDIA_TYPE");
        }
        // Two Content-Type headers are refused too.
        let (status, ..) = post(&app, "/api/session", &[("content-type", "application/json"), ("content-type", "text/plain")], &creds).await;
        assert_eq!(status, 415);
        for content_type in ["application/json", "application/json; charset=utf-8", "APPLICATION/JSON", "application/merge-patch+json"] {
            let (status, head, _) = post(&app, "/api/session", &[("origin", own.as_str()), ("content-type", content_type)], &creds).await;
            assert_eq!(status, 200, "{content_type}: {head}");
        }
        // The cross-origin check comes first.
        let (status, _, body) = post(&app, "/api/session", &[("origin", EVIL), ("content-type", "text/plain")], &creds).await;
        assert_eq!((status, serde_json::from_str::<Value>(&body).unwrap()["error"].as_str()), (403, Some("CROSS_ORIGIN")));

        // A write with a bearer token: refused, nothing created; with the
        // credential checked first (401 before 415).
        let token = format!("Bearer {}", app.token);
        let create = json!({"tenantId": app.tenant, "title": "x"}).to_string();
        for content_type in ["text/plain", "application/x-www-form-urlencoded"] {
            let (status, ..) = post(&app, "/api/cards", &[("authorization", &token), ("content-type", content_type)], &create).await;
            assert_eq!(status, 415, "{content_type}");
        }
        let (status, ..) = post(&app, "/api/cards", &[("authorization", "Bearer brd_nope"), ("content-type", "text/plain")], &create).await;
        assert_eq!(status, 401);
        assert_eq!(card_count(&app).await, 1, "nothing was created");
        // No Content-Type and no body is not refused for its type.
        let (status, ..) = post(&app, "/api/cards", &[("authorization", &token)], "").await;
        assert_ne!(status, 415);
    }

    // Every answer under /api/ is kept in no cache and never sniffed; an
    // event stream and a download keep their own caching.
    async fn api_answers_are_never_cached(backend) {
        let app = common::spawn_app(backend).await;
        let token = format!("Bearer {}", app.token);
        let card = app.card("cached").await["id"].as_str().unwrap().to_string();
        let up = app.upload(&app.token, &format!("/api/cards/{card}/attachments"), &[("files", "a.txt", b"plain text\n".to_vec())]).await;
        assert_eq!(up.status, 201, "{:?}", up.body);
        let stored = up.body[0]["storedName"].as_str().unwrap().to_string();
        let get = |path: String, auth: bool| {
            let mut req = app.http.get(format!("{}{path}", app.base));
            if auth {
                req = req.header("authorization", &token);
            }
            async move { req.send().await.expect("request") }
        };
        let no_store = |res: &reqwest::Response, what: &str| {
            let h = res.headers();
            assert_eq!(h.get("cache-control").and_then(|v| v.to_str().ok()), Some("no-store"), "{what}: {h:?}");
            assert_eq!(h.get("x-content-type-options").and_then(|v| v.to_str().ok()), Some("nosniff"), "{what}");
        };
        for (path, auth, status) in [
            ("/api/me".to_string(), true, 200),
            (format!("/api/cards/{card}"), true, 200),
            ("/api/me".to_string(), false, 401),
            ("/api/nope".to_string(), true, 404),
            ("/api/me/".to_string(), true, 404),
            ("/api/columns/order".to_string(), true, 405),
            (format!("/api/files/{stored}"), false, 401),
            ("/api/files/nope.txt".to_string(), true, 404),
            ("/api/events".to_string(), true, 422),
        ] {
            let res = get(path.clone(), auth).await;
            assert_eq!(res.status().as_u16(), status, "{path}");
            no_store(&res, &path);
        }
        let res = app.http.post(format!("{}/api/cards", app.base)).header("authorization", &token)
            .header("content-type", "text/plain").body("{}").send().await.unwrap();
        assert_eq!(res.status().as_u16(), 415);
        no_store(&res, "415");
        let res = app.http.request(reqwest::Method::OPTIONS, format!("{}/api/cards", app.base)).send().await.unwrap();
        no_store(&res, "OPTIONS");

        let file = get(format!("/api/files/{stored}"), true).await;
        assert_eq!(file.status().as_u16(), 200);
        assert_eq!(file.headers()["cache-control"], "private, max-age=31536000, immutable");
        let events = get(format!("/api/events?tenant={}", app.tenant), true).await;
        assert_eq!(events.status().as_u16(), 200);
        assert_eq!(events.headers()["cache-control"], "no-cache");
        assert_eq!(events.headers()["x-content-type-options"], "nosniff");
        drop(events);
        // The UI's pages keep theirs; hyper's own errors get the same headers.
        let page = get("/".to_string(), false).await;
        assert_ne!(page.headers().get("cache-control").map(|v| v.to_str().unwrap()), Some("no-store"));
        let (status, head, _) = raw(&app, "GARBAGE\r\n\r\n").await;
        assert_eq!(status, 400, "{head}");
        assert!(head.contains("cache-control: no-store") && head.contains("x-content-type-options: nosniff"), "{head}");
    }
}
