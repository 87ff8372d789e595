//! api.md §21, uploads: at most `--max-files-per-request` files in one
//! request (413 `TOO_MANY_FILES`, nothing stored), inserts that stay under a
//! backend's bind limit whatever the cap is, and original names shortened to
//! 255 characters keeping their extension.

use crate::uploads::{id, png, rows_in, upload};
use testkit::{self as common, on_both_backends, on_every_store};

/// `n` small text files in the field `files`.
fn texts(n: usize) -> Vec<(&'static str, String, Vec<u8>)> {
    (0..n)
        .map(|i| {
            (
                "files",
                format!("f{i}.txt"),
                format!("file {i}\n").into_bytes(),
            )
        })
        .collect()
}

fn parts<'a>(
    files: &'a [(&'static str, String, Vec<u8>)],
) -> Vec<(&'static str, &'a str, Vec<u8>)> {
    files
        .iter()
        .map(|(f, n, b)| (*f, n.as_str(), b.clone()))
        .collect()
}

on_every_store! {
    async fn the_101st_file_is_413_and_stores_nothing(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Many").await);
        let path = format!("/api/cards/{card}/attachments");
        let hundred = texts(100);
        let r = upload(&app, &app.token, &path, &parts(&hundred)).await;
        assert_eq!(r.status, 201, "100 files is the default maximum: {:?}", r.body);
        assert_eq!(r.body.as_array().unwrap().len(), 100);
        let (files, rows, events) = (
            app.db.stored_files().await,
            rows_in(&app, "attachments").await,
            rows_in(&app, "events").await,
        );
        let images: Vec<_> = (0..101).map(|i| ("files", format!("i{i}.png"), png())).collect();
        for (path, sent) in [(path.clone(), texts(101)), (format!("/api/cards/{card}/comments/uploads"), images)] {
            let r = upload(&app, &app.token, &path, &parts(&sent)).await;
            assert_eq!(r.status, 413, "{:?}", r.body);
            assert_eq!(r.body["error"], "TOO_MANY_FILES");
            let message = r.body["message"].as_str().unwrap();
            assert!(message.contains("at most 100"), "{message}");
            assert_eq!(app.db.stored_files().await, files, "no file left, temporaries included");
            assert_eq!(rows_in(&app, "attachments").await, rows, "no row");
            assert_eq!(rows_in(&app, "events").await, events, "no event");
        }
    }

    async fn the_cap_is_a_setting(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_MAX_FILES_PER_REQUEST", "2")]).await;
        let card = id(&app.card("Few").await);
        let path = format!("/api/cards/{card}/attachments");
        assert_eq!(upload(&app, &app.token, &path, &parts(&texts(2))).await.status, 201);
        let r = upload(&app, &app.token, &path, &parts(&texts(3))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (413, Some("TOO_MANY_FILES")));
        assert!(r.body["message"].as_str().unwrap().contains("at most 2"), "{:?}", r.body);
        assert_eq!(rows_in(&app, "attachments").await, 2);
        assert_eq!(app.db.stored_files().await.len(), 2);
    }

    async fn long_names_keep_255_characters_and_their_extension(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Names").await);
        let path = format!("/api/cards/{card}/attachments");
        let long = format!("{}.txt", "a".repeat(200_000));
        let exact = format!("{}.txt", "n".repeat(251));
        let r = upload(&app, &app.token, &path, &[
            ("files", long.as_str(), b"long\n".to_vec()),
            ("files", exact.as_str(), b"exact\n".to_vec()),
        ]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let short = r.body[0]["originalName"].as_str().unwrap();
        assert_eq!(short.chars().count(), 255);
        assert_eq!(short, format!("{}.txt", "a".repeat(251)));
        assert_eq!(r.body[1]["originalName"], exact, "255 characters are kept whole");
        let url = r.body[0]["url"].as_str().unwrap();
        let res = app.http.get(format!("{}{url}", app.base)).bearer_auth(&app.token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        let disposition = res.headers()["content-disposition"].len();
        assert!(disposition < 4096, "a downloadable Content-Disposition: {disposition} bytes");
    }
}

/// A multipart body built in memory, sent as one piece.
trait RawUpload {
    async fn raw_upload(
        &self,
        path: &str,
        files: &[(&'static str, String, Vec<u8>)],
    ) -> testkit::Res;
}

impl RawUpload for testkit::App {
    async fn raw_upload(
        &self,
        path: &str,
        files: &[(&'static str, String, Vec<u8>)],
    ) -> testkit::Res {
        let boundary = "board-test-boundary-7c1f";
        let mut body = Vec::new();
        for (field, name, bytes) in files {
            body.extend_from_slice(format!(
                "--{boundary}\r\nContent-Disposition: form-data; name=\"{field}\"; filename=\"{name}\"\r\n\
                 Content-Type: application/octet-stream\r\n\r\n"
            ).as_bytes());
            body.extend_from_slice(bytes);
            body.extend_from_slice(b"\r\n");
        }
        body.extend_from_slice(format!("--{boundary}--\r\n").as_bytes());
        let res = self
            .http
            .post(format!("{}{path}", self.base))
            .bearer_auth(&self.token)
            .header(
                "content-type",
                format!("multipart/form-data; boundary={boundary}"),
            )
            .body(body)
            .send()
            .await
            .expect("request");
        let status = res.status().as_u16();
        let body = res.json().await.unwrap_or(serde_json::Value::Null);
        testkit::Res { status, body }
    }
}

on_both_backends! {
    // Found by probing: 8,200 files in one request answered 500 on SQLite
    // ("too many SQL variables": the outbox statement bound four values per
    // file, over SQLite's 32,766). Whatever the cap is set to, the inserts of
    // one request stay under the backend's limit.
    async fn thousands_of_files_stay_under_the_bind_limit(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_MAX_FILES_PER_REQUEST", "9000")]).await;
        let card = id(&app.card("Flood").await);
        let path = format!("/api/cards/{card}/attachments");
        let n = 8_200;
        // One body built here: reqwest's multipart form chains a stream per
        // part, and 8,200 of them overflow a test thread's stack.
        let r = app.raw_upload(&path, &texts(n)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body.as_array().unwrap().len(), n);
        assert_eq!(rows_in(&app, "attachments").await, n as i64);
        let created: i64 = rows_in(&app, "events WHERE type = 'attachment.created'").await;
        assert_eq!(created, n as i64, "one event per file");
    }
}
