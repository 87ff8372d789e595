//! A card's kept counts (`board-core/src/counts.rs`): exact after racing
//! writes of comments, images, attachments and checklist items, after a
//! card's and a column's deletion, and after an export and import.

use std::sync::Arc;

use serde_json::json;
use testkit::{self as common, on_both_backends};

on_both_backends! {
    async fn racing_comment_attachment_and_checklist_writes_keep_every_count(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let bases = [app.base.clone()];
        testkit::counts::race_count_changes(app.clone(), &bases).await;
    }
}

on_both_backends! {
    async fn deletions_of_cards_and_columns_leave_no_count_behind(backend) {
        let app = common::spawn_app(backend).await;
        let columns = app.columns().await;
        let doing = columns[1]["id"].as_str().unwrap().to_string();
        for title in ["Gone", "Kept"] {
            let card = app.card(title).await;
            let card = card["id"].as_str().unwrap();
            for n in 0..3 {
                let path = format!("/api/cards/{card}/comments");
                let r = app.call("POST", &path, Some(json!({"content": format!("c{n}")}))).await;
                assert_eq!(r.status, 201, "{:?}", r.body);
                let path = format!("/api/cards/{card}/checklist");
                let r = app.call("POST", &path, Some(json!({"text": format!("i{n}")}))).await;
                assert_eq!(r.status, 201, "{:?}", r.body);
            }
            if title == "Gone" {
                let r = app.call("DELETE", &format!("/api/cards/{card}"), None).await;
                assert_eq!(r.status, 200, "{:?}", r.body);
            } else {
                let move_to = json!({ "columnId": doing });
                let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(move_to)).await;
                assert_eq!(r.status, 200, "{:?}", r.body);
                assert_eq!(r.body["commentCount"], 3, "a move answers the counts kept");
                assert_eq!(r.body["checklist"], json!({"done": 0, "total": 3}));
            }
        }
        let body = json!({"cards": "DELETE", "confirm": "APAGAR CARDS"});
        let r = app.call("DELETE", &format!("/api/columns/{doing}"), Some(body)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let board = app.board().await;
        assert_eq!(board.admin().check_counts().await.unwrap(), vec![]);
        board.close().await;
        assert_eq!(crate::uploads::rows_in(&app, "card_counts").await, 0);
    }
}
