//! The board UI's files as the server serves them (api.md §25): pages with
//! the CSP, `nosniff` and `Referrer-Policy`, `no-cache` and an ETag; assets
//! under a content hash, `immutable`, gzip-compressed for a client that
//! accepts it; `--no-ui` serves the API alone; `/api/` stays JSON.

use reqwest::header::{ACCEPT_ENCODING, CACHE_CONTROL, CONTENT_ENCODING, CONTENT_TYPE, ETAG};
use testkit::{self as common, Backend};

const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
    img-src 'self' blob: data:; connect-src 'self'; frame-ancestors 'none'; \
    base-uri 'none'; form-action 'self'";

fn header(r: &reqwest::Response, name: impl reqwest::header::AsHeaderName) -> &str {
    r.headers()
        .get(name)
        .map_or("", |v| v.to_str().unwrap_or(""))
}

/// `GET base+path`, with the extra headers.
async fn get(base: &str, path: &str, headers: &[(&str, &str)]) -> reqwest::Response {
    let mut request = reqwest::Client::new().get(format!("{base}{path}"));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request.send().await.unwrap()
}

#[tokio::test]
async fn pages_and_assets_are_served_with_their_headers() {
    let app = common::spawn_app(Backend::Sqlite).await;
    let mut page_tag = String::new();
    for path in [
        "/", "/invite", "/reset", "/account", "/w/x", "/w/x/p/y", "/w/x/c/z",
    ] {
        let r = get(&app.base, path, &[]).await;
        assert_eq!(r.status(), 200, "{path}");
        assert_eq!(header(&r, CONTENT_TYPE), "text/html; charset=utf-8");
        assert_eq!(header(&r, "content-security-policy"), CSP);
        assert_eq!(header(&r, "x-content-type-options"), "nosniff");
        assert_eq!(header(&r, "referrer-policy"), "same-origin");
        assert_eq!(header(&r, CACHE_CONTROL), "no-cache");
        page_tag = header(&r, ETAG).to_string();
        assert!(page_tag.starts_with('"'), "{path}: {page_tag}");
    }
    let r = get(&app.base, "/w/x", &[("If-None-Match", &page_tag)]).await;
    assert_eq!(r.status(), 304);

    // The page names its assets under one hash; each is immutable and compressed.
    let html = get(&app.base, "/", &[]).await.text().await.unwrap();
    let start = html.find("src=\"/assets/").expect("the script's link") + 5;
    let script = &html[start..start + html[start..].find('"').unwrap()];
    assert!(script.ends_with("/js/app.js"), "{script}");
    let r = get(&app.base, script, &[(ACCEPT_ENCODING.as_str(), "gzip, br")]).await;
    assert_eq!(r.status(), 200);
    assert_eq!(header(&r, CONTENT_TYPE), "text/javascript; charset=utf-8");
    assert_eq!(header(&r, CONTENT_ENCODING), "gzip");
    assert_eq!(
        header(&r, CACHE_CONTROL),
        "public, max-age=31536000, immutable"
    );
    assert_eq!(header(&r, "x-content-type-options"), "nosniff");
    let zipped = r.bytes().await.unwrap();
    assert_eq!(&zipped[..2], &[0x1f, 0x8b], "a gzip stream");
    let plain = get(&app.base, script, &[]).await;
    assert_eq!(header(&plain, CONTENT_ENCODING), "");
    assert!(plain.text().await.unwrap().contains("import"));
    // Another hash, or a file that is not there: 404, JSON.
    let stale = script.replacen("/assets/", "/assets/0000", 1);
    for path in [stale.as_str(), "/assets/x/js/app.js", "/nothing-here"] {
        let r = get(&app.base, path, &[]).await;
        assert_eq!(r.status(), 404, "{path}");
        assert_eq!(header(&r, CONTENT_TYPE), "application/json", "{path}");
    }
    // The API keeps answering JSON, and writes to a page path are not the UI's.
    assert_eq!(get(&app.base, "/api/me", &[]).await.status(), 401);
    let r = reqwest::Client::new()
        .post(format!("{}/w/x", app.base))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
}

#[tokio::test]
async fn no_ui_serves_the_api_alone() {
    let app = common::spawn_app_with(Backend::Sqlite, &[("BOARD_UI", "off")]).await;
    for path in ["/", "/w/x", "/invite"] {
        let r = get(&app.base, path, &[]).await;
        assert_eq!(r.status(), 404, "{path}");
        assert_eq!(header(&r, CONTENT_TYPE), "application/json");
    }
    assert_eq!(get(&app.base, "/healthz", &[]).await.status(), 200);
}
