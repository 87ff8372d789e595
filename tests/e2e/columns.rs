//! Column routes: listing by set, creation, the done mark, order, deletion
//! with the cards' fate, the settings lock, and racing requests (the `board
//! column` commands: board-cli/tests/cli.rs).

use std::sync::Arc;

use common::App;
use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};
use tokio::sync::Barrier;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// Creates a column and returns it.
async fn column(app: &App, body: Value) -> Value {
    let r = app.call("POST", "/api/columns", Some(body)).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    r.body
}

/// Creates a project of the Default workspace and returns its id.
async fn project(app: &App, name: &str) -> String {
    app.project(&app.tenant, name).await
}

/// The columns of one set as (name, position, done), by position.
async fn set_of(app: &App, project: Option<&str>) -> Vec<(String, i64, bool)> {
    let r = app
        .call("GET", &format!("/api/columns?tenant={}", app.tenant), None)
        .await;
    assert_eq!(r.status, 200);
    let want = project.map(Value::from).unwrap_or(Value::Null);
    r.body
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["projectId"] == want)
        .map(|c| {
            (
                c["name"].as_str().unwrap().to_string(),
                c["position"].as_i64().unwrap(),
                c["done"].as_bool().unwrap(),
            )
        })
        .collect()
}

async fn board_cards(app: &App, column: &str) -> Vec<String> {
    let r = app
        .call("GET", &format!("/api/board?tenant={}", app.tenant), None)
        .await;
    r.body["columns"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == column)
        .map(|c| c["cards"].as_array().unwrap().iter().map(id).collect())
        .unwrap_or_default()
}

on_both_backends! {
    async fn listing_by_workspace_project_and_reach(backend) {
        let app = common::spawn_app(backend).await;
        let p1 = project(&app, "P1").await;
        let p2 = project(&app, "P2").await;
        column(&app, json!({"tenantId": app.tenant, "projectId": p2, "name": "Two"})).await;
        column(&app, json!({"tenantId": app.tenant, "projectId": p1, "name": "One"})).await;

        let r = app.call("GET", &format!("/api/columns?tenant={}", app.tenant), None).await;
        assert_eq!(r.status, 200);
        let names: Vec<_> = r.body.as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
        assert_eq!(names, vec![json!("To do"), json!("Doing"), json!("Done"), json!("One"), json!("Two")],
            "tenant set, then project sets in project creation order");
        let first = &r.body[0];
        let keys: Vec<_> = first.as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys.len(), 7, "{keys:?} (with wipLimit, api.md §20)");
        assert!(first.get("tenantId").is_none(), "a column carries no tenantId");
        assert_eq!(r.body[3]["projectId"], p1.as_str());

        // With a project: the set in effect (TENANT scope: the tenant set).
        let q = format!("/api/columns?tenant={}&project={p1}", app.tenant);
        assert_eq!(app.call("GET", &q, None).await.body.as_array().unwrap().len(), 3);
        app.settings(json!({"tenantId": app.tenant, "columnScope": "PROJECT"})).await;
        let r = app.call("GET", &q, None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 1);
        assert_eq!(r.body[0]["name"], "One");
        // A project set with no column falls back to the tenant set.
        let p3 = project(&app, "P3").await;
        let r = app.call("GET", &format!("/api/columns?tenant={}&project={p3}", app.tenant), None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 3);
        // project without tenant is ignored.
        let r = app.call("GET", &format!("/api/columns?project={p1}"), None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 5);

        // Without tenant: every workspace the account reaches, and only those.
        let other = app.workspace("Other").await;
        let token = app.account_in(&other, "otto", "member").await;
        let r = app.call_as(&token, "POST", "/api/columns", Some(json!({"tenantId": other, "name": "Solo"}))).await;
        assert_eq!(r.status, 201);
        let r = app.call_as(&token, "GET", "/api/columns", None).await;
        assert_eq!(r.status, 200);
        let names: Vec<_> = r.body.as_array().unwrap().iter().map(|c| c["name"].clone()).collect();
        assert_eq!(names, vec![json!("To do"), json!("Doing"), json!("Done"), json!("Solo")], "Other is born with three columns");
        let r = app.call("GET", "/api/columns", None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 5, "admin of Default only");

        assert_eq!(app.call_as(&token, "GET", &format!("/api/columns?tenant={}", app.tenant), None).await.status, 403);
        // The operator (board-core's Actor::Operator) reaches every workspace, oldest first.
        let all = app.board().await.list_columns(&board_core::Actor::Operator, None).await.unwrap();
        let names: Vec<_> = all.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, vec!["To do", "Doing", "Done", "One", "Two", "To do", "Doing", "Done", "Solo"]);
        assert_eq!(app.call_as("", "GET", "/api/columns", None).await.status, 401);
    }

    async fn creation_end_of_set_done_mark_and_accents(backend) {
        let app = common::spawn_app(backend).await;
        let c = column(&app, json!({"tenantId": app.tenant, "name": " Review "})).await;
        assert_eq!(c["name"], "Review");
        assert_eq!(c["accent"], "slate", "default accent");
        assert_eq!(c["position"], 3, "end of the set");
        assert_eq!(c["done"], false);
        assert_eq!(c["projectId"], Value::Null);

        let c = column(&app, json!({"tenantId": app.tenant, "name": "Shipped", "color": "emerald", "done": true})).await;
        assert_eq!(c["done"], true);
        assert_eq!(c["accent"], "emerald");
        let set = set_of(&app, None).await;
        assert_eq!(set.iter().filter(|c| c.2).count(), 1);
        assert!(set.iter().any(|c| c.0 == "Shipped" && c.2), "the mark moved: {set:?}");

        // The first column of an empty set is its done column whatever `done` says.
        let p = project(&app, "P").await;
        let c = column(&app, json!({"tenantId": app.tenant, "projectId": p, "name": "First", "done": false})).await;
        assert_eq!(c["done"], true);
        assert_eq!(c["position"], 0);
        assert_eq!(c["projectId"], p.as_str());
        let c = column(&app, json!({"tenantId": app.tenant, "projectId": p, "name": "Second"})).await;
        assert_eq!(c["done"], false);
        assert_eq!(c["position"], 1);

        for (body, field) in [
            (json!({"tenantId": app.tenant, "name": "x", "color": "#ff0000"}), "color"),
            (json!({"tenantId": app.tenant, "name": "x", "color": "Blue"}), "color"),
            (json!({"tenantId": app.tenant, "name": ""}), "name"),
            (json!({"tenantId": app.tenant, "name": "x".repeat(101)}), "name"),
            (json!({"tenantId": app.tenant}), "name"),
            (json!({"tenantId": app.tenant, "name": "x", "done": "yes"}), "done"),
            (json!({"tenantId": 7, "name": "x"}), "tenantId"),
            (json!({"tenantId": app.tenant, "name": "x", "projectId": cuid2::create_id()}), "projectId"),
        ] {
            let r = app.call("POST", "/api/columns", Some(body.clone())).await;
            assert_eq!(r.status, 422, "{body}");
            assert_eq!(r.body["error"], "VALIDATION_FAILED");
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{body}: {:?}", r.body);
        }
        // A project of another workspace is refused as well.
        let other = app.workspace("Other").await;
        let foreign = json!({"id": app.project(&other, "F").await});
        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "projectId": foreign["id"], "name": "x"}))).await;
        assert_eq!(r.status, 422);
        // The body is checked before the workspace: a bad body to an unreached workspace is 422.
        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": other, "name": ""}))).await;
        assert_eq!(r.status, 422);
        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": other, "name": "x"}))).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "FORBIDDEN");
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        let r = app.call_as(&viewer, "POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "x"}))).await;
        assert_eq!(r.status, 403);
        let r = app.call_as("", "POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "x"}))).await;
        assert_eq!(r.status, 401);
        assert_eq!(set_of(&app, None).await.len(), 5, "refusals created nothing");
    }

    async fn patch_renames_recolours_and_moves_the_done_mark(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, done) = (id(&cols[0]), id(&cols[2]));
        let path = format!("/api/columns/{todo}");
        let r = app.call("PATCH", &path, Some(json!({"name": "Backlog", "color": "violet"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["name"], "Backlog");
        assert_eq!(r.body["accent"], "violet");
        assert_eq!(r.body["position"], 0);

        let r = app.call("PATCH", &path, Some(json!({"done": true}))).await;
        assert_eq!(r.body["done"], true);
        let set = set_of(&app, None).await;
        assert_eq!(set.iter().map(|c| c.2).collect::<Vec<_>>(), vec![true, false, false]);

        // Unsetting the mark is refused; a done:false on a column without it is a no-op.
        let r = app.call("PATCH", &path, Some(json!({"done": false}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "DONE_MARK_REQUIRED");
        let r = app.call("PATCH", &format!("/api/columns/{done}"), Some(json!({"done": false}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(set_of(&app, None).await.iter().filter(|c| c.2).count(), 1);

        for body in [json!({"tenantId": app.tenant}), json!({"projectId": null}), json!({"color": "#000"}), json!({"name": "  "})] {
            let r = app.call("PATCH", &path, Some(body.clone())).await;
            assert_eq!(r.status, 422, "{body}");
            assert_eq!(r.body["error"], "VALIDATION_FAILED");
        }
        let r = app.call("PATCH", &path, Some(json!({"tenantId": app.tenant}))).await;
        assert!(r.body["details"]["formErrors"][0].as_str().unwrap().contains("tenantId"));

        assert_eq!(app.call("PATCH", "/api/columns/nope", Some(json!({"name": "x"}))).await.status, 404);
        let unknown = format!("/api/columns/{}", cuid2::create_id());
        assert_eq!(app.call("PATCH", &unknown, Some(json!({"name": "x"}))).await.status, 404);
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        assert_eq!(app.call_as(&viewer, "PATCH", &path, Some(json!({"name": "x"}))).await.status, 403);
        assert_eq!(app.call_as("", "PATCH", &path, Some(json!({"name": "x"}))).await.status, 401);
        assert_eq!(set_of(&app, None).await[0].0, "Backlog");
    }

    async fn reorder_a_subset(backend) {
        let app = common::spawn_app(backend).await;
        for n in ["D", "E"] {
            column(&app, json!({"tenantId": app.tenant, "name": n})).await;
        }
        let cols = app.columns().await; // To do 0, Doing 1, Done 2, D 3, E 4
        let ids: Vec<String> = cols.iter().map(id).collect();
        // E, Doing, To do take the positions {0, 1, 4} they hold together.
        let r = app.call("PATCH", "/api/columns/order", Some(json!({"columnIds": [ids[4], ids[1], ids[0]]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, json!({"updated": 3}));
        let names: Vec<_> = set_of(&app, None).await.into_iter().map(|c| (c.0, c.1)).collect();
        assert_eq!(names, vec![("E".into(), 0), ("Doing".into(), 1), ("Done".into(), 2), ("D".into(), 3), ("To do".into(), 4)]);

        let p = project(&app, "P").await;
        let pc = column(&app, json!({"tenantId": app.tenant, "projectId": p, "name": "X"})).await;
        for (body, status, code) in [
            (json!({"columnIds": []}), 422, "VALIDATION_FAILED"),
            (json!({"columnIds": [ids[0], ids[0]]}), 422, "VALIDATION_FAILED"),
            (json!({"columnIds": [1]}), 422, "VALIDATION_FAILED"),
            (json!({}), 422, "VALIDATION_FAILED"),
            (json!({"columnIds": [ids[0]], "extra": 1}), 422, "VALIDATION_FAILED"),
            (json!({"columnIds": [ids[0], cuid2::create_id()]}), 404, "NOT_FOUND"),
            (json!({"columnIds": [ids[0], id(&pc)]}), 422, "MIXED_SETS"),
        ] {
            let r = app.call("PATCH", "/api/columns/order", Some(body.clone())).await;
            assert_eq!(r.status, status, "{body}: {:?}", r.body);
            assert_eq!(r.body["error"], code, "{body}");
        }
        let other = app.workspace("Other").await;
        let token = app.account_in(&other, "olaf", "admin").await;
        let r = app.call_as(&token, "PATCH", "/api/columns/order", Some(json!({"columnIds": [ids[0]]}))).await;
        assert_eq!(r.status, 403);
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        let r = app.call_as(&viewer, "PATCH", "/api/columns/order", Some(json!({"columnIds": [ids[1], ids[0]]}))).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "FORBIDDEN");
        let r = app.call_as("", "PATCH", "/api/columns/order", Some(json!({"columnIds": [ids[1], ids[0]]}))).await;
        assert_eq!(r.status, 401);
        let unchanged: Vec<_> = set_of(&app, None).await.into_iter().map(|c| c.0).collect();
        assert_eq!(unchanged, vec!["E", "Doing", "Done", "D", "To do"]);

    }

    async fn delete_with_move_keeps_card_order_and_writes_history(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, doing) = (id(&cols[0]), id(&cols[1]));
        let existing = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "already", "columnId": doing})))
            .await
            .body;
        let mut moved = Vec::new();
        for t in ["a", "b", "c"] {
            moved.push(id(&app.card(t).await));
        }
        let path = format!("/api/columns/{todo}");
        let r = app.call("DELETE", &path, Some(json!({"cards": "MOVE", "targetColumnId": doing}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, json!({"deleted": true, "cardsMoved": 3, "cardsDeleted": 0}));
        let mut expected = vec![id(&existing)];
        expected.extend(moved.clone());
        assert_eq!(board_cards(&app, &doing).await, expected, "appended after, in order");
        let h = app.call("GET", &format!("/api/cards/{}/history", moved[0]), None).await;
        let entries = h.body.as_array().unwrap();
        assert_eq!(entries.len(), 2);
        assert_eq!(entries[1]["fromName"], "To do");
        assert_eq!(entries[1]["toName"], "Doing");
        let hid = entries[1]["id"].as_str().unwrap();
        assert!(hid.len() == 24 && hid.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit()), "{hid}");
        assert_eq!(set_of(&app, None).await.len(), 2);
        assert_eq!(app.call("DELETE", &path, Some(json!({"cards": "MOVE", "targetColumnId": doing}))).await.status, 404);

    }

    async fn delete_with_delete_removes_cards_and_their_history(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, doing) = (id(&cols[0]), id(&cols[1]));
        let gone = app.card("gone").await;
        let kept = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "kept", "columnId": doing})))
            .await
            .body;
        // A file attached to the card goes with it.
        let up = crate::uploads::upload(&app, &app.token, &format!("/api/cards/{}/attachments", id(&gone)), &[("files", "a.pdf", crate::uploads::pdf())]).await;
        assert_eq!(up.status, 201, "{:?}", up.body);
        assert_eq!(crate::uploads::files_in(&app.db.files_dir()).len(), 1);
        let path = format!("/api/columns/{todo}");
        for (body, field) in [
            (json!({}), "cards"),
            (json!({"cards": "KEEP"}), "cards"),
            (json!({"cards": "MOVE"}), "targetColumnId"),
            (json!({"cards": "DELETE"}), "confirm"),
            (json!({"cards": "DELETE", "confirm": "apagar cards"}), "confirm"),
            (json!({"cards": "MOVE", "targetColumnId": 3}), "targetColumnId"),
        ] {
            let r = app.call("DELETE", &path, Some(body.clone())).await;
            assert_eq!(r.status, 422, "{body}");
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{body}: {:?}", r.body);
        }
        // A missing `cards` names what it accepts.
        let r = app.call("DELETE", &path, Some(json!({"targetColumnId": doing}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "VALIDATION_FAILED");
        assert_eq!(
            r.body["details"]["fieldErrors"],
            json!({"cards": ["Required: MOVE (with targetColumnId) or DELETE (with confirm \"APAGAR CARDS\")"]}),
            "{:?}",
            r.body
        );
        let r = app.raw("DELETE", &path, &[("authorization", &format!("Bearer {}", app.token))], "").await;
        assert_eq!(r.status, 422, "no body at all");
        assert_eq!(set_of(&app, None).await.len(), 3, "refusals deleted nothing");

        let r = app.call("DELETE", &path, Some(json!({"cards": "DELETE", "confirm": "APAGAR CARDS"}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"deleted": true, "cardsMoved": 0, "cardsDeleted": 1}));
        assert_eq!(app.call("GET", &format!("/api/cards/{}", id(&gone)), None).await.status, 404);
        assert_eq!(crate::uploads::files_in(&app.db.files_dir()), Vec::<String>::new(), "the card's file is gone");
        assert_eq!(crate::uploads::attachment_rows(&app).await, 0);
        assert_eq!(app.call("GET", &format!("/api/cards/{}", id(&kept)), None).await.status, 200);

    }

    async fn delete_refusals_keep_every_set_whole(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, doing, done) = (id(&cols[0]), id(&cols[1]), id(&cols[2]));
        let card = app.card("stay").await;
        let r = app.call("DELETE", &format!("/api/columns/{done}"), Some(json!({"cards": "MOVE", "targetColumnId": todo}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "DONE_COLUMN");
        let p = project(&app, "P").await;
        let lone = column(&app, json!({"tenantId": app.tenant, "projectId": p, "name": "Lone"})).await;
        let r = app.call("DELETE", &format!("/api/columns/{}", id(&lone)), Some(json!({"cards": "DELETE", "confirm": "APAGAR CARDS"}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "LAST_COLUMN");
        for target in [todo.clone(), id(&lone), cuid2::create_id()] {
            let r = app.call("DELETE", &format!("/api/columns/{todo}"), Some(json!({"cards": "MOVE", "targetColumnId": target}))).await;
            assert_eq!(r.status, 422, "{target}");
            assert_eq!(r.body["error"], "INVALID_TARGET_COLUMN");
        }
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        let body = json!({"cards": "MOVE", "targetColumnId": doing});
        assert_eq!(app.call_as(&viewer, "DELETE", &format!("/api/columns/{todo}"), Some(body.clone())).await.status, 403);
        assert_eq!(app.call("DELETE", "/api/columns/nope", Some(body.clone())).await.status, 404);
        assert_eq!(app.call_as("", "DELETE", &format!("/api/columns/{todo}"), Some(body)).await.status, 401);
        assert_eq!(set_of(&app, None).await.len(), 3);
        assert_eq!(app.call("GET", &format!("/api/cards/{}", id(&card)), None).await.body["columnId"], todo.as_str());
    }

    async fn column_management_off_locks_editing(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, doing) = (id(&cols[0]), id(&cols[1]));
        app.card("c").await;
        let r = app.call("PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "columnManagement": false}))).await;
        assert_eq!(r.status, 200);
        let cases = [
            ("POST", "/api/columns".to_string(), json!({"tenantId": app.tenant, "name": "x"})),
            ("PATCH", format!("/api/columns/{todo}"), json!({"name": "x"})),
            ("PATCH", "/api/columns/order".to_string(), json!({"columnIds": [doing, todo]})),
            ("DELETE", format!("/api/columns/{todo}"), json!({"cards": "MOVE", "targetColumnId": doing})),
            ("DELETE", format!("/api/columns/{todo}"), json!({"cards": "DELETE", "confirm": "APAGAR CARDS"})),
        ];
        for (method, path, body) in cases {
            let r = app.call(method, &path, Some(body)).await;
            assert_eq!(r.status, 403, "{method} {path}");
            assert_eq!(r.body["error"], "COLUMN_MANAGEMENT_DISABLED");
        }
        // The feature check comes before the schema check.
        let r = app.call("PATCH", &format!("/api/columns/{todo}"), Some(json!({"name": 5}))).await;
        assert_eq!(r.body["error"], "COLUMN_MANAGEMENT_DISABLED");
let set = set_of(&app, None).await;
        assert_eq!(set.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(), vec!["To do", "Doing", "Done"]);
        assert_eq!(board_cards(&app, &todo).await.len(), 1, "nothing deleted");
        // Reading still works.
        assert_eq!(app.call("GET", "/api/columns", None).await.status, 200);
    }

    async fn racing_done_marks_leave_exactly_one(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        for i in 0..8 {
            column(&app, json!({"tenantId": app.tenant, "name": format!("R{i}")})).await;
        }
        let cols = app.columns().await;
        let results = race(&app, cols.iter().map(|c| ("PATCH", format!("/api/columns/{}", id(c)), json!({"done": true})))).await;
        assert!(results.iter().all(|r| r.status == 200), "{results:?}");
        let set = set_of(&app, None).await;
        assert_eq!(set.iter().filter(|c| c.2).count(), 1, "{set:?}");
    }

    async fn racing_done_mark_and_delete_of_the_same_column(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        for round in 0..6 {
            let x = column(&app, json!({"tenantId": app.tenant, "name": format!("X{round}")})).await;
            let cols = app.columns().await;
            let target = id(&cols[0]);
            let path = format!("/api/columns/{}", id(&x));
            let results = race(&app, [
                ("PATCH", path.clone(), json!({"done": true})),
                ("DELETE", path.clone(), json!({"cards": "MOVE", "targetColumnId": target})),
            ].into_iter()).await;
            for r in &results {
                assert!([200, 404, 422].contains(&r.status), "{r:?}");
            }
            let set = set_of(&app, None).await;
            assert_eq!(set.iter().filter(|c| c.2).count(), 1, "round {round}: {set:?}");
        }
    }

    async fn racing_crosswise_move_deletions_lose_no_card(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let mut pairs = Vec::new();
        for i in 0..5 {
            let a = column(&app, json!({"tenantId": app.tenant, "name": format!("A{i}")})).await;
            let b = column(&app, json!({"tenantId": app.tenant, "name": format!("B{i}")})).await;
            for col in [&a, &b] {
                for n in 0..3 {
                    app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": format!("c{n}"), "columnId": id(col)}))).await;
                }
            }
            pairs.push((id(&a), id(&b)));
        }
        let mut requests = Vec::new();
        for (a, b) in &pairs {
            requests.push(("DELETE", format!("/api/columns/{a}"), json!({"cards": "MOVE", "targetColumnId": b})));
            requests.push(("DELETE", format!("/api/columns/{b}"), json!({"cards": "MOVE", "targetColumnId": a})));
        }
        let results = race(&app, requests.into_iter()).await;
        for pair in results.chunks(2) {
            let ok = pair.iter().filter(|r| r.status == 200).count();
            assert_eq!(ok, 1, "exactly one deletion of each pair wins: {pair:?}");
            let other = pair.iter().find(|r| r.status != 200).unwrap();
            assert!([404, 422].contains(&other.status), "{other:?}");
        }
        let r = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await;
        let cols = r.body["columns"].as_array().unwrap();
        let cards: usize = cols.iter().map(|c| c["cards"].as_array().unwrap().len()).sum();
        assert_eq!(cards, 30, "no card lost");
        assert_eq!(cols.len(), 3 + 5);
        assert_eq!(cols.iter().filter(|c| c["done"] == true).count(), 1);
    }

    async fn racing_creates_and_reorders_keep_positions_unique(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let cols = app.columns().await;
        let ids: Vec<String> = cols.iter().map(id).collect();
        let mut requests = Vec::new();
        for i in 0..12 {
            requests.push(("POST", "/api/columns".to_string(), json!({"tenantId": app.tenant, "name": format!("N{i}")})));
            let order = if i % 2 == 0 { json!([ids[2], ids[0], ids[1]]) } else { json!([ids[1], ids[2], ids[0]]) };
            requests.push(("PATCH", "/api/columns/order".to_string(), json!({"columnIds": order})));
        }
        let results = race(&app, requests.into_iter()).await;
        assert!(results.iter().all(|r| r.status == 200 || r.status == 201), "{results:?}");
        let set = set_of(&app, None).await;
        assert_eq!(set.len(), 15);
        let mut positions: Vec<i64> = set.iter().map(|c| c.1).collect();
        positions.dedup();
        assert_eq!(positions.len(), 15, "unique positions: {set:?}");
        let mut first_three: Vec<i64> = set.iter().filter(|c| ["To do", "Doing", "Done"].contains(&c.0.as_str())).map(|c| c.1).collect();
        first_three.sort();
        assert_eq!(first_three, vec![0, 1, 2], "reorders only permute the positions they hold");
    }

    // The search index keeps no foreign key (migration 0017): a column
    // deleted with its cards removes their words, and those of every comment
    // that committed on them before it (their cards locked first).
    async fn comments_racing_their_columns_deletion_leave_no_words(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        for round in 0..6u64 {
            let col = id(&app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": format!("Temp {round}")}))).await.body);
            let mut cards = Vec::new();
            for n in 0..3 {
                let body = json!({"tenantId": app.tenant, "title": format!("doomed {n}"), "columnId": col});
                cards.push(id(&app.call("POST", "/api/cards", Some(body)).await.body));
            }
            let barrier = Arc::new(Barrier::new(25));
            let mut tasks = Vec::new();
            for n in 0..24 {
                let (app, barrier) = (app.clone(), barrier.clone());
                let path = format!("/api/cards/{}/comments", cards[n % 3]);
                tasks.push(tokio::spawn(async move {
                    barrier.wait().await;
                    app.call("POST", &path, Some(json!({"content": format!("quokka{round} {n}")}))).await
                }));
            }
            barrier.wait().await;
            tokio::time::sleep(std::time::Duration::from_millis(round * 2)).await;
            let body = json!({"cards": "DELETE", "confirm": "APAGAR CARDS"});
            let r = app.call("DELETE", &format!("/api/columns/{col}"), Some(body)).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            for t in tasks {
                let r = t.await.unwrap();
                assert!(r.status == 201 || r.status == 404, "round {round}: {} {:?}", r.status, r.body);
            }
            for card in &cards {
                let left = crate::history::raw_sql(&app, "DELETE FROM search_terms WHERE card_id = $1", &[card.as_str()]).await;
                assert_eq!(left, 0, "round {round}: no word of a deleted card or its comments is left");
            }
        }
    }
}

/// Fires `requests` together (each on its own warmed connection) and returns
/// the responses in request order.
async fn race(
    app: &Arc<App>,
    requests: impl Iterator<Item = (&'static str, String, Value)>,
) -> Vec<common::Res> {
    let requests: Vec<_> = requests.collect();
    let barrier = Arc::new(Barrier::new(requests.len()));
    let tasks: Vec<_> = requests
        .into_iter()
        .map(|(method, path, body)| {
            let (app, barrier) = (app.clone(), barrier.clone());
            tokio::spawn(async move {
                assert_eq!(app.call("GET", "/healthz", None).await.status, 200);
                barrier.wait().await;
                app.call(method, &path, Some(body)).await
            })
        })
        .collect();
    let mut out = Vec::new();
    for t in tasks {
        out.push(t.await.expect("request task"));
    }
    out
}

/// `GET path` on the server at `base`: the status, the body and its tag.
async fn listed_at(app: &App, base: &str, path: &str, tag: &str) -> (u16, Value, String) {
    let mut req = app
        .http
        .get(format!("{base}{path}"))
        .bearer_auth(&app.token);
    if !tag.is_empty() {
        req = req.header("if-none-match", tag);
    }
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let etag = res.headers()["etag"].to_str().unwrap().to_string();
    let body = res.bytes().await.expect("body");
    (
        status,
        serde_json::from_slice(&body).unwrap_or(Value::Null),
        etag,
    )
}

// Each server keeps a workspace's listing by the workspace's version
// (board-core `columns/listing.rs`): every column write, made through another
// server or as the operator (the CLI), reaches the listing of a server that
// listed the columns before it, with a new tag, and a 304 never answers the
// old tag.
on_both_backends! {
    async fn a_servers_listing_follows_column_writes_made_elsewhere(backend) {
        let app = common::spawn_app(backend).await;
        let second = app.second_server().await;
        let t = app.tenant.clone();
        let path = format!("/api/columns?tenant={t}");
        let ws = board_core::WorkspaceId::parse(&t).expect("tenant id");
        let operator = app.db.open().await;
        let truth = || async {
            let query = board_core::SetQuery::workspace(ws.clone());
            let columns = operator
                .list_columns(&board_core::Actor::Operator, Some(&query))
                .await
                .expect("list");
            serde_json::to_value(columns).unwrap()
        };
        let (status, first, mut tag) = listed_at(&app, &app.base, &path, "").await;
        assert_eq!(status, 200);
        assert_eq!(first, truth().await);
        let todo = id(&first[0]);
        let doing = id(&first[1]);
        let elsewhere = |method: &'static str, p: String, body: Value| {
            let (app, base) = (&app, second.base.clone());
            async move {
                let r = app.call_at(&base, &app.token, method, &p, Some(body)).await;
                assert!(r.status < 300, "{method} {p}: {} {:?}", r.status, r.body);
                r.body
            }
        };
        let review = id(&elsewhere("POST", "/api/columns".into(), json!({"tenantId": t, "name": "Review"})).await);
        let mut steps = 0;
        for (method, p, body) in [
            ("PATCH", format!("/api/columns/{review}"), json!({"name": "Checked"})),
            ("PATCH", format!("/api/columns/{review}"), json!({"wipLimit": 4})),
            ("PATCH", format!("/api/columns/{review}"), json!({"done": true})),
            ("PATCH", "/api/columns/order".to_string(), json!({"columnIds": [review, todo]})),
            ("DELETE", format!("/api/columns/{doing}"), json!({"cards": "MOVE", "targetColumnId": todo})),
            ("OPERATOR", String::new(), Value::Null),
        ] {
            if method == "OPERATOR" {
                let name = board_core::Name::parse("Ops").unwrap();
                operator
                    .create_column(&board_core::Actor::Operator, board_core::NewColumn::new(ws.clone(), name))
                    .await
                    .expect("column created as the operator");
            } else {
                elsewhere(method, p, body).await;
            }
            steps += 1;
            let (status, listed, new_tag) = listed_at(&app, &app.base, &path, &tag).await;
            assert_eq!(status, 200, "step {steps}: the old tag answered");
            assert_eq!(listed, truth().await, "step {steps}");
            assert_ne!(new_tag, tag, "step {steps}");
            // Kept now: the same again, and a 304 for its tag.
            let (status, again, same) = listed_at(&app, &app.base, &path, "").await;
            assert_eq!((status, &again, &same), (200, &listed, &new_tag), "step {steps}");
            assert_eq!(listed_at(&app, &app.base, &path, &new_tag).await.0, 304, "step {steps}");
            tag = new_tag;
        }
        assert_eq!(steps, 6);
        let last = listed_at(&app, &app.base, &path, "").await.1;
        assert_eq!(first_names(&last), ["Checked", "Done", "To do", "Ops"]);
        operator.close().await;
    }
}

fn first_names(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["name"].as_str().unwrap())
        .collect()
}

// Column writes now take the workspace's row before their set's, as links
// take it alone: racing renames, a column deletion that takes linked cards with
// it, new links and moves all finish, none refused or deadlocked (PostgreSQL
// would abort one of a cycle with a 500).
on_both_backends! {
    async fn column_writes_racing_links_and_moves_all_finish(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let t = app.tenant.clone();
        let cols = app.call("GET", &format!("/api/columns?tenant={t}"), None).await.body;
        let (doing, done) = (id(&cols[1]), id(&cols[2]));
        let spare = id(&column(&app, json!({"tenantId": t, "name": "Spare"})).await);
        let mut cards = Vec::new();
        for i in 0..8 {
            cards.push(id(&app.card(&format!("c{i}")).await));
        }
        let mut doomed = Vec::new();
        for (i, kept) in cards.iter().take(3).enumerate() {
            let body = json!({"tenantId": t, "title": format!("d{i}"), "columnId": spare});
            let r = app.call("POST", "/api/cards", Some(body)).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            let d = id(&r.body);
            // Linked to the cards that stay: the deletion removes these links.
            let r = app
                .call("POST", &format!("/api/cards/{d}/relations"), Some(json!({"targetId": kept, "kind": "RELATED"})))
                .await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            doomed.push(d);
        }
        let mut requests = Vec::new();
        for i in 0..4 {
            let body = json!({"targetId": cards[i + 4], "kind": "RELATED"});
            requests.push(("POST", format!("/api/cards/{}/relations", cards[i]), body));
            let name = format!("Doing {i}");
            requests.push(("PATCH", format!("/api/columns/{doing}"), json!({"name": name})));
            requests.push(("PATCH", format!("/api/cards/{}", cards[i + 4]), json!({"columnId": done})));
        }
        let confirm = board_core::CONFIRM_DELETE_CARDS;
        requests.push(("DELETE", format!("/api/columns/{spare}"), json!({"cards": "DELETE", "confirm": confirm})));
        let answers = race(&app, requests.into_iter()).await;
        for r in &answers {
            assert!(r.status < 300, "{} {:?}", r.status, r.body);
        }
        for d in &doomed {
            assert_eq!(app.call("GET", &format!("/api/cards/{d}"), None).await.status, 404);
        }
        let listed = app.call("GET", &format!("/api/columns?tenant={t}"), None).await.body;
        assert_eq!(first_names(&listed).len(), 3, "{listed:?}");
        assert!(first_names(&listed)[1].starts_with("Doing "), "{listed:?}");
    }
}
