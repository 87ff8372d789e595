//! WIP limits (api.md §20): `wipLimit` on columns, `wipLimits` in settings,
//! `overLimit` on the board (SOFT), `WIP_LIMIT` refusals (HARD) on card create,
//! move, placed move and column deletion with MOVE, each changing nothing, and
//! racing moves into one limited column.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use testkit::sse::EventStream;
use testkit::{self as common, on_both_backends, App};

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// The ids of To do, Doing and Done.
async fn columns(app: &App) -> [String; 3] {
    let c = app.columns().await;
    [id(&c[0]), id(&c[1]), id(&c[2])]
}

async fn set_limit(app: &App, column: &str, limit: Value) -> common::Res {
    app.call(
        "PATCH",
        &format!("/api/columns/{column}"),
        Some(json!({ "wipLimit": limit })),
    )
    .await
}

async fn mode(app: &App, mode: &str) {
    let s = app
        .settings(json!({"tenantId": app.tenant, "wipLimits": mode}))
        .await;
    assert_eq!(s["wipLimits"], mode);
}

async fn create_in(app: &App, column: &str, title: &str) -> common::Res {
    let body = json!({"tenantId": app.tenant, "columnId": column, "title": title});
    app.call("POST", "/api/cards", Some(body)).await
}

async fn patch(app: &App, card: &str, body: Value) -> common::Res {
    app.call("PATCH", &format!("/api/cards/{card}"), Some(body))
        .await
}

async fn board(app: &App) -> Value {
    let r = app
        .call("GET", &format!("/api/board?tenant={}", app.tenant), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
}

/// Rows of cards, history and events in the whole database, read outside the
/// service: a refused request adds none.
async fn rows(app: &App) -> (i64, i64, i64) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let n = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM cards), (SELECT COUNT(*) FROM history), \
                (SELECT COUNT(*) FROM events)",
    )
    .fetch_one(&pool)
    .await
    .expect("counts");
    pool.close().await;
    n
}

fn assert_wip_limit(r: &common::Res, column: &str, limit: u64) {
    assert_eq!(r.status, 422, "{:?}", r.body);
    assert_eq!(r.body["error"], "WIP_LIMIT", "{:?}", r.body);
    let message = r.body["message"].as_str().expect("message");
    assert!(
        message.contains(&format!("'{column}'")) && message.contains(&format!("limit of {limit}")),
        "{message}"
    );
}

on_both_backends! {
    async fn a_column_carries_its_wip_limit(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/events?tenant={}", app.tenant);
        let mut events = EventStream::open(&app.http, &app.base, &app.token, &path, None).await;
        for c in app.columns().await {
            assert_eq!(c["wipLimit"], Value::Null, "{c}");
        }
        let body = json!({"tenantId": app.tenant, "name": "Review", "wipLimit": 3});
        let r = app.call("POST", "/api/columns", Some(body)).await;
        assert_eq!((r.status, &r.body["wipLimit"]), (201, &json!(3)), "{:?}", r.body);
        let review = id(&r.body);
        let body = json!({"tenantId": app.tenant, "name": "Open", "wipLimit": null});
        let r = app.call("POST", "/api/columns", Some(body)).await;
        assert_eq!((r.status, &r.body["wipLimit"]), (201, &Value::Null), "{:?}", r.body);

        let r = set_limit(&app, &review, json!(10000)).await;
        assert_eq!((r.status, &r.body["wipLimit"]), (200, &json!(10000)), "{:?}", r.body);
        // A PATCH without wipLimit keeps it; null removes it.
        let r = app.call("PATCH", &format!("/api/columns/{review}"), Some(json!({"name": "Check"}))).await;
        assert_eq!((r.status, &r.body["wipLimit"]), (200, &json!(10000)), "{:?}", r.body);
        let r = set_limit(&app, &review, Value::Null).await;
        assert_eq!((r.status, &r.body["wipLimit"]), (200, &Value::Null), "{:?}", r.body);
        set_limit(&app, &review, json!(1)).await;

        // Bad values: 422 naming what is accepted, and nothing changes.
        let before = (app.columns().await, rows(&app).await);
        for bad in [json!(0), json!(10001), json!(-1), json!(2.5), json!("3"), json!(true), json!([1])] {
            let r = set_limit(&app, &review, bad.clone()).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")), "{bad}: {:?}", r.body);
            let msg = r.body["details"]["fieldErrors"]["wipLimit"][0].as_str().unwrap_or_default();
            assert!(msg.contains("an integer from 1 to 10000, or null"), "{bad}: {msg}");
            let body = json!({"tenantId": app.tenant, "name": "Bad", "wipLimit": bad});
            let r = app.call("POST", "/api/columns", Some(body)).await;
            assert_eq!(r.status, 422, "{:?}", r.body);
            assert!(r.body["details"]["fieldErrors"]["wipLimit"].is_array(), "{:?}", r.body);
        }
        assert_eq!((app.columns().await, rows(&app).await), before);
        // Every column event carries the limit.
        let frames = events.take(6, Duration::from_secs(5)).await;
        let seen: Vec<(&str, &Value)> = frames.iter().map(|f| (f.event.as_str(), &f.data["subject"]["wipLimit"])).collect();
        assert_eq!(seen, [
            ("column.created", &json!(3)), ("column.created", &Value::Null),
            ("column.updated", &json!(10000)), ("column.updated", &json!(10000)),
            ("column.updated", &Value::Null), ("column.updated", &json!(1)),
        ]);
        assert!(events.next(Duration::from_millis(300)).await.is_none(), "nothing for the refusals");
    }

    async fn settings_carry_the_wip_limits_mode(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/settings?tenant={}", app.tenant);
        let r = app.call("GET", &path, None).await;
        assert_eq!((r.status, &r.body["wipLimits"]), (200, &json!("SOFT")), "{:?}", r.body);
        let body = json!({"tenantId": app.tenant, "wipLimits": "HARD"});
        let r = app.call("PATCH", "/api/settings", Some(body)).await;
        assert_eq!((r.status, &r.body["wipLimits"]), (200, &json!("HARD")), "{:?}", r.body);
        for bad in [json!("hard"), json!("NONE"), json!(1), Value::Null] {
            let body = json!({"tenantId": app.tenant, "wipLimits": bad});
            let r = app.call("PATCH", "/api/settings", Some(body)).await;
            assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
            assert!(r.body["details"]["fieldErrors"]["wipLimits"].is_array(), "{:?}", r.body);
        }
        let r = app.call("GET", &path, None).await;
        assert_eq!(r.body["wipLimits"], "HARD");
        // Another setting keeps the mode.
        let body = json!({"tenantId": app.tenant, "columnManagement": true});
        let r = app.call("PATCH", "/api/settings", Some(body)).await;
        assert_eq!(r.body["wipLimits"], "HARD", "{:?}", r.body);
    }

    async fn soft_limits_refuse_nothing_and_mark_the_board(backend) {
        let app = common::spawn_app(backend).await;
        let [todo, doing, _] = columns(&app).await;
        set_limit(&app, &doing, json!(2)).await;
        for t in ["a", "b", "c"] {
            assert_eq!(create_in(&app, &doing, t).await.status, 201);
        }
        let card = id(&app.card("moved").await);
        let r = patch(&app, &card, json!({"columnId": doing})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let view = board(&app).await;
        let over: Vec<(&Value, &Value, usize)> = view["columns"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| (&c["id"], &c["overLimit"], c["cards"].as_array().unwrap().len()))
            .collect();
        assert_eq!(over[0], (&json!(todo), &json!(false), 0));
        assert_eq!(over[1], (&json!(doing), &json!(true), 4));
        assert_eq!(over[2].1, &json!(false));
        assert_eq!(view["columns"][1]["wipLimit"], 2);
        // At the limit is not over it.
        set_limit(&app, &doing, json!(4)).await;
        assert_eq!(board(&app).await["columns"][1]["overLimit"], false);
    }

    async fn hard_limits_refuse_what_would_exceed_them_and_change_nothing(backend) {
        let app = common::spawn_app(backend).await;
        let [todo, doing, done] = columns(&app).await;
        mode(&app, "HARD").await;
        set_limit(&app, &doing, json!(2)).await;
        let inside: Vec<String> = {
            let mut ids = Vec::new();
            for t in ["a", "b"] {
                let r = create_in(&app, &doing, t).await;
                assert_eq!(r.status, 201, "{:?}", r.body);
                ids.push(id(&r.body));
            }
            ids
        };
        let waiting = id(&app.card("waiting").await);
        let before = (board(&app).await, rows(&app).await);

        assert_wip_limit(&create_in(&app, &doing, "c").await, "Doing", 2);
        let placed = json!({"tenantId": app.tenant, "title": "c", "beforeId": inside[0], "columnId": doing});
        assert_wip_limit(&app.call("POST", "/api/cards", Some(placed)).await, "Doing", 2);
        assert_wip_limit(&patch(&app, &waiting, json!({"columnId": doing})).await, "Doing", 2);
        let placed = json!({"columnId": doing, "afterId": inside[0], "title": "renamed too"});
        assert_wip_limit(&patch(&app, &waiting, placed).await, "Doing", 2);
        assert_eq!((board(&app).await, rows(&app).await), before, "a refusal changes nothing");

        // Within the column, and out of it, nothing is added: allowed.
        let r = patch(&app, &inside[1], json!({"beforeId": inside[0]})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = patch(&app, &inside[1], json!({"columnId": doing, "afterId": inside[0]})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = patch(&app, &inside[0], json!({"columnId": done})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = patch(&app, &waiting, json!({"columnId": doing, "beforeId": inside[1]})).await;
        assert_eq!(r.status, 200, "a place freed: {:?}", r.body);

        // Lowering the limit below the count is allowed; it refuses only additions.
        let r = set_limit(&app, &doing, json!(1)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(board(&app).await["columns"][1]["overLimit"], true);
        assert_wip_limit(&patch(&app, &inside[0], json!({"columnId": doing})).await, "Doing", 1);
        assert_eq!(patch(&app, &waiting, json!({"title": "renamed"})).await.status, 200);
        assert_eq!(patch(&app, &waiting, json!({"columnId": todo})).await.status, 200);
        assert_wip_limit(&patch(&app, &waiting, json!({"columnId": doing})).await, "Doing", 1);

        // The default column of a new card counts too.
        set_limit(&app, &todo, json!(1)).await;
        let r = app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "x"}))).await;
        assert_wip_limit(&r, "To do", 1);

        // Back to SOFT: nothing is refused.
        mode(&app, "SOFT").await;
        assert_eq!(patch(&app, &inside[0], json!({"columnId": doing})).await.status, 200);
        assert_eq!(create_in(&app, &todo, "y").await.status, 201);
    }

    async fn a_column_deletion_with_move_respects_the_target_limit(backend) {
        let app = common::spawn_app(backend).await;
        let [_, doing, _] = columns(&app).await;
        mode(&app, "HARD").await;
        let body = json!({"tenantId": app.tenant, "name": "Review"});
        let review = id(&app.call("POST", "/api/columns", Some(body)).await.body);
        for t in ["r1", "r2"] {
            assert_eq!(create_in(&app, &review, t).await.status, 201);
        }
        assert_eq!(create_in(&app, &doing, "d1").await.status, 201);
        set_limit(&app, &doing, json!(2)).await;
        let before = (board(&app).await, rows(&app).await, app.columns().await);
        let path = format!("/api/columns/{review}");
        let del = json!({"cards": "MOVE", "targetColumnId": doing});
        let r = app.call("DELETE", &path, Some(del.clone())).await;
        assert_wip_limit(&r, "Doing", 2);
        assert_eq!((board(&app).await, rows(&app).await, app.columns().await), before);

        set_limit(&app, &doing, json!(3)).await;
        let r = app.call("DELETE", &path, Some(del)).await;
        assert_eq!((r.status, &r.body["cardsMoved"]), (200, &json!(2)), "{:?}", r.body);
        let view = board(&app).await;
        assert_eq!(view["columns"][1]["cards"].as_array().unwrap().len(), 3);
        assert_eq!(view["columns"][1]["overLimit"], false);
    }

    async fn flow_columns_carry_the_wip_limit(backend) {
        let app = common::spawn_app(backend).await;
        let [_, doing, _] = columns(&app).await;
        set_limit(&app, &doing, json!(4)).await;
        let r = app.call("GET", &format!("/api/flow?tenant={}", app.tenant), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let limits: Vec<&Value> = r.body["columns"].as_array().unwrap().iter().map(|c| &c["wipLimit"]).collect();
        assert_eq!(limits, [&Value::Null, &json!(4), &Value::Null]);
    }

    async fn the_openapi_document_describes_wip_limits(backend) {
        let app = common::spawn_app(backend).await;
        let doc = app.call_as("", "GET", "/api/openapi.json", None).await.body;
        let schemas = &doc["components"]["schemas"];
        assert_eq!((&schemas["WipLimit"]["minimum"], &schemas["WipLimit"]["maximum"]), (&json!(1), &json!(10000)));
        assert_eq!(schemas["WipLimits"]["enum"], json!(["SOFT", "HARD"]));
        for (schema, field) in [
            ("Column", "wipLimit"), ("NewColumn", "wipLimit"), ("ColumnPatch", "wipLimit"),
            ("FlowColumn", "wipLimit"), ("Settings", "wipLimits"), ("SettingsPatch", "wipLimits"),
        ] {
            assert!(schemas[schema]["properties"][field].is_object(), "{schema}.{field}: {}", schemas[schema]);
        }
        let board_column = schemas["BoardColumn"].to_string();
        assert!(board_column.contains("overLimit"), "{board_column}");
        assert!(schemas["Settings"]["required"].to_string().contains("wipLimits"));
        let errors = doc["paths"]["/api/cards/{id}"]["patch"]["responses"]["422"]["description"].to_string();
        assert!(errors.contains("WIP_LIMIT"), "{errors}");
    }

    async fn racing_moves_never_exceed_a_hard_limit(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let [todo, doing, _] = columns(&app).await;
        mode(&app, "HARD").await;
        set_limit(&app, &doing, json!(3)).await;
        let second = app.second_server().await;
        let bases = [app.base.clone(), second.base.clone()];
        testkit::wip::race_moves(app.clone(), &bases, &todo, &doing, 24, 3).await;
    }

    // Moves to a column's end lock that column alone and share the set; a
    // column deletion with MOVE locks the set: the two wait for each other, so
    // the cards moved in never land beside the deleted column's on one
    // position, nor past the limit.
    async fn racing_moves_and_a_deletion_moving_into_one_column_keep_its_limit(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let [todo, doing, _] = columns(&app).await;
        mode(&app, "HARD").await;
        for round in 0..4 {
            let body = json!({"tenantId": app.tenant, "name": format!("Review {round}")});
            let review = id(&app.call("POST", "/api/columns", Some(body)).await.body);
            for t in ["r1", "r2"] {
                assert_eq!(create_in(&app, &review, t).await.status, 201);
            }
            let mut movers = Vec::new();
            for i in 0..12 {
                movers.push(id(&create_in(&app, &todo, &format!("m{round}.{i}")).await.body));
            }
            let held = app.column_order(&doing).await.len();
            let limit = held + 6;
            set_limit(&app, &doing, json!(limit)).await;
            let barrier = Arc::new(tokio::sync::Barrier::new(movers.len() + 1));
            let mut tasks = Vec::new();
            for card in movers {
                let (app, doing, barrier) = (app.clone(), doing.clone(), barrier.clone());
                tasks.push(tokio::spawn(async move {
                    barrier.wait().await;
                    patch(&app, &card, json!({"columnId": doing})).await
                }));
            }
            let deletion = {
                let (app, doing, barrier) = (app.clone(), doing.clone(), barrier.clone());
                tokio::spawn(async move {
                    barrier.wait().await;
                    let del = json!({"cards": "MOVE", "targetColumnId": doing});
                    app.call("DELETE", &format!("/api/columns/{review}"), Some(del)).await
                })
            };
            let mut added = 0;
            for t in tasks {
                let r = t.await.unwrap();
                match r.status {
                    200 => added += 1,
                    _ => assert_wip_limit(&r, "Doing", limit as u64),
                }
            }
            let r = deletion.await.unwrap();
            match r.status {
                200 => added += 2,
                _ => assert_wip_limit(&r, "Doing", limit as u64),
            }
            let now = app.column_order(&doing).await.len();
            assert_eq!(now, held + added, "round {round}: every accepted change landed");
            assert!(now <= limit, "round {round}: {now} cards in a column limited to {limit}");
            assert_eq!(added, 6, "round {round}: twelve movers fill the room the limit leaves");
        }
    }
}
