//! Who did what (contract §17): comment authorship, checked after the role
//! and before the schema; a refusal changes nothing, images included.

use crate::uploads::{id, png, upload};
use serde_json::{json, Value};
use testkit::{self as common, on_every_store, App};

async fn account_id(app: &App, name: &str) -> String {
    let account = app
        .operator()
        .admin()
        .find_account(name)
        .await
        .expect("account");
    account.id.as_str().to_string()
}

on_every_store! {
    async fn only_the_author_edits_and_the_author_or_an_admin_deletes(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Words").await);
        let author = app.account_in(&app.tenant, "ann", "member").await;
        let peer = app.account_in(&app.tenant, "pete", "member").await;
        let admin = app.account_in(&app.tenant, "ada", "admin").await;
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        let path = format!("/api/cards/{card}/comments");
        let up = upload(&app, &author, &format!("{path}/uploads"), &[("files", "a.png", png())]).await;
        assert_eq!(up.status, 201, "{:?}", up.body);
        let image = id(&up.body[0]);
        let c = app.call_as(&author, "POST", &path, Some(json!({"content": "mine", "attachmentIds": [image]}))).await;
        assert_eq!(c.status, 201, "{:?}", c.body);
        assert_eq!(c.body["authorId"], account_id(&app, "ann").await.as_str());
        let one = format!("/api/comments/{}", id(&c.body));
        let before = app.call("GET", &path, None).await.body;
        assert_eq!(before[0]["authorId"], c.body["authorId"], "listed with its author");

        // Anyone else, the workspace's ADMIN included, cannot edit; a bad body
        // from them is NOT_AUTHOR too (the author check comes before the schema).
        for token in [&peer, &admin, &app.token] {
            for body in [json!({"content": "theirs", "attachmentIds": []}), json!({"bad": true})] {
                let r = app.call_as(token, "PATCH", &one, Some(body)).await;
                assert_eq!((r.status, r.body["error"].as_str()), (403, Some("NOT_AUTHOR")), "{:?}", r.body);
            }
        }
        // A peer member cannot delete; a viewer gets the role refusal first.
        let r = app.call_as(&peer, "DELETE", &one, None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (403, Some("NOT_AUTHOR")));
        let r = app.call_as(&viewer, "DELETE", &one, None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")));
        assert_eq!(app.call("GET", &path, None).await.body, before, "nothing changed");
        assert_eq!(app.db.stored_files().await.len(), 1, "the image stays");

        // The author edits (and a bad body of theirs is the schema's 422).
        let r = app.call_as(&author, "PATCH", &one, Some(json!({"bad": true}))).await;
        assert_eq!(r.status, 422);
        let r = app.call_as(&author, "PATCH", &one, Some(json!({"content": "still mine"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["authorId"], c.body["authorId"]);
        // The workspace's ADMIN deletes, the image and its file with it.
        let r = app.call_as(&admin, "DELETE", &one, None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(app.call("GET", &path, None).await.body, json!([]));
        assert!(app.db.stored_files().await.is_empty());
    }

    async fn an_admin_elsewhere_is_anyone_else(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Words").await);
        let other = app.workspace("Other").await;
        let author = app.account_in(&app.tenant, "ann", "member").await;
        let both = app.account_in(&other, "bo", "admin").await;
        app.member(&app.tenant, "bo", "member").await;
        let path = format!("/api/cards/{card}/comments");
        let c = app.call_as(&author, "POST", &path, Some(json!({"content": "mine"}))).await;
        let one = format!("/api/comments/{}", id(&c.body));
        let r = app.call_as(&both, "DELETE", &one, None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (403, Some("NOT_AUTHOR")));
        // The author deletes their own.
        assert_eq!(app.call_as(&author, "DELETE", &one, None).await.status, 200);
        assert_eq!(app.call("GET", &path, None).await.body, Value::Array(vec![]));
    }
}
