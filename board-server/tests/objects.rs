//! Server processes on the object store: a start-up with a bucket that cannot
//! be reached stops with what was tried and what to set; a server killed in the
//! middle of a streaming upload leaves an open multipart upload that the sweep
//! of the next start finds and aborts, and no row was ever written.

use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};

use testkit::process::start_server;
use testkit::{on_the_object_store, TestDb};

const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

on_the_object_store! {
    async fn a_crash_mid_upload_leaves_nothing_once_swept(target) {
        let db = TestDb::new(target).await;
        let mut server = start_server(SERVER, &db, &[]).await;
        let (token, tenant) = testkit::process::first_run(&server.lines).expect("first-run token");
        let http = reqwest::Client::new();
        let card: serde_json::Value = http.post(format!("{}/api/cards", server.base)).bearer_auth(&token)
            .json(&serde_json::json!({"tenantId": tenant, "title": "Crash"}))
            .send().await.unwrap().json().await.unwrap();
        let card = card["id"].as_str().unwrap().to_string();

        // A multipart upload sent over a raw connection: the head of a file
        // part and 6 MiB of it (one 5 MiB part goes to the store), then
        // nothing more, as from a slow client.
        let boundary = "crashboundary";
        let head = format!("--{boundary}\r\nContent-Disposition: form-data; name=\"files\"; filename=\"big.txt\"\r\nContent-Type: text/plain\r\n\r\n");
        let addr = server.base.trim_start_matches("http://").to_string();
        let mut conn = tokio::net::TcpStream::connect(&addr).await.unwrap();
        let request = format!(
            "POST /api/cards/{card}/attachments HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {token}\r\n\
             Content-Type: multipart/form-data; boundary={boundary}\r\nContent-Length: {}\r\n\r\n{head}",
            8 << 20
        );
        conn.write_all(request.as_bytes()).await.unwrap();
        for _ in 0..6 {
            conn.write_all(&vec![b'a'; 1 << 20]).await.unwrap();
        }
        // Wait until the store holds the open upload with its first part.
        let mut seen = Vec::new();
        for _ in 0..100 {
            seen = db.stored_files().await;
            if !seen.is_empty() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(seen.len(), 1, "one open upload: {seen:?}");
        assert!(seen[0].starts_with(".tmp-"), "not an object yet: {seen:?}");
        tokio::time::sleep(Duration::from_millis(500)).await;

        server.child.start_kill().unwrap();
        server.child.wait().await.unwrap();
        let mut answer = Vec::new();
        conn.read_to_end(&mut answer).await.ok();
        assert!(answer.is_empty(), "the upload never finished: {}", String::from_utf8_lossy(&answer));
        assert_eq!(db.stored_files().await, seen, "the crash left the open upload");

        // The next start sweeps (here without the hour of grace an upload in
        // flight gets): the open upload is aborted, and no row exists.
        let again = start_server(SERVER, &db, &[("BOARD_SWEEP_GRACE", "0s")]).await;
        assert_eq!(db.stored_files().await, Vec::<String>::new(), "nothing left once swept");
        let board = db.open().await;
        let card_id = board_core::CardId::parse(&card).unwrap();
        let rows = board.card_attachments(&board_core::Actor::Operator, &card_id).await.unwrap();
        assert!(rows.is_empty(), "no row: {rows:?}");
        board.close().await;
        drop(again);
    }
}

on_the_object_store! {
    async fn an_unreachable_bucket_stops_the_start_with_what_to_set(target) {
        let db = TestDb::new(target).await;
        let missing = format!("s3://missing-{}", cuid2::create_id());
        let refused = "http://127.0.0.1:1";
        for (url, endpoint, why) in [
            (missing.as_str(), None, "the bucket does not exist"),
            (db.files_url.as_deref().unwrap(), Some(refused), "Connection refused"),
        ] {
            let mut cmd = tokio::process::Command::new(SERVER);
            cmd.env("BOARD_DATABASE_URL", &db.url)
                .env("BOARD_FILES_URL", url)
                .env("BOARD_LISTEN", "127.0.0.1:0")
                .stdin(std::process::Stdio::null());
            if let Some(e) = endpoint {
                cmd.env("AWS_ENDPOINT_URL", e);
            }
            let out = tokio::time::timeout(Duration::from_secs(60), cmd.output()).await.unwrap().unwrap();
            assert!(!out.status.success(), "{url}: the server must not start");
            let err = String::from_utf8_lossy(&out.stderr);
            let line = err.lines().last().unwrap_or_default();
            let bucket = url.trim_start_matches("s3://").split('/').next().unwrap();
            let at = endpoint.map(str::to_string).or_else(|| std::env::var("AWS_ENDPOINT_URL").ok()).unwrap();
            for word in [bucket, &at, why, "AWS_ENDPOINT_URL", "AWS_REGION", "AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"] {
                assert!(line.contains(word), "{word:?} missing from {line:?}");
            }
            assert!(!String::from_utf8_lossy(&out.stdout).contains("token"), "no first-run token printed");
        }
    }
}
