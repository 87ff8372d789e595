//! Who did what (api.md §17): comment authorship, checked after the role
//! and before the schema; a refusal changes nothing, images included.

use crate::uploads::{id, png, pool, upload};
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

    async fn cards_history_links_and_files_name_who_made_them(backend) {
        let app = common::spawn_app(backend).await;
        let ann = app.account_in(&app.tenant, "ann", "member").await;
        let pete = app.account_in(&app.tenant, "pete", "member").await;
        let (ann_id, pete_id) = (account_id(&app, "ann").await, account_id(&app, "pete").await);
        let cols = app.columns().await;
        let doing = id(&cols[1]);
        let r = app.call_as(&ann, "POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "Mine"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["createdBy"], ann_id.as_str());
        let card = id(&r.body);
        let r = app.call_as(&pete, "PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": doing}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["createdBy"], ann_id.as_str(), "a move keeps the creator");
        let h = app.call_as(&pete, "GET", &format!("/api/cards/{card}/history"), None).await;
        let actors: Vec<&Value> = h.body.as_array().unwrap().iter().map(|e| &e["actorId"]).collect();
        assert_eq!(actors, [&json!(ann_id), &json!(pete_id)]);

        // The CLI (the operator): null everywhere.
        let by_cli = app.card_in(&app.tenant, "Scripted").await;
        assert_eq!(by_cli["createdBy"], Value::Null);
        let h = app.call("GET", &format!("/api/cards/{}/history", id(&by_cli)), None).await;
        assert_eq!(h.body[0]["actorId"], Value::Null);

        // A link and files carry their author.
        let r = app.call_as(&pete, "POST", &format!("/api/cards/{card}/relations"),
            Some(json!({"targetId": id(&by_cli), "kind": "RELATED"}))).await;
        assert_eq!((r.status, &r.body["createdBy"]), (201, &json!(pete_id)), "{:?}", r.body);
        let listed = app.call("GET", &format!("/api/cards/{card}/relations"), None).await;
        assert_eq!(listed.body[0]["createdBy"], pete_id.as_str());
        for place in ["attachments", "comments/uploads"] {
            let r = upload(&app, &ann, &format!("/api/cards/{card}/{place}"), &[("files", "a.png", png())]).await;
            assert_eq!((r.status, &r.body[0]["uploadedBy"]), (201, &json!(ann_id)), "{place}: {:?}", r.body);
        }
        let listed = app.call("GET", &format!("/api/cards/{card}/attachments"), None).await;
        assert_eq!(listed.body[0]["uploadedBy"], ann_id.as_str());

        // Events carry the fields in their subjects.
        let rows: Vec<(String, String)> = sqlx::query_as("SELECT type, data FROM events ORDER BY seq")
            .fetch_all(&pool(&app).await).await.unwrap();
        let subject = |kind: &str| -> Value {
            let (_, data) = rows.iter().find(|(t, _)| t == kind).expect(kind);
            serde_json::from_str::<Value>(data).unwrap()["subject"].clone()
        };
        assert_eq!(subject("card.created")["createdBy"], ann_id.as_str());
        assert_eq!(subject("relation.created")["createdBy"], pete_id.as_str());
        assert_eq!(subject("attachment.created")["uploadedBy"], ann_id.as_str());
    }

    async fn a_column_delete_with_move_records_its_deleter_on_every_entry(backend) {
        let app = common::spawn_app(backend).await;
        let ada = app.account_in(&app.tenant, "ada", "admin").await;
        let ada_id = account_id(&app, "ada").await;
        let cols = app.columns().await;
        let (todo, doing) = (id(&cols[0]), id(&cols[1]));
        let cards = [id(&app.card_in(&app.tenant, "One").await), id(&app.card_in(&app.tenant, "Two").await)];
        let r = app.call_as(&ada, "DELETE", &format!("/api/columns/{todo}"),
            Some(json!({"cards": "MOVE", "targetColumnId": doing}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        for card in cards {
            let h = app.call("GET", &format!("/api/cards/{card}/history"), None).await;
            let actors: Vec<&Value> = h.body.as_array().unwrap().iter().map(|e| &e["actorId"]).collect();
            assert_eq!(actors, [&Value::Null, &json!(ada_id)], "{card}");
        }
    }
}
