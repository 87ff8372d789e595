//! `GET /api/settings` (Viewer) and `PATCH /api/settings` (Admin).

use serde_json::json;
use testkit::{self as common, on_both_backends};

on_both_backends! {
    async fn read_and_change_settings(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/settings?tenant={}", app.tenant);
        let r = app.call("GET", &path, None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"tenantId": app.tenant, "columnScope": "TENANT", "columnManagement": true, "allowCrossProjectLinks": false, "wipLimits": "SOFT"}));

        let r = app.call("PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "columnScope": "PROJECT", "allowCrossProjectLinks": true}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"tenantId": app.tenant, "columnScope": "PROJECT", "columnManagement": true, "allowCrossProjectLinks": true, "wipLimits": "SOFT"}));
        assert_eq!(app.call("GET", &path, None).await.body, r.body);

        for body in [
            json!({"columnScope": "PROJECT"}),
            json!({"tenantId": app.tenant, "columnScope": "project"}),
            json!({"tenantId": app.tenant, "columnManagement": "off"}),
            json!({"tenantId": app.tenant, "other": 1}),
        ] {
            let r = app.call("PATCH", "/api/settings", Some(body.clone())).await;
            assert_eq!(r.status, 422, "{body}");
            assert_eq!(r.body["error"], "VALIDATION_FAILED");
        }
        assert_eq!(app.call("GET", "/api/settings", None).await.status, 422);

        let viewer = app.account_in(&app.tenant, "vi", "viewer").await;
        assert_eq!(app.call_as(&viewer, "GET", &path, None).await.status, 200);
        let r = app.call_as(&viewer, "PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "columnScope": "TENANT"}))).await;
        assert_eq!(r.status, 403);
        let other = app.workspace("Other").await;
        assert_eq!(app.call("GET", &format!("/api/settings?tenant={other}"), None).await.status, 403);
        let r = app.call("PATCH", "/api/settings", Some(json!({"tenantId": other, "columnScope": "PROJECT"}))).await;
        assert_eq!(r.status, 403);
        assert_eq!(app.call_as("", "GET", &path, None).await.status, 401);
        assert_eq!(app.call("GET", &path, None).await.body["columnScope"], "PROJECT", "refusals changed nothing");
    }

    async fn racing_admins_lose_no_setting(backend) {
        // Two admins, each through its own server on the same database (its
        // own pool and write queue, as another process would have),
        // change different settings at the same moment: 20 rounds, and after
        // each both changes hold. Fails on PostgreSQL without the settings row
        // lock (a read-then-write of all three fields), on SQLite without
        // BEGIN IMMEDIATE.
        let app = common::spawn_app(backend).await;
        let second = app.second_server().await;
        let second_base = second.base.clone();
        let ada = app.account_in(&app.tenant, "ada", "admin").await;
        let path = format!("/api/settings?tenant={}", app.tenant);
        let mut lost = Vec::new();
        for round in 0..20 {
            let management = round % 2 == 1;
            let cross = round % 2 == 0;
            let (a, b) = tokio::join!(
                app.call("PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "columnManagement": management}))),
                app.call_at(&second_base, &ada, "PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "allowCrossProjectLinks": cross}))),
            );
            assert_eq!((a.status, b.status), (200, 200), "{:?} {:?}", a.body, b.body);
            let now = app.call("GET", &path, None).await.body;
            if now["columnManagement"] != management || now["allowCrossProjectLinks"] != cross {
                lost.push((round, now));
            }
        }
        assert!(lost.is_empty(), "changes lost in {} of 20 rounds: {lost:?}", lost.len());
    }
}
