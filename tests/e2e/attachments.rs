//! Attachments over HTTP: upload (content detection, all or nothing, limits),
//! list, download headers, delete, the installation switch, access, and the
//! sweep of crash leftovers at start-up (`board gc`: board-cli/tests/cli.rs).

use std::time::{Duration, SystemTime};

use crate::uploads::{files_in, id, pdf, png, upload};
use serde_json::json;
use testkit::{self as common, on_both_backends, on_every_store};

fn stored(v: &serde_json::Value) -> String {
    v["storedName"].as_str().expect("storedName").to_string()
}

/// Writes `name` in `dir`, last modified `age` ago.
fn leftover(dir: &std::path::Path, name: &str, age: Duration) {
    let path = dir.join(name);
    std::fs::write(&path, b"left by a crash").unwrap();
    let f = std::fs::File::options().write(true).open(&path).unwrap();
    f.set_modified(SystemTime::now() - age).unwrap();
}

on_every_store! {
    async fn attach_list_download_delete(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Files").await);
        let path = format!("/api/cards/{card}/attachments");
        let text = "notes: a < b, ü\n".as_bytes().to_vec();
        let r = upload(&app, &app.token, &path, &[
            ("files", "../../etc/passwd.png", png()),
            ("files", "résumé \"final\".pdf", pdf()),
            ("file", "notes.exe", text.clone()),
        ]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let items = r.body.as_array().unwrap();
        let types: Vec<&str> = items.iter().map(|a| a["mimeType"].as_str().unwrap()).collect();
        assert_eq!(types, vec!["image/png", "application/pdf", "text/plain"]);
        assert_eq!(items[0]["originalName"], "../../etc/passwd.png");
        assert_eq!(items[0]["size"], png().len());
        assert_eq!(items[0]["scope"], "CARD");
        for a in items {
            let name = stored(a);
            assert_eq!(name.len(), 24, "generated name {name}");
            assert!(name.bytes().all(|b| b.is_ascii_alphanumeric()));
            assert_eq!(a["url"], format!("/api/files/{name}"));
        }
        assert_eq!(app.db.stored_files().await.len(), 3, "nothing outside the folder");

        let list = app.call("GET", &path, None).await;
        assert_eq!(list.status, 200);
        assert_eq!(&list.body, &r.body);

        let get = |name: String| {
            let req = app.http.get(format!("{}/api/files/{name}", app.base)).bearer_auth(&app.token);
            async move { req.send().await.unwrap() }
        };
        let res = get(stored(&items[0])).await;
        assert_eq!(res.status(), 200);
        let h = res.headers().clone();
        assert_eq!(h["content-type"], "image/png");
        assert_eq!(h["x-content-type-options"], "nosniff");
        assert_eq!(h["content-disposition"], "inline; filename=\"../../etc/passwd.png\"; filename*=UTF-8''..%2F..%2Fetc%2Fpasswd.png");
        assert_eq!(res.bytes().await.unwrap().to_vec(), png());
        let res = get(stored(&items[1])).await;
        assert_eq!(res.headers()["content-type"], "application/pdf");
        assert_eq!(res.headers()["content-disposition"],
            "attachment; filename=\"r_sum_ _final_.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22.pdf");
        assert_eq!(res.bytes().await.unwrap().to_vec(), pdf());
        let res = get(stored(&items[2])).await;
        assert_eq!(res.headers()["content-type"], "text/plain");
        assert!(res.headers()["content-disposition"].to_str().unwrap().starts_with("attachment;"));
        assert_eq!(res.bytes().await.unwrap().to_vec(), text);

        let one = format!("/api/attachments/{}", id(&items[0]));
        let del = app.call("DELETE", &one, None).await;
        assert_eq!(del.status, 200);
        assert_eq!(del.body, json!({"deleted": true}));
        assert!(!app.db.stored_files().await.contains(&stored(&items[0])));
        assert_eq!(get(stored(&items[0])).await.status(), 404);
        assert_eq!(app.call("DELETE", &one, None).await.status, 404);
        assert_eq!(app.call("GET", &path, None).await.body.as_array().unwrap().len(), 2);

        // Deleting the card removes its files too.
        assert_eq!(app.call("DELETE", &format!("/api/cards/{card}"), None).await.status, 200);
        assert!(app.db.stored_files().await.is_empty());
        assert_eq!(crate::uploads::attachment_rows(&app).await, 0);
    }

    async fn refused_formats_store_nothing(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Strict").await);
        let path = format!("/api/cards/{card}/attachments");
        let refused = [
            ("logo.png", crate::uploads::svg()),
            ("page.png", crate::uploads::html()),
            ("run.txt", crate::uploads::script()),
            ("tool.pdf", crate::uploads::elf()),
            ("nul.txt", b"text\0with NUL".to_vec()),
            ("latin1.txt", b"caf\xe9".to_vec()),
            ("data.xml", b"<?xml version=\"1.0\"?><a/>".to_vec()),
        ];
        for (name, bytes) in refused {
            let r = upload(&app, &app.token, &path, &[("files", "ok.png", png()), ("files", name, bytes)]).await;
            assert_eq!(r.status, 415, "{name}: {:?}", r.body);
            assert_eq!(r.body["error"], "UNSUPPORTED_FORMAT");
            let message = r.body["message"].as_str().unwrap();
            assert!(message.contains(&format!("{name:?}")), "{name}: names the file: {message}");
            assert!(
                message.ends_with(
                    "card attachments take image/png, image/jpeg, image/gif, image/webp, application/pdf, \
                     application/zip, Office Open XML documents (docx, xlsx, pptx) and text/plain"
                ),
                "{name}: names the accepted formats: {message}"
            );
            assert!(app.db.stored_files().await.is_empty(), "{name}: no file left");
            assert_eq!(crate::uploads::attachment_rows(&app).await, 0, "{name}: no row left");
        }
        assert_eq!(app.call("GET", &path, None).await.body, json!([]));
    }

    async fn over_the_maximum_is_413_and_stores_nothing(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_MAX_ATTACHMENT_BYTES", "1024")]).await;
        let card = id(&app.card("Big").await);
        let path = format!("/api/cards/{card}/attachments");
        let mut exact = png();
        exact.resize(1024, 0);
        let mut over = exact.clone();
        over.push(0);
        let ok = upload(&app, &app.token, &path, &[("files", "exact.png", exact)]).await;
        assert_eq!(ok.status, 201, "exactly the maximum is fine");
        let before = app.db.stored_files().await;
        assert_eq!(before.len(), 1);
        let mut huge = png();
        huge.resize(8 << 20, 7);
        for parts in [
            vec![("files", "over.png", over.clone())],
            vec![("files", "small.png", png()), ("files", "over.png", over)],
            vec![("files", "huge.png", huge)],
        ] {
            let r = upload(&app, &app.token, &path, &parts).await;
            assert_eq!(r.status, 413, "{:?}", r.body);
            assert_eq!(r.body["error"], "FILE_TOO_LARGE");
            assert_eq!(app.db.stored_files().await, before, "no file left, temporaries included");
            assert_eq!(crate::uploads::attachment_rows(&app).await, 1, "no row left");
        }
        let r = upload(&app, &app.token, &format!("/api/cards/{card}/comments/uploads"), &[("files", "big.png", vec![0x89; 2048])]).await;
        assert_eq!(r.status, 413, "the limit is checked while reading, before the type");
    }

    async fn no_file_or_empty_file_is_400(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Empty").await);
        for path in [format!("/api/cards/{card}/attachments"), format!("/api/cards/{card}/comments/uploads")] {
            let none = upload(&app, &app.token, &path, &[("note", "n.png", png())]).await;
            assert_eq!(none.status, 400, "{:?}", none.body);
            assert_eq!(none.body["error"], "NO_FILE");
            let empty = upload(&app, &app.token, &path, &[("files", "a.png", png()), ("files", "e.png", vec![])]).await;
            assert_eq!(empty.status, 400);
            assert_eq!(empty.body["error"], "NO_FILE");
            let auth = format!("Bearer {}", app.token);
            let json_body = app.raw("POST", &path, &[("authorization", &auth), ("content-type", "application/json")], "{}").await;
            assert_eq!(json_body.status, 400, "not multipart: {:?}", json_body.body);
            assert_eq!(json_body.body["error"], "NO_FILE");
        }
        assert!(app.db.stored_files().await.is_empty());
        assert_eq!(crate::uploads::attachment_rows(&app).await, 0);
    }

    async fn attachments_off_is_403_after_access(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_ATTACHMENTS", "off")]).await;
        let card = id(&app.card("Off").await);
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        for path in [format!("/api/cards/{card}/attachments"), format!("/api/cards/{card}/comments/uploads")] {
            let r = upload(&app, &app.token, &path, &[("files", "a.png", png())]).await;
            assert_eq!(r.status, 403, "{:?}", r.body);
            assert_eq!(r.body["error"], "ATTACHMENTS_DISABLED");
            let r = upload(&app, &app.token, &path, &[]).await;
            assert_eq!(r.body["error"], "ATTACHMENTS_DISABLED", "before the 400");
            let r = upload(&app, &viewer, &path, &[("files", "a.png", png())]).await;
            assert_eq!(r.body["error"], "FORBIDDEN", "the role comes first");
            let missing = path.replace(&card, &cuid2::create_id());
            assert_eq!(upload(&app, &app.token, &missing, &[("files", "a.png", png())]).await.status, 404);
        }
        assert!(app.db.stored_files().await.is_empty());
        let c = app.call("POST", &format!("/api/cards/{card}/comments"), Some(json!({"content": "still fine"}))).await;
        assert_eq!(c.status, 201, "comments work without attachments");
        assert_eq!(app.call("GET", &format!("/api/cards/{card}/attachments"), None).await.status, 200);
    }

    async fn access_for_every_route(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Guarded").await);
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        let path = format!("/api/cards/{card}/attachments");
        let r = upload(&app, &app.token, &path, &[("files", "a.png", png())]).await;
        let (att, name) = (id(&r.body[0]), stored(&r.body[0]));
        let file = format!("/api/files/{name}");
        let one = format!("/api/attachments/{att}");

        for (token, m, p, want) in [
            ("", "GET", &path, 401), ("", "DELETE", &one, 401), ("", "GET", &file, 401),
            (outsider.as_str(), "GET", &path, 403), (outsider.as_str(), "DELETE", &one, 403), (outsider.as_str(), "GET", &file, 403),
            (viewer.as_str(), "DELETE", &one, 403),
            (viewer.as_str(), "GET", &path, 200), (viewer.as_str(), "GET", &file, 200),
        ] {
            let res = app.call_as(token, m, p, None).await;
            assert_eq!(res.status, want, "{m} {p} as {token:?}");
        }
        assert_eq!(upload(&app, "", &path, &[("files", "a.png", png())]).await.status, 401);
        assert_eq!(upload(&app, &outsider, &path, &[("files", "a.png", png())]).await.status, 403);
        assert_eq!(upload(&app, &viewer, &path, &[("files", "a.png", png())]).await.status, 403);
        // 404 before 403, and no client path reaches the file system.
        let unknown = cuid2::create_id();
        for p in [format!("/api/files/{unknown}"), "/api/files/..%2F..%2Fetc%2Fpasswd".to_string(),
                  "/api/files/board.db".to_string(), format!("/api/files/.tmp-{name}"),
                  format!("/api/attachments/{unknown}"), format!("/api/cards/{unknown}/attachments")] {
            let m = if p.starts_with("/api/attachments") { "DELETE" } else { "GET" };
            let res = app.call_as(&outsider, m, &p, None).await;
            assert_eq!(res.status, 404, "{p}");
            assert_eq!(res.body["error"], "NOT_FOUND");
        }
        assert_eq!(app.db.stored_files().await, vec![name]);
    }
}

// What a crash leaves in a folder; the object store's leftovers:
// objects.rs and board-server/tests/crash.rs.
on_both_backends! {
    async fn start_up_sweep_removes_crash_leftovers(backend) {
        let mut app = common::spawn_app(backend).await;
        let card = id(&app.card("Crash").await);
        let kept = upload(&app, &app.token, &format!("/api/cards/{card}/attachments"), &[("files", "k.png", png())]).await;
        let kept = stored(&kept.body[0]);
        let recovered = upload(&app, &app.token, &format!("/api/cards/{card}/attachments"), &[("files", "r.png", png())]).await;
        let recovered = stored(&recovered.body[0]);
        let loose = upload(&app, &app.token, &format!("/api/cards/{card}/comments/uploads"), &[("files", "l.png", png()), ("files", "fresh.png", png())]).await;
        let (old_loose, fresh_loose) = (id(&loose.body[0]), stored(&loose.body[1]));
        let old_loose_file = stored(&loose.body[0]);
        app.stop().await;

        // What a crash leaves: a temporary written but never committed, a file
        // whose row is gone, a committed row whose rename never happened, a
        // loose upload nobody bound for a day; plus an upload in flight.
        let dir = app.db.files_dir();
        let (orphan, stale_temp, in_flight) = (cuid2::create_id(), cuid2::create_id(), cuid2::create_id());
        leftover(&dir, &format!(".tmp-{stale_temp}"), Duration::from_secs(2 * 3600));
        leftover(&dir, &orphan, Duration::ZERO);
        leftover(&dir, &format!(".tmp-{in_flight}"), Duration::from_secs(5));
        std::fs::rename(dir.join(&recovered), dir.join(format!(".tmp-{recovered}"))).unwrap();
        std::fs::File::options().write(true).open(dir.join(format!(".tmp-{recovered}"))).unwrap()
            .set_modified(SystemTime::now() - Duration::from_secs(2 * 3600)).unwrap();
        let pool = crate::uploads::pool(&app).await;
        sqlx::query("UPDATE attachments SET created_at = $1 WHERE id = $2")
            .bind("2000-01-01T00:00:00.000Z").bind(old_loose.as_str())
            .execute(&pool).await.unwrap();

        app.start().await;
        let mut want = vec![kept.clone(), recovered.clone(), fresh_loose.clone(), format!(".tmp-{in_flight}")];
        want.sort();
        assert_eq!(files_in(&dir), want, "orphan, stale temporary and old loose upload are gone");
        let rows: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM attachments WHERE id = $1")
            .bind(old_loose.as_str()).fetch_one(&pool).await.unwrap();
        assert_eq!(rows, 0, "the old loose upload's row is gone");
        pool.close().await;
        assert_eq!(app.call("GET", &format!("/api/files/{recovered}"), None).await.status, 200, "rolled forward");
        assert_eq!(app.call("GET", &format!("/api/files/{old_loose_file}"), None).await.status, 404);
    }
}
