//! The object store itself (contract §14): servers on one database and one
//! bucket share the files. The attachment and comment suites run on it too
//! (`on_every_store!`); the CLI's sweep of a bucket is in board-cli/tests, a
//! crash mid-upload in board-server/tests/crash.rs.

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
