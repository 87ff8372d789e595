//! Card history over HTTP: names as they were, only the listed operations
//! write it, no write route, and access (401/403/404).

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// Runs one statement on the app's database, outside the service.
pub(crate) async fn raw_sql(app: &common::App, sql: &'static str, binds: &[&str]) -> u64 {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let mut q = sqlx::query(sql);
    for b in binds {
        q = q.bind(b.to_string());
    }
    let n = q.execute(&pool).await.expect("raw sql").rows_affected();
    pool.close().await;
    n
}

/// Every history row of the database.
async fn history_rows(app: &common::App) -> i64 {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM history")
        .fetch_one(&pool)
        .await
        .expect("count");
    pool.close().await;
    n
}

async fn history(app: &common::App, card: &str) -> Vec<Value> {
    let r = app
        .call("GET", &format!("/api/cards/{card}/history"), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_array().expect("array").clone()
}

on_both_backends! {
    async fn names_stay_as_they_were_after_a_rename(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let card = id(&app.card("c").await);
        let path = format!("/api/cards/{card}");
        let r = app.call("PATCH", &path, Some(json!({"columnId": id(&cols[1])}))).await;
        assert_eq!(r.status, 200);
        let before = history(&app, &card).await;
        assert_eq!(before.len(), 2);

        for (col, name) in [(&cols[0], "Backlog"), (&cols[1], "In progress")] {
            let r = app.call("PATCH", &format!("/api/columns/{}", id(col)), Some(json!({"name": name}))).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
        }
        assert_eq!(app.columns().await[1]["name"], "In progress", "the rename took effect");
        assert_eq!(history(&app, &card).await, before, "past entries keep the old names");

        // A later move records the names of its own moment.
        let r = app.call("PATCH", &path, Some(json!({"columnId": id(&cols[2])}))).await;
        assert_eq!(r.status, 200);
        let after = history(&app, &card).await;
        assert_eq!(&after[..2], &before[..]);
        assert_eq!(after[2]["fromName"], "In progress");
        assert_eq!(after[2]["toName"], "Done");
        assert!(after[2]["movedAt"].as_str() > after[1]["movedAt"].as_str());
    }

    async fn only_creation_and_moves_write_history(backend) {
        let app = common::spawn_app(backend).await;
        let cols = app.columns().await;
        let a = id(&app.card("a").await);
        let b = id(&app.card("b").await);
        assert_eq!(history_rows(&app).await, 2, "one entry per created card");
        let first = history(&app, &a).await;
        assert_eq!(first.len(), 1);
        assert_eq!(first[0]["fromName"], Value::Null);
        assert_eq!(first[0]["toName"], "To do");

        // Writes that are not a column change.
        let path = format!("/api/cards/{a}");
        assert_eq!(app.call("PATCH", &path, Some(json!({"title": "renamed"}))).await.status, 200);
        assert_eq!(app.call("PATCH", &path, Some(json!({"columnId": id(&cols[0])}))).await.status, 200);
        let r = app
            .call("POST", &format!("{path}/relations"), Some(json!({"targetId": b, "kind": "PARENT"})))
            .await;
        assert_eq!(r.status, 201);
        assert_eq!(app.call("DELETE", &format!("/api/relations/{}", id(&r.body)), None).await.status, 200);
        let r = app
            .call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Later"})))
            .await;
        assert_eq!(r.status, 201);
        assert_eq!(app.call("PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "allowCrossProjectLinks": true}))).await.status, 200);
        // Refused moves write nothing either.
        let r = app.call("PATCH", &path, Some(json!({"columnId": cuid2::create_id()}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(history_rows(&app).await, 2, "none of these wrote history");
        assert_eq!(history(&app, &a).await, first);

        // A move writes exactly one entry, on that card only.
        let r = app.call("PATCH", &path, Some(json!({"columnId": id(&cols[1])}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(history_rows(&app).await, 3);
        assert_eq!(history(&app, &b).await.len(), 1);
        let h = history(&app, &a).await;
        assert_eq!(h.len(), 2);
        assert_eq!((h[1]["fromName"].as_str(), h[1]["toName"].as_str()), (Some("To do"), Some("Doing")));
    }

    async fn no_write_route_and_access(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("c").await);
        let path = format!("/api/cards/{card}/history");
        let before = history(&app, &card).await;

        for m in ["POST", "PUT", "PATCH", "DELETE"] {
            let r = app.call(m, &path, Some(json!({"fromName": null, "toName": "x"}))).await;
            assert_eq!(r.status, 405, "{m}: {:?}", r.body);
            assert_eq!(r.body["error"], "METHOD_NOT_ALLOWED", "{m}");
        }
        assert_eq!(history(&app, &card).await, before);

        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        for token in ["", "brd_nope"] {
            let r = app.call_as(token, "GET", &path, None).await;
            assert_eq!(r.status, 401);
            assert_eq!(r.body["error"], "UNAUTHENTICATED");
            assert_eq!(app.call_as(token, "GET", "/api/cards/nope/history", None).await.status, 401);
        }
        for p in [format!("/api/cards/{}/history", cuid2::create_id()), "/api/cards/nope/history".into()] {
            let r = app.call_as(&outsider, "GET", &p, None).await;
            assert_eq!(r.status, 404, "{p}");
            assert_eq!(r.body["error"], "NOT_FOUND");
        }
        let r = app.call_as(&outsider, "GET", &path, None).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "FORBIDDEN");
        let r = app.call_as(&viewer, "GET", &path, None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!(before));
    }
}
