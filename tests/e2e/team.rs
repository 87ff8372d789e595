//! People over HTTP (api.md §23): one's own tokens, one's name and
//! password, a workspace's members and projects.

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};

const PASSWORD: &str = "correct horse battery staple";
const NEW_PASSWORD: &str = "plaid unicorn orbits the lighthouse";

/// Signs `name` in from `address`: the session token of its cookie.
async fn session(app: &common::App, name: &str, password: &str, address: &str) -> String {
    let res = app
        .http
        .post(format!("{}/api/session", app.base))
        .header("x-forwarded-for", address)
        .json(&json!({"name": name, "password": password}))
        .send()
        .await
        .unwrap();
    assert_eq!(res.status(), 200);
    let cookie = res.headers()["set-cookie"].to_str().unwrap().to_string();
    cookie
        .split(';')
        .next()
        .unwrap()
        .trim_start_matches("board_session=")
        .to_string()
}

/// The types of the events the workspace's changes wrote, in order.
async fn event_types(app: &common::App) -> Vec<String> {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let types = sqlx::query_scalar("SELECT type FROM events ORDER BY seq")
        .fetch_all(&pool)
        .await
        .unwrap();
    pool.close().await;
    types
}

async fn with_password(app: &common::App, name: &str) {
    let admin = app.operator().admin();
    let account = admin.find_account(name).await.unwrap();
    admin.set_password(&account.id, PASSWORD).await.unwrap();
}

/// `PATCH /api/me` with the session cookie from `address`.
async fn patch_me(app: &common::App, session: &str, address: &str, body: Value) -> common::Res {
    let cookie = format!("board_session={session}");
    let headers = [
        ("cookie", cookie.as_str()),
        ("x-forwarded-for", address),
        ("content-type", "application/json"),
    ];
    app.raw("PATCH", "/api/me", &headers, &body.to_string())
        .await
}

on_both_backends! {
    async fn own_tokens_are_listed_created_and_revoked(backend) {
        let app = common::spawn_app(backend).await;
        let r = app.call("POST", "/api/tokens", Some(json!({"label": "CI", "expiresInDays": 30}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let token = r.body["token"].as_str().unwrap().to_string();
        let id = r.body["id"].as_str().unwrap().to_string();
        assert_eq!((r.body["kind"].as_str(), r.body["label"].as_str()), (Some("personal"), Some("CI")));
        assert!(r.body["expiresAt"].is_string() && r.body["lastUsedAt"].is_null(), "{:?}", r.body);
        assert_eq!(app.call_as(&token, "GET", "/api/me", None).await.status, 200);

        let list = app.call("GET", "/api/tokens", None).await;
        assert_eq!(list.status, 200);
        assert!(!list.body.to_string().contains(&token), "never a secret");
        let ids: Vec<&str> = list.body.as_array().unwrap().iter().map(|t| t["id"].as_str().unwrap()).collect();
        assert!(ids.contains(&id.as_str()) && ids.len() == 2, "{ids:?}");
        // `current` marks the credential of the request that lists them.
        let current = |list: &Value| -> Vec<String> {
            list.as_array().unwrap().iter().filter(|t| t["current"] == true).map(|t| t["id"].as_str().unwrap().to_string()).collect()
        };
        let mine = current(&list.body);
        assert!(mine.len() == 1 && mine[0] != id, "{:?}", list.body);
        assert_eq!(current(&app.call_as(&token, "GET", "/api/tokens", None).await.body), vec![id.clone()]);
        assert_eq!(r.body["current"], false, "a token just made is not the one in use");
        // lastUsedAt follows the use, in the background.
        let mut used = Value::Null;
        for _ in 0..50 {
            let list = app.call_as(&token, "GET", "/api/tokens", None).await.body;
            used = list.as_array().unwrap().iter().find(|t| t["id"] == id.as_str()).unwrap()["lastUsedAt"].clone();
            if used.is_string() { break; }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
        assert!(used.is_string(), "lastUsedAt: {used}");

        for body in [json!({"expiresInDays": 3}), json!({"label": "x", "expiresInDays": 0}), json!({"label": "x", "expiresInDays": 3651})] {
            assert_eq!(app.call("POST", "/api/tokens", Some(body.clone())).await.status, 422, "{body}");
        }
        // Another account's token is not found; one's own goes.
        let other = app.account_in(&app.tenant, "sam", "member").await;
        let r = app.call_as(&other, "DELETE", &format!("/api/tokens/{id}"), None).await;
        assert_eq!(r.status, 404, "{:?}", r.body);
        let r = app.call("DELETE", &format!("/api/tokens/{id}"), None).await;
        assert_eq!((r.status, r.body["deleted"].as_bool()), (200, Some(true)));
        assert_eq!(app.call_as(&token, "GET", "/api/me", None).await.status, 401);
    }

    async fn a_new_password_ends_the_other_sessions(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        with_password(&app, "admin").await;
        let mine = session(&app, "admin", PASSWORD, "10.4.0.1").await;
        let other = session(&app, "admin", PASSWORD, "10.4.0.2").await;

        let r = patch_me(&app, &mine, "10.4.0.1", json!({"password": {"current": "nope nope nope", "new": NEW_PASSWORD}})).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("WRONG_PASSWORD")), "{:?}", r.body);
        let r = patch_me(&app, &mine, "10.4.0.1", json!({"password": {"current": PASSWORD, "new": "admin1234"}})).await;
        assert_eq!(r.body["error"], "WEAK_PASSWORD", "{:?}", r.body);
        let r = patch_me(&app, &mine, "10.4.0.1", json!({"password": {"current": PASSWORD, "new": NEW_PASSWORD}})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let me = |s: String| { let app = &app; async move {
            let cookie = format!("board_session={s}");
            app.raw("GET", "/api/me", &[("cookie", &cookie)], "").await.status
        }};
        assert_eq!(me(mine.clone()).await, 200, "this session stays");
        assert_eq!(me(other).await, 401, "the other session ended");
        assert_eq!(app.call("GET", "/api/me", None).await.status, 200, "personal tokens stay");
        session(&app, "admin", NEW_PASSWORD, "10.4.0.3").await;

        // Wrong current passwords are throttled like sign-ins.
        for _ in 0..5 {
            let r = patch_me(&app, &mine, "10.4.0.9", json!({"password": {"current": "nope nope nope", "new": PASSWORD}})).await;
            assert_eq!(r.status, 422);
        }
        let r = patch_me(&app, &mine, "10.4.0.9", json!({"password": {"current": NEW_PASSWORD, "new": PASSWORD}})).await;
        assert_eq!((r.status, r.body["error"].as_str()), (429, Some("TOO_MANY_ATTEMPTS")), "{:?}", r.body);

        // A name: unique among accounts.
        app.account_in(&app.tenant, "sam", "member").await;
        let r = patch_me(&app, &mine, "10.4.0.1", json!({"name": "sam"})).await;
        assert_eq!((r.status, r.body["error"].as_str()), (409, Some("NAME_TAKEN")), "{:?}", r.body);
        let r = patch_me(&app, &mine, "10.4.0.1", json!({"name": "Ada"})).await;
        assert_eq!((r.status, r.body["name"].as_str()), (200, Some("Ada")), "{:?}", r.body);
    }

    async fn admins_change_roles_and_remove_members_but_never_the_last_admin(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let sam = app.account_in(&t, "sam", "member").await;
        let sam_id = app.call_as(&sam, "GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let admin_id = app.call("GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let path = |id: &str| format!("/api/members/{id}");

        let r = app.call_as(&sam, "PATCH", &path(&admin_id), Some(json!({"tenantId": t, "role": "VIEWER"}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")), "{:?}", r.body);
        for (id, body) in [(&admin_id, json!({"tenantId": t, "role": "MEMBER"}))] {
            let r = app.call("PATCH", &path(id), Some(body)).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("LAST_ADMIN")), "{:?}", r.body);
        }
        let r = app.call("DELETE", &format!("{}?tenant={t}", path(&admin_id)), None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("LAST_ADMIN")), "{:?}", r.body);
        let r = app.call("PATCH", &path(&sam_id), Some(json!({"tenantId": t, "role": "admin"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, json!({"accountId": sam_id, "name": "sam", "role": "ADMIN"}));
        // Two admins: one may step down now.
        let r = app.call_as(&sam, "PATCH", &path(&admin_id), Some(json!({"tenantId": t, "role": "MEMBER"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = app.call_as(&sam, "PATCH", &path(&admin_id), Some(json!({"tenantId": t, "role": "OWNER"}))).await;
        assert_eq!(r.status, 422);

        // A removed member loses the workspace and its assignments at once.
        let card = app.card("Assigned").await;
        let card_path = format!("/api/cards/{}", card["id"].as_str().unwrap());
        let r = app.call("PUT", &format!("{card_path}/assignees/{admin_id}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = app.call_as(&sam, "DELETE", &format!("{}?tenant={t}", path(&admin_id)), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(app.call("GET", &card_path, None).await.status, 403);
        assert_eq!(app.call_as(&sam, "GET", &card_path, None).await.body["assigneeIds"], json!([]));
        let r = app.call_as(&sam, "DELETE", &format!("{}?tenant={t}", path(&admin_id)), None).await;
        assert_eq!(r.status, 404, "not a member any more: {:?}", r.body);
        let types = event_types(&app).await;
        let members: Vec<&str> = types.iter().map(String::as_str).filter(|t| t.starts_with("member.")).collect();
        assert_eq!(members, ["member.added", "member.updated", "member.updated", "member.removed"]);
    }

    async fn admins_create_and_rename_projects(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let r = app.call("POST", "/api/projects", Some(json!({"tenantId": t, "name": "Website"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let id = r.body["id"].as_str().unwrap().to_string();
        assert_eq!(r.body, json!({"id": id, "tenantId": t, "name": "Website"}));
        let cols = app.call("GET", &format!("/api/columns?tenant={t}&project={id}"), None).await;
        assert_eq!(cols.status, 200, "a project of the workspace: {:?}", cols.body);
        let me = app.call("GET", "/api/me", None).await.body;
        assert_eq!(me["workspaces"][0]["projects"], json!([{"id": id, "name": "Website"}]));

        let r = app.call("POST", "/api/projects", Some(json!({"tenantId": t, "name": "Website"}))).await;
        assert_eq!(r.status, 409, "{:?}", r.body);
        let r = app.call("PATCH", &format!("/api/projects/{id}"), Some(json!({"name": "Site"}))).await;
        assert_eq!((r.status, r.body["name"].as_str()), (200, Some("Site")), "{:?}", r.body);
        let sam = app.account_in(&t, "sam", "member").await;
        let r = app.call_as(&sam, "POST", "/api/projects", Some(json!({"tenantId": t, "name": "Mine"}))).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        let r = app.call_as(&sam, "PATCH", &format!("/api/projects/{id}"), Some(json!({"name": "Mine"}))).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        let r = app.call("PATCH", &format!("/api/projects/{}", "c".repeat(24)), Some(json!({"name": "X"}))).await;
        assert_eq!(r.status, 404, "{:?}", r.body);
        let types = event_types(&app).await;
        let projects: Vec<&str> = types.iter().map(String::as_str).filter(|t| t.starts_with("project.")).collect();
        assert_eq!(projects, ["project.created", "project.updated"]);
    }
}

on_both_backends! {
    // A member changing or removing an account the path names: an unknown
    // account is 404 before the role's 403.
    async fn an_unknown_member_is_404_before_403(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let member = app.account_in(&t, "mo", "member").await;
        let unknown = "ckabcdefghijklmnopqrstuv";
        let r = app.call_as(&member, "PATCH", &format!("/api/members/{unknown}"), Some(json!({"tenantId": t, "role": "ADMIN"}))).await;
        assert_eq!(r.status, 404, "{:?}", r.body);
        let r = app.call_as(&member, "DELETE", &format!("/api/members/{unknown}?tenant={t}"), None).await;
        assert_eq!(r.status, 404, "{:?}", r.body);
        let admin = app.call("GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let r = app.call_as(&member, "PATCH", &format!("/api/members/{admin}"), Some(json!({"tenantId": t, "role": "MEMBER"}))).await;
        assert_eq!(r.status, 403, "a known member: {:?}", r.body);
        let r = app.call_as(&member, "DELETE", &format!("/api/members/{admin}?tenant={t}"), None).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
    }
}
