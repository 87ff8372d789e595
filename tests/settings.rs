//! `GET /api/settings` (Viewer) and `PATCH /api/settings` (Admin).

mod common;

use serde_json::json;

on_both_backends! {
    async fn read_and_change_settings(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/settings?tenant={}", app.tenant);
        let r = app.call("GET", &path, None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"tenantId": app.tenant, "columnScope": "TENANT", "columnManagement": true, "allowCrossProjectLinks": false}));

        let r = app.call("PATCH", "/api/settings", Some(json!({"tenantId": app.tenant, "columnScope": "PROJECT", "allowCrossProjectLinks": true}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"tenantId": app.tenant, "columnScope": "PROJECT", "columnManagement": true, "allowCrossProjectLinks": true}));
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
}
