//! `GET /api/members?tenant=T` (api.md §17): the workspace's members by
//! name, for a Viewer; `tenant` required; a role refusal is 403 `FORBIDDEN`.

use serde_json::json;
use testkit::{self as common, on_every_store};

on_every_store! {
    async fn a_viewer_lists_the_members_by_name(backend) {
        let app = common::spawn_app(backend).await;
        let viewer = app.account_in(&app.tenant, "zoe", "viewer").await;
        app.account_in(&app.tenant, "bea", "member").await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        let path = format!("/api/members?tenant={}", app.tenant);
        let r = app.call_as(&viewer, "GET", &path, None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let rows = r.body.as_array().unwrap();
        let names: Vec<&str> = rows.iter().map(|m| m["name"].as_str().unwrap()).collect();
        let mut sorted = names.clone();
        sorted.sort();
        assert_eq!(names, sorted, "ordered by name");
        assert!(!names.contains(&"olga"), "members of this workspace only");
        let zoe = rows.iter().find(|m| m["name"] == "zoe").expect("zoe");
        let id = app.operator().admin().find_account("zoe").await.unwrap().id;
        assert_eq!(zoe, &json!({"accountId": id.as_str(), "name": "zoe", "role": "VIEWER"}));
        let bea = rows.iter().find(|m| m["name"] == "bea").expect("bea");
        assert_eq!(bea["role"], "MEMBER");
        assert_eq!(rows.len(), 3, "the first-run admin, bea and zoe: {rows:?}");

        let r = app.call_as(&viewer, "GET", "/api/members", None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")));
        assert!(r.body["details"]["fieldErrors"]["tenant"].is_array(), "{:?}", r.body);
        for p in [path.as_str(), "/api/members?tenant=nope"] {
            let r = app.call_as(&outsider, "GET", p, None).await;
            assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")), "{p}");
        }
        assert_eq!(app.call_as("", "GET", &path, None).await.status, 401);
    }
}
