//! The object store itself (api.md §14): servers on one database and one
//! bucket share the files. The attachment and comment suites run on it too
//! (`on_every_store!`); the CLI's sweep of a bucket is in board-cli/tests, a
//! crash mid-upload in board-server/tests/objects.rs.

use crate::uploads::{id, png, upload};
use testkit::{self as common, on_the_object_store};

on_the_object_store! {
    async fn a_file_uploaded_through_one_server_downloads_and_deletes_through_another(target) {
        let app = common::spawn_app(target).await;
        let other = app.second_server().await;
        let card = id(&app.card("Shared").await);
        // More than one part: 5 MiB parts, and a last one.
        let text: Vec<u8> = b"a line of plain text\n".iter().copied().cycle().take(6 << 20).collect();
        let r = upload(&app, &app.token, &format!("/api/cards/{card}/attachments"),
            &[("files", "big.txt", text.clone()), ("files", "small.png", png())]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let names: Vec<String> = r.body.as_array().unwrap().iter()
            .map(|a| a["storedName"].as_str().unwrap().to_string()).collect();
        let mut want = names.clone();
        want.sort();
        assert_eq!(app.db.stored_files().await, want, "two objects, no open upload");

        for (name, bytes, kind) in [(&names[0], &text, "text/plain"), (&names[1], &png(), "image/png")] {
            let res = app.http.get(format!("{}/api/files/{name}", other.base))
                .bearer_auth(&app.token).send().await.unwrap();
            assert_eq!(res.status(), 200);
            assert_eq!(res.headers()["content-type"], kind);
            assert_eq!(res.headers()["x-content-type-options"], "nosniff");
            assert_eq!(res.headers()["content-length"], bytes.len().to_string().as_str());
            assert_eq!(&res.bytes().await.unwrap().to_vec(), bytes, "the same bytes through the other server");
        }

        let del = app.call_at(&other.base, &app.token, "DELETE", &format!("/api/attachments/{}", id(&r.body[0])), None).await;
        assert_eq!(del.status, 200, "{:?}", del.body);
        assert_eq!(app.db.stored_files().await, vec![names[1].clone()], "the object is gone from the bucket");
        let gone = app.call("GET", &format!("/api/files/{}", names[0]), None).await;
        assert_eq!(gone.status, 404, "and from the first server");
        other.stop().await;
    }
}

on_the_object_store! {
    async fn the_start_up_sweep_rolls_the_bucket_forward_or_back(target) {
        use board_core::FileStore;
        use tokio::io::AsyncWriteExt;
        // No grace: every open upload counts as left by a crash.
        let mut app = common::spawn_app_with(target, &[("BOARD_SWEEP_GRACE", "0s")]).await;
        let card = id(&app.card("Crash").await);
        let kept = upload(&app, &app.token, &format!("/api/cards/{card}/attachments"), &[("files", "k.png", png())]).await;
        let kept = kept.body[0]["storedName"].as_str().unwrap().to_string();
        app.stop().await;

        // What crashes leave: an upload written whose row committed but which
        // was never completed; one written without a row; one cut off mid-way;
        // an object whose row is gone.
        let store = board_core::S3Store::connect(app.db.files_url.as_ref().unwrap()).await.unwrap();
        let [committed, stale, cut, orphan] = [(); 4].map(|_| cuid2::create_id());
        for (name, finish) in [(&committed, true), (&stale, true), (&cut, false), (&orphan, true)] {
            let mut w = store.create_temp(name).await.unwrap();
            w.write_all(&png()).await.unwrap();
            if finish {
                w.shutdown().await.unwrap();
            }
        }
        store.publish(&orphan).await.unwrap();
        let pool = crate::uploads::pool(&app).await;
        sqlx::query(
            "INSERT INTO attachments (id, card_id, comment_id, scope, stored_name, original_name, mime_type, size, created_at) \
             VALUES ($1, $2, NULL, 'CARD', $3, 'c.png', 'image/png', $4, '2026-01-01T00:00:00.000Z')",
        )
        .bind(cuid2::create_id()).bind(card.as_str()).bind(committed.as_str()).bind(png().len() as i64)
        .execute(&pool).await.unwrap();
        pool.close().await;
        let mut want = vec![kept.clone(), orphan.clone(), format!(".tmp-{committed}"), format!(".tmp-{stale}"), format!(".tmp-{cut}")];
        want.sort();
        assert_eq!(app.db.stored_files().await, want, "the leftovers are there");

        app.start().await;
        let mut want = vec![kept, committed.clone()];
        want.sort();
        assert_eq!(app.db.stored_files().await, want, "rolled forward: the committed one; the rest is gone");
        let res = app.http.get(format!("{}/api/files/{committed}", app.base)).bearer_auth(&app.token).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.bytes().await.unwrap().to_vec(), png());
    }
}
