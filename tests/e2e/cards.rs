//! Cards over HTTP: create, read, rename, move (with history), delete, the
//! board payload, schema failures, and racing moves.

use std::sync::Arc;

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};
use tokio::sync::Barrier;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// Sends every move (a card's path, the column it goes to) at once: each task
/// opens its connection first (a read of its card), so that the moves start
/// together. Their answers, in the order given.
async fn race_moves(app: &Arc<common::App>, moves: Vec<(String, String)>) -> Vec<common::Res> {
    let barrier = Arc::new(Barrier::new(moves.len()));
    let mut tasks = Vec::new();
    for (path, to) in moves {
        let (app, barrier) = (app.clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            assert_eq!(app.call("GET", &path, None).await.status, 200);
            barrier.wait().await;
            app.call("PATCH", &path, Some(json!({"columnId": to})))
                .await
        }));
    }
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.unwrap());
    }
    answers
}

on_both_backends! {
    async fn create_get_rename_move_delete(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let (todo, doing) = (id(&cols[0]), id(&cols[1]));

        let card = app.card("  First  ").await;
        assert_eq!(card["title"], "First", "titles are trimmed");
        assert_eq!(card["tenantId"], app.tenant.as_str());
        assert_eq!(card["projectId"], Value::Null);
        assert_eq!(card["columnId"], todo.as_str(), "default: first column of the set");
        assert_eq!(card["position"], 65536, "positions are spaced 2^16 apart");
        let created = card["createdAt"].as_str().unwrap();
        assert_eq!(created.len(), 24, "{created}");
        assert!(created.ends_with('Z') && created.as_bytes()[19] == b'.');
        let second = app.card("Second").await;
        assert_eq!(second["position"], 2 * 65536, "cards go to the end of their column");

        let path = format!("/api/cards/{}", id(&card));
        let mut got = app.call("GET", &path, None).await;
        assert_eq!(got.status, 200);
        // The reader's own `watching` (api.md §26) is the GET's alone.
        assert_eq!(got.body.as_object_mut().unwrap().remove("watching"), Some(json!(true)));
        assert_eq!(got.body, card);

        let moved = app.call("PATCH", &path, Some(json!({"columnId": doing, "title": "Renamed"}))).await;
        assert_eq!(moved.status, 200, "{:?}", moved.body);
        assert_eq!(moved.body["columnId"], doing.as_str());
        assert_eq!(moved.body["title"], "Renamed");
        assert!(moved.body["updatedAt"].as_str() > card["updatedAt"].as_str());

        // A "move" to the same column writes no history.
        let same = app.call("PATCH", &path, Some(json!({"columnId": doing}))).await;
        assert_eq!(same.status, 200);
        let h = app.call("GET", &format!("{path}/history"), None).await;
        assert_eq!(h.status, 200);
        let entries = h.body.as_array().unwrap();
        assert_eq!(entries.len(), 2, "{entries:?}");
        assert_eq!(entries[0]["fromName"], Value::Null);
        assert_eq!(entries[0]["toName"], "To do");
        assert_eq!(entries[1]["fromName"], "To do");
        assert_eq!(entries[1]["toName"], "Doing");

        let del = app.call("DELETE", &path, None).await;
        assert_eq!(del.status, 200);
        assert_eq!(del.body, json!({"deleted": true}));
        assert_eq!(app.call("GET", &path, None).await.status, 404);
        assert_eq!(app.call("DELETE", &path, None).await.status, 404);
        assert_eq!(app.call("GET", &format!("{path}/history"), None).await.status, 404);
    }

    async fn create_in_a_named_column_and_refuse_other_sets(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let done = id(&cols[2]);
        let r = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "t", "columnId": done})))
            .await;
        assert_eq!(r.status, 201);
        assert_eq!(r.body["columnId"], done.as_str());

        // A column of another workspace is outside the set in effect.
        let other = app.workspace("Other").await;
        let col = app
            .call("POST", "/api/columns", Some(json!({"tenantId": other, "name": "Elsewhere"})))
            .await;
        // The admin of Default does not reach Other.
        assert_eq!(col.status, 403);
        // A workspace is born with To do / Doing / Done: cards can be created at once.
        let seeded = app.card_in(&other, "seed").await;
        let elsewhere = seeded["columnId"].as_str().expect("column id").to_string();

        let unknown = cuid2::create_id();
        for column in [elsewhere.as_str(), unknown.as_str()] {
            let r = app
                .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "t", "columnId": column})))
                .await;
            assert_eq!(r.status, 422);
            assert_eq!(r.body["error"], "INVALID_TARGET_COLUMN");
        }
        let card = app.card("c").await;
        let r = app
            .call("PATCH", &format!("/api/cards/{}", id(&card)), Some(json!({"columnId": unknown})))
            .await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "INVALID_TARGET_COLUMN");

        // A project of another workspace is a schema failure of projectId.
        let project = json!({"id": app.project(&other, "P").await});
        let r = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "t", "projectId": project["id"]})))
            .await;
        assert_eq!(r.status, 422);
        assert!(r.body["details"]["fieldErrors"]["projectId"].is_array(), "{:?}", r.body);
    }

    async fn schema_failures_are_422_with_details(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("c").await;
        let path = format!("/api/cards/{}", id(&card));

        let r = app
            .call("POST", "/api/cards", Some(json!({"tenantId": 5, "title": "   ", "extra": true})))
            .await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "VALIDATION_FAILED");
        let d = &r.body["details"];
        assert!(d["fieldErrors"]["tenantId"][0].is_string(), "{d}");
        assert!(d["fieldErrors"]["title"][0].is_string(), "{d}");
        assert!(d["formErrors"][0].as_str().unwrap().contains("extra"), "{d}");

        let r = app.call("POST", "/api/cards", Some(json!({}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["details"]["fieldErrors"]["tenantId"], json!(["Required"]));
        assert_eq!(r.body["details"]["fieldErrors"]["title"], json!(["Required"]));

        let long = "x".repeat(101);
        let r = app.call("PATCH", &path, Some(json!({"title": long}))).await;
        assert_eq!(r.status, 422);
        assert!(r.body["details"]["fieldErrors"]["title"].is_array());

        // PATCH refuses fields it does not take, such as tenantId.
        let r = app.call("PATCH", &path, Some(json!({"tenantId": app.tenant}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["details"]["formErrors"].as_array().unwrap().len(), 1);
        assert_eq!(r.body["details"]["fieldErrors"], json!({}));

        for (body, what) in [("{not json", "not JSON"), ("", "empty"), ("[1,2]", "an array"), ("\"s\"", "a string")] {
            let auth = format!("Bearer {}", app.token);
            let r = app
                .raw("PATCH", &path, &[("authorization", &auth), ("content-type", "application/json")], body)
                .await;
            assert_eq!(r.status, 422, "{what}");
            assert_eq!(r.body["error"], "VALIDATION_FAILED");
            assert_eq!(r.body["details"]["formErrors"].as_array().unwrap().len(), 1, "{what}: {:?}", r.body);
        }

        // Wrong type for a body id.
        let r = app.call("PATCH", &path, Some(json!({"columnId": 12}))).await;
        assert_eq!(r.status, 422);
        assert!(r.body["details"]["fieldErrors"]["columnId"].is_array());

        // The card did not change.
        let mut after = app.call("GET", &path, None).await;
        after.body.as_object_mut().unwrap().remove("watching");
        assert_eq!(after.body, card);
    }

    // Found by schemathesis: a name of one NUL passed the name rule and then
    // broke the database's CHECK (SQLite's length() stops at NUL; PostgreSQL
    // refuses NUL in text), a 500. Text with NUL is now a schema failure, and
    // a control character in an uploaded file's name becomes `_`. On
    // PostgreSQL a NUL in a query id was a 500 too.
    async fn nul_is_refused_in_text_and_control_characters_leave_file_names(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("c").await;
        let card_id = id(&card);
        for (method, path, body, field) in [
            ("POST", "/api/columns".to_string(), json!({"tenantId": app.tenant, "name": "\u{0}"}), "name"),
            ("POST", "/api/cards".to_string(), json!({"tenantId": app.tenant, "title": "a\u{0}b"}), "title"),
            ("PATCH", format!("/api/cards/{card_id}"), json!({"title": "\u{0}"}), "title"),
            ("POST", format!("/api/cards/{card_id}/comments"), json!({"content": "x\u{0}"}), "content"),
        ] {
            let r = app.call(method, &path, Some(body)).await;
            assert_eq!(r.status, 422, "{method} {path}: {:?}", r.body);
            assert!(r.body["details"]["fieldErrors"][field][0].as_str().unwrap().contains("NUL"), "{:?}", r.body);
        }
        // A query id is never sent to the database unless it is well-formed.
        let t = &app.tenant;
        for (path, status) in [
            ("/api/columns?tenant=%00".to_string(), 403),
            ("/api/settings?tenant=%00".to_string(), 403),
            ("/api/board?tenant=%00".to_string(), 403),
            (format!("/api/board?tenant={t}&project=%00"), 422),
            (format!("/api/columns?tenant={t}&project=a%00"), 422),
        ] {
            let r = app.call("GET", &path, None).await;
            assert_eq!(r.status, status, "{path}: {:?}", r.body);
        }
        let form = reqwest::multipart::Form::new().part(
            "files",
            reqwest::multipart::Part::bytes(b"hello".to_vec()).file_name("a\tb.txt"),
        );
        let res = app
            .http
            .post(format!("{}/api/cards/{card_id}/attachments", app.base))
            .bearer_auth(&app.token)
            .multipart(form)
            .send()
            .await
            .unwrap();
        assert_eq!(res.status().as_u16(), 201);
        let stored: serde_json::Value = res.json().await.unwrap();
        assert_eq!(stored[0]["originalName"], "a_b.txt");
    }

    async fn path_ids_malformed_or_unknown_are_404(backend) {
        let app = common::spawn_app(backend).await;
        for p in ["/api/cards/nope", &format!("/api/cards/{}", cuid2::create_id())] {
            let r = app.call("GET", p, None).await;
            assert_eq!(r.status, 404, "{p}");
            assert_eq!(r.body["error"], "NOT_FOUND");
            assert_eq!(app.call("PATCH", p, Some(json!({"title": "x"}))).await.status, 404);
            assert_eq!(app.call("DELETE", p, None).await.status, 404);
        }
        // 401 comes before 404.
        assert_eq!(app.call_as("", "GET", "/api/cards/nope", None).await.status, 401);
        // 404 for the path resource comes before 422 for the body.
        let r = app.call("PATCH", "/api/cards/nope", Some(json!({"title": 5}))).await;
        assert_eq!(r.status, 404);
        // Unknown routes and methods answer in the same JSON shape.
        let r = app.call("GET", "/api/nothing-here", None).await;
        assert_eq!(r.status, 404);
        assert_eq!(r.body["error"], "NOT_FOUND");
        let r = app.call("PUT", "/api/cards", None).await;
        assert_eq!(r.status, 405);
        assert!(r.body["error"].is_string());
    }

    async fn board_payload_shows_the_set_in_effect(backend) {
        let app = common::spawn_app(backend).await;
        let a = app.card("a").await;
        let b = app.card("b").await;
        let cols = app.columns().await;
        app.call("PATCH", &format!("/api/cards/{}", id(&b)), Some(json!({"columnId": id(&cols[2])})))
            .await;
        let r = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await;
        assert_eq!(r.status, 200);
        let columns = r.body["columns"].as_array().unwrap();
        assert_eq!(columns.len(), 3);
        assert_eq!(columns[0]["name"], "To do");
        assert_eq!(columns[0]["cards"].as_array().unwrap().len(), 1);
        assert_eq!(columns[0]["cards"][0], a, "the board's card whole, as created");
        assert_eq!(columns[2]["cards"][0]["id"], b["id"]);
        assert_eq!(columns[2]["done"], true);

        // A project set takes effect for the project's cards only under PROJECT scope.
        let pid = &app.project(&app.tenant, "Proj").await;
        let r = app
            .call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "projectId": pid, "name": "Backlog"})))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let q = format!("/api/board?tenant={}&project={pid}", app.tenant);
        assert_eq!(app.call("GET", &q, None).await.body["columns"].as_array().unwrap().len(), 3);
        app.settings(json!({"tenantId": app.tenant, "columnScope": "PROJECT"})).await;
        let r = app.call("GET", &q, None).await;
        let cols = r.body["columns"].as_array().unwrap();
        assert_eq!(cols.len(), 1);
        assert_eq!(cols[0]["name"], "Backlog");
        assert_eq!(cols[0]["done"], true, "first column of an empty set is its done column");

        // Project cards land in the project set; moving into the tenant set is refused.
        let card = app
            .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "projectId": pid, "title": "p"})))
            .await;
        assert_eq!(card.status, 201);
        assert_eq!(card.body["columnId"], cols[0]["id"]);
        let board = app.call("GET", &q, None).await.body;
        assert_eq!(board["columns"][0]["cards"][0], card.body, "a project's card whole");
        let r = app
            .call("PATCH", &format!("/api/cards/{}", id(&card.body)), Some(json!({"columnId": id(&columns[0])})))
            .await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["error"], "INVALID_TARGET_COLUMN");

        let r = app.call("GET", "/api/board", None).await;
        assert_eq!(r.status, 422);
        assert_eq!(r.body["details"]["fieldErrors"]["tenant"], json!(["Required"]));
        let r = app
            .call("GET", &format!("/api/board?tenant={}&project={}", app.tenant, cuid2::create_id()), None)
            .await;
        assert_eq!(r.status, 422);
        assert!(r.body["details"]["fieldErrors"]["project"].is_array(), "{:?}", r.body);
    }

    async fn deleting_a_card_removes_its_history(backend) {
        use board_server::error::HttpStatus;
        let app = common::spawn_app(backend).await;
        let card = app.card("gone").await;
        let keep = app.card("kept").await;
        let cid = id(&card);
        app.call("DELETE", &format!("/api/cards/{cid}"), None).await;
        let board = app.board().await;
        let err = board
            .card_history(&board_core::Actor::Operator, &board_core::CardId::parse(&cid).unwrap())
            .await
            .unwrap_err();
        assert_eq!(err.status_code(), 404);
        let kept = board
            .card_history(&board_core::Actor::Operator, &board_core::CardId::parse(&id(&keep)).unwrap())
            .await
            .unwrap();
        assert_eq!(kept.len(), 1);
    }

    async fn racing_moves_all_succeed_with_one_history_row_each(backend) {
        const MOVES: usize = 32;
        let app = Arc::new(common::spawn_app(backend).await);
        // One column per move, so every move is a real one whatever the order.
        let mut targets = Vec::new();
        for i in 0..MOVES {
            let r = app
                .call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": format!("C{i}")})))
                .await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            targets.push(id(&r.body));
        }
        let card = app.card("racer").await;
        let path = format!("/api/cards/{}", id(&card));
        let moves = targets.into_iter().map(|to| (path.clone(), to)).collect();
        for r in race_moves(&app, moves).await {
            assert_eq!(r.status, 200, "a racing move failed: {:?}", r.body);
        }
        let h = app.call("GET", &format!("{path}/history"), None).await;
        let entries = h.body.as_array().unwrap();
        assert_eq!(entries.len(), MOVES + 1, "one creation entry plus one per move");
        // The entries chain: each move starts where the previous one ended.
        for pair in entries.windows(2) {
            assert_eq!(pair[1]["fromName"], pair[0]["toName"], "{entries:?}");
        }
        let now = app.call("GET", &path, None).await;
        let last = entries.last().unwrap()["toName"].as_str().unwrap();
        let col = app.columns().await.into_iter().find(|c| c["id"] == now.body["columnId"]).unwrap();
        assert_eq!(col["name"], last);
    }

    async fn racing_moves_into_one_column_each_get_their_own_end(backend) {
        const CARDS: usize = 24;
        let app = Arc::new(common::spawn_app(backend).await);
        let to = app.columns().await[1]["id"].as_str().unwrap().to_string();
        let mut paths = Vec::new();
        for i in 0..CARDS {
            paths.push(format!("/api/cards/{}", id(&app.card(&format!("mover {i}")).await)));
        }
        let moves = paths.iter().map(|p| (p.clone(), to.clone())).collect();
        // Each move answers the place it took: a position of its own, the
        // card's stored one, below every card moved in before it.
        let mut answered = Vec::new();
        for r in race_moves(&app, moves).await {
            assert_eq!(r.status, 200, "a racing move failed: {:?}", r.body);
            assert_eq!(r.body["columnId"], to.as_str());
            let stored = app.call("GET", &format!("/api/cards/{}", id(&r.body)), None).await;
            assert_eq!(stored.body["position"], r.body["position"], "{:?}", r.body);
            answered.push(r.body["position"].as_i64().unwrap());
        }
        answered.sort_unstable();
        answered.dedup();
        assert_eq!(answered.len(), CARDS, "two moves took one position");
        let board = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await;
        let column = board.body["columns"].as_array().unwrap().iter().find(|c| c["id"] == to.as_str()).unwrap();
        let positions: Vec<i64> = column["cards"].as_array().unwrap().iter().map(|c| c["position"].as_i64().unwrap()).collect();
        assert_eq!(positions, answered, "the board lists the moved cards by position");
        // Every move wrote its one entry.
        for path in paths {
            let h = app.call("GET", &format!("{path}/history"), None).await;
            assert_eq!(h.body.as_array().unwrap().len(), 2, "{:?}", h.body);
        }
    }
}
