//! api.md §21, connections: clients that send slowly, stall or hold
//! sockets, over real sockets. The timeouts are shortened with the server's
//! hidden settings (`BOARD_HEADER_TIMEOUT`, `BOARD_BODY_TIMEOUT`,
//! `BOARD_IDLE_TIMEOUT`); board-server/tests/server.rs checks the defaults
//! on the binary. Also: the JSON body of the errors hyper answers itself,
//! several `Origin` headers, and the headers of downloads and event streams.

use std::time::Duration;

use serde_json::Value;
use testkit::{self as common, on_both_backends, App};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use crate::uploads::{id, png, rows_in, upload};

/// Short timeouts: a head in 1 s, a body gap of 1 s, 3 s idle.
const SHORT: &[(&str, &str)] = &[
    ("BOARD_HEADER_TIMEOUT", "1s"),
    ("BOARD_BODY_TIMEOUT", "1s"),
    ("BOARD_IDLE_TIMEOUT", "3s"),
];

async fn connect(app: &App) -> TcpStream {
    TcpStream::connect(app.base.trim_start_matches("http://"))
        .await
        .expect("connect")
}

/// How long until the server closed `s` (a read gives end of file or an
/// error), counted from `from`; `None` when it is still open at `from + within`.
/// What the server sends before closing is collected in `seen`.
async fn closed(
    s: &mut TcpStream,
    from: Instant,
    within: Duration,
    seen: &mut Vec<u8>,
) -> Option<Duration> {
    let mut buf = [0u8; 8192];
    loop {
        match tokio::time::timeout_at(from + within, s.read(&mut buf)).await {
            Err(_) => return None,
            Ok(Ok(0)) | Ok(Err(_)) => return Some(from.elapsed()),
            Ok(Ok(n)) => seen.extend_from_slice(&buf[..n]),
        }
    }
}

/// Sends `request` on a new connection and reads the answer to the end (the
/// server closes the connection after these answers): status, headers, body.
async fn exchange(app: &App, request: &[u8]) -> (u16, String, Value) {
    let mut s = connect(app).await;
    s.write_all(request).await.expect("write");
    let mut seen = Vec::new();
    closed(&mut s, Instant::now(), Duration::from_secs(10), &mut seen)
        .await
        .expect("the server answers and closes");
    let text = String::from_utf8_lossy(&seen).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head.get(9..12).and_then(|s| s.parse().ok()).unwrap_or(0);
    (
        status,
        head.to_ascii_lowercase(),
        serde_json::from_str(body).unwrap_or(Value::Null),
    )
}

/// Reads one answer (head and `Content-Length` bytes of body) on a
/// kept-alive `s`.
async fn read_answer(s: &mut TcpStream) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let text = String::from_utf8_lossy(&seen).to_string();
        if let Some((head, body)) = text.split_once("\r\n\r\n") {
            let length: usize = head
                .lines()
                .find_map(|l| {
                    l.to_ascii_lowercase()
                        .strip_prefix("content-length: ")
                        .map(str::to_string)
                })
                .and_then(|v| v.trim().parse().ok())
                .expect("a Content-Length");
            if body.len() >= length {
                return;
            }
        }
        let n = tokio::time::timeout(Duration::from_secs(5), s.read(&mut buf))
            .await
            .expect("an answer")
            .expect("read");
        assert!(n > 0, "closed before answering: {text}");
        seen.extend_from_slice(&buf[..n]);
    }
}

on_both_backends! {
    async fn a_head_not_complete_in_time_is_closed(backend) {
        let app = common::spawn_app_with(backend, SHORT).await;
        // Nothing at all: the first head counts from the opening.
        let mut silent = connect(&app).await;
        let took = closed(&mut silent, Instant::now(), Duration::from_secs(4), &mut Vec::new()).await;
        let took = took.expect("a silent connection is closed");
        assert!(took >= Duration::from_millis(900), "closed after {took:?}, before the timeout");
        // One byte every 200 ms: the head never completes in 1 s.
        let mut drip = connect(&app).await;
        let from = Instant::now();
        let (mut reader, mut writer) = drip.split();
        let dripping = async {
            for b in b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: abcdefghijklmnopqrstuvwxyz" {
                if writer.write_all(&[*b]).await.is_err() {
                    return;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        let mut buf = [0u8; 1024];
        let closing = async {
            loop {
                match reader.read(&mut buf).await {
                    Ok(0) | Err(_) => return from.elapsed(),
                    Ok(_) => {}
                }
            }
        };
        let took = tokio::select! {
            took = closing => took,
            () = async { dripping.await; std::future::pending::<()>().await } => unreachable!(),
            () = tokio::time::sleep(Duration::from_secs(4)) => panic!("a dripped head is not closed"),
        };
        assert!(took < Duration::from_secs(3), "closed after {took:?}");
        // The server still answers.
        assert_eq!(app.call("GET", "/healthz", None).await.status, 200);
    }

    async fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout(backend) {
        let app = common::spawn_app_with(backend, SHORT).await;
        let mut s = connect(&app).await;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
        read_answer(&mut s).await;
        let idle_from = Instant::now();
        // Past the head timeout (1 s), still open: idling has its own timeout.
        tokio::time::sleep(Duration::from_millis(1800)).await;
        s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n").await.unwrap();
        read_answer(&mut s).await;
        let idle_from2 = Instant::now();
        assert!(idle_from2 - idle_from >= Duration::from_millis(1800));
        let took = closed(&mut s, idle_from2, Duration::from_secs(6), &mut Vec::new()).await;
        let took = took.expect("an idle connection is closed");
        assert!(took >= Duration::from_millis(2800), "closed after {took:?}, before the idle timeout");
    }

    async fn a_stalled_upload_is_cut_off_and_leaves_nothing(backend) {
        let app = common::spawn_app_with(backend, SHORT).await;
        let card = id(&app.card("Stalled").await);
        let events = rows_in(&app, "events").await;
        let boundary = "stall-boundary";
        let mut s = connect(&app).await;
        let head = format!(
            "POST /api/cards/{card}/attachments HTTP/1.1\r\nHost: x\r\n\
             Authorization: Bearer {}\r\nContent-Type: multipart/form-data; boundary={boundary}\r\n\
             Content-Length: 1000000\r\n\r\n\
             --{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.png\"\r\n\
             Content-Type: image/png\r\n\r\n",
            app.token
        );
        s.write_all(head.as_bytes()).await.unwrap();
        s.write_all(&png()).await.unwrap();
        s.write_all(&[0u8; 20_000]).await.unwrap();
        let stalled = Instant::now();
        // The file is being written: its temporary exists.
        tokio::time::sleep(Duration::from_millis(400)).await;
        let during = app.db.stored_files().await;
        assert_eq!(during.len(), 1, "one temporary while the upload runs: {during:?}");
        let mut seen = Vec::new();
        let took = closed(&mut s, stalled, Duration::from_secs(5), &mut seen).await;
        let took = took.expect("a stalled upload is cut off");
        assert!(took >= Duration::from_millis(900), "cut off after {took:?}");
        assert!(app.db.stored_files().await.is_empty(), "no file, no temporary");
        assert_eq!(rows_in(&app, "attachments").await, 0, "no row");
        assert_eq!(rows_in(&app, "events").await, events, "no event");
        // The same upload sent whole is stored.
        let path = format!("/api/cards/{card}/attachments");
        assert_eq!(upload(&app, &app.token, &path, &[("files", "a.png", png())]).await.status, 201);
    }

    async fn past_max_connections_new_ones_are_closed_at_once(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_MAX_CONNECTIONS", "5")]).await;
        let mut held = Vec::new();
        for _ in 0..5 {
            let mut s = connect(&app).await;
            s.write_all(b"GET /healthz HTTP/1.1\r\n").await.unwrap();
            held.push(s);
        }
        tokio::time::sleep(Duration::from_millis(200)).await;
        let mut extra = connect(&app).await;
        let took = closed(&mut extra, Instant::now(), Duration::from_secs(2), &mut Vec::new()).await;
        assert!(took.is_some(), "the sixth connection is closed at once");
        held.pop();
        tokio::time::sleep(Duration::from_millis(200)).await;
        let res = reqwest::Client::new().get(format!("{}/healthz", app.base)).send().await.unwrap();
        assert_eq!(res.status(), 200, "a freed place is taken again");
    }

    async fn healthz_answers_while_1500_connections_are_held(backend) {
        let app = common::spawn_app(backend).await;
        let mut held = Vec::new();
        for i in 0..1_500 {
            let mut s = connect(&app).await;
            // Half of them silent, half with half a head.
            if i % 2 == 0 {
                s.write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\n").await.unwrap();
            }
            held.push(s);
        }
        let started = Instant::now();
        let res = reqwest::Client::new().get(format!("{}/healthz", app.base)).send().await.unwrap();
        let took = started.elapsed();
        assert_eq!(res.status(), 200);
        assert!(took < Duration::from_secs(1), "/healthz took {took:?} with 1,500 sockets held");
        drop(held);
    }

    async fn errors_hyper_answers_itself_have_the_json_body(backend) {
        let app = common::spawn_app(backend).await;
        let long_uri = format!("GET /{} HTTP/1.1\r\nHost: x\r\n\r\n", "a".repeat(70_000));
        let many_headers = format!(
            "GET /healthz HTTP/1.1\r\nHost: x\r\n{}\r\n",
            (0..120).map(|i| format!("X-H{i}: v\r\n")).collect::<String>()
        );
        for (request, status, code) in [
            (long_uri.into_bytes(), 414, "URI_TOO_LONG"),
            (many_headers.into_bytes(), 431, "HEADERS_TOO_LARGE"),
            (b"GET /healthz HTTP/1.1\r\nHo\x01st: x\r\n\r\n".to_vec(), 400, "BAD_REQUEST"),
            (b"NOT HTTP AT ALL\r\n\r\n".to_vec(), 400, "BAD_REQUEST"),
        ] {
            let (got, head, body) = exchange(&app, &request).await;
            assert_eq!(got, status, "{head}");
            assert!(head.contains("content-type: application/json"), "{head}");
            assert_eq!(body["error"], code, "{head}");
            assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
        }
        assert_eq!(app.call("GET", "/healthz", None).await.status, 200);
    }

    async fn a_cookie_write_with_several_origins_is_cross_origin(backend) {
        let app = common::spawn_app(backend).await;
        let cards = rows_in(&app, "cards").await;
        let host = app.base.trim_start_matches("http://").to_string();
        let own = format!("http://{host}");
        let body = format!(r#"{{"tenantId":"{}","title":"forged"}}"#, app.tenant);
        for origins in [[own.as_str(), "https://evil.example"], ["https://evil.example", own.as_str()], [own.as_str(), own.as_str()]] {
            let request = format!(
                "POST /api/cards HTTP/1.1\r\nHost: {host}\r\nCookie: board_session={}\r\n\
                 Origin: {}\r\nOrigin: {}\r\nContent-Type: application/json\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
                app.token, origins[0], origins[1], body.len()
            );
            let (status, head, answer) = exchange(&app, request.as_bytes()).await;
            assert_eq!(status, 403, "{origins:?}: {head}");
            assert_eq!(answer["error"], "CROSS_ORIGIN");
        }
        assert_eq!(rows_in(&app, "cards").await, cards, "nothing created");
        // One Origin, the server's own: accepted.
        let request = format!(
            "POST /api/cards HTTP/1.1\r\nHost: {host}\r\nCookie: board_session={}\r\n\
             Origin: {own}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            app.token, body.len()
        );
        assert_eq!(exchange(&app, request.as_bytes()).await.0, 201);
    }

    async fn downloads_and_event_streams_carry_their_headers(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Headers").await);
        let r = upload(&app, &app.token, &format!("/api/cards/{card}/attachments"), &[("files", "a.png", png())]).await;
        let url = r.body[0]["url"].as_str().unwrap().to_string();
        let res = app.http.get(format!("{}{url}", app.base)).bearer_auth(&app.token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let h = res.headers();
        assert_eq!(h["content-security-policy"], "default-src 'none'; sandbox");
        assert_eq!(h["cache-control"], "private, max-age=31536000, immutable");
        assert_eq!(h["x-content-type-options"], "nosniff");
        let res = app
            .http
            .get(format!("{}/api/events?tenant={}", app.base, app.tenant))
            .bearer_auth(&app.token)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status(), 200);
        let h = res.headers();
        assert_eq!(h["content-type"], "text/event-stream");
        assert_eq!(h["cache-control"], "no-cache");
        assert_eq!(h["x-accel-buffering"], "no");
    }
}

/// The defaults of api.md §21: what the shortened tests above stand for.
#[tokio::test]
async fn the_defaults_are_the_contracts() {
    let db = common::TestDb::new(common::Backend::Sqlite).await;
    let config = common::config(&db, &[]);
    assert_eq!(config.header_timeout, Duration::from_secs(10));
    assert_eq!(config.body_timeout, Duration::from_secs(30));
    assert_eq!(config.idle_timeout, Duration::from_secs(60));
    assert_eq!(config.max_connections, 10_000);
    assert_eq!(config.max_files_per_request, 100);
}
