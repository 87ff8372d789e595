//! Invitations and reset links (api.md §23): one-time codes that bring a
//! person in or set a password, and sign in.

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};

const PASSWORD: &str = "correct horse battery staple";

/// A `POST` of `body` to `path` from `address`, with the session cookie
/// `session` when given: status, body and the session a `Set-Cookie` set.
async fn post(
    app: &common::App,
    path: &str,
    address: &str,
    session: Option<&str>,
    body: Value,
) -> (u16, Value, Option<String>) {
    let mut req = app
        .http
        .post(format!("{}{path}", app.base))
        .header("x-forwarded-for", address)
        .json(&body);
    if let Some(s) = session {
        req = req.header("cookie", format!("board_session={s}"));
    }
    let res = req.send().await.unwrap();
    let status = res.status().as_u16();
    let cookie = res.headers().get("set-cookie").map(|v| {
        let v = v.to_str().unwrap();
        v.split(';')
            .next()
            .unwrap()
            .trim_start_matches("board_session=")
            .to_string()
    });
    (status, res.json().await.unwrap_or(Value::Null), cookie)
}

fn code_of(url: &str) -> String {
    url.split_once('#').expect(url).1.to_string()
}

on_both_backends! {
    async fn an_invitation_brings_a_colleague_in_once(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true"), ("BOARD_PUBLIC_URL", "https://board.example")]).await;
        let t = app.tenant.clone();
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": t, "role": "MEMBER"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let url = r.body["url"].as_str().unwrap().to_string();
        let code = r.body["code"].as_str().unwrap().to_string();
        assert_eq!(url, format!("https://board.example/invite#{code}"));
        assert!(code.len() >= 32, "128 bits at least: {code}");
        let id = r.body["id"].as_str().unwrap().to_string();
        assert_eq!((r.body["role"].as_str(), r.body["tenantId"].as_str()), (Some("MEMBER"), Some(t.as_str())));

        let open = app.call("GET", &format!("/api/invitations?tenant={t}"), None).await;
        assert_eq!(open.status, 200);
        assert_eq!(open.body.as_array().unwrap().len(), 1);
        assert!(!open.body.to_string().contains(&code), "never the code again");
        let sam = app.account_in(&t, "sam", "member").await;
        assert_eq!(app.call_as(&sam, "GET", &format!("/api/invitations?tenant={t}"), None).await.status, 403);

        // Accepted without a credential: a new account, signed in.
        let weak = post(&app, "/api/invitations/accept", "10.5.0.1", None, json!({"code": code, "name": "ada", "password": "ada12345"})).await;
        assert_eq!((weak.0, weak.1["error"].as_str()), (422, Some("WEAK_PASSWORD")), "{:?}", weak.1);
        let taken = post(&app, "/api/invitations/accept", "10.5.0.1", None, json!({"code": code, "name": "sam", "password": PASSWORD})).await;
        assert_eq!((taken.0, taken.1["error"].as_str()), (409, Some("NAME_TAKEN")), "{:?}", taken.1);
        let (status, body, session) = post(&app, "/api/invitations/accept", "10.5.0.1", None, json!({"code": code, "name": "ada", "password": PASSWORD})).await;
        assert_eq!(status, 200, "{body:?}");
        assert_eq!((body["role"].as_str(), body["account"]["name"].as_str()), (Some("MEMBER"), Some("ada")));
        let session = session.expect("signed in");
        let cookie = format!("board_session={session}");
        let me = app.raw("GET", "/api/me", &[("cookie", &cookie)], "").await;
        assert_eq!(me.body["workspaces"][0]["role"], "MEMBER", "{:?}", me.body);
        // It served once; a revoked one serves none; the answers are one.
        let again = post(&app, "/api/invitations/accept", "10.5.0.2", None, json!({"code": code, "name": "bob", "password": PASSWORD})).await;
        assert_eq!(again.0, 404);
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": t, "role": "VIEWER"}))).await;
        let (revoked, revoked_id) = (r.body["code"].as_str().unwrap().to_string(), r.body["id"].as_str().unwrap().to_string());
        assert_eq!(app.call("DELETE", &format!("/api/invitations/{revoked_id}"), None).await.status, 200);
        let gone = post(&app, "/api/invitations/accept", "10.5.0.2", None, json!({"code": revoked, "name": "bob", "password": PASSWORD})).await;
        let unknown = post(&app, "/api/invitations/accept", "10.5.0.2", None, json!({"code": "f".repeat(64), "name": "bob", "password": PASSWORD})).await;
        assert_eq!((gone.0, &gone.1), (unknown.0, &unknown.1));
        assert_eq!(app.call("DELETE", &format!("/api/invitations/{id}"), None).await.status, 404, "used");

        // With a credential: the signed-in account joins, keeping a higher role.
        let other = app.workspace("Other").await;
        let admin_id = app.call("GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        app.member(&other, &admin_id, "admin").await;
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": other, "role": "VIEWER"}))).await;
        let code = r.body["code"].as_str().unwrap().to_string();
        let (status, body, cookie) = post(&app, "/api/invitations/accept", "10.5.0.1", Some(&session), json!({"code": code})).await;
        assert_eq!((status, body["role"].as_str(), cookie), (200, Some("VIEWER"), None), "{body:?}");
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": other, "role": "VIEWER"}))).await;
        let code = r.body["code"].as_str().unwrap().to_string();
        let (status, body, _) = post(&app, "/api/invitations/accept", "10.5.0.1", Some(&app.first_reset.clone()), json!({"code": code})).await;
        assert_eq!(status, 401, "a credential that does not check out: {body:?}");
        let res = app.http.post(format!("{}/api/invitations/accept", app.base)).bearer_auth(&app.token)
            .json(&json!({"code": code})).send().await.unwrap();
        assert_eq!(res.status(), 200);
        assert_eq!(res.json::<Value>().await.unwrap()["role"], "ADMIN", "the higher role stays");
    }

    // An expired invitation or reset link answers as an unknown code does.
    async fn expired_codes_serve_nothing(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": app.tenant, "role": "MEMBER"}))).await;
        let code = r.body["code"].as_str().unwrap().to_string();
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        for table in ["invitations", "password_resets"] {
            let sql = format!("UPDATE {table} SET expires_at = '2000-01-01T00:00:00.000Z'");
            sqlx::query(sqlx::AssertSqlSafe(sql)).execute(&pool).await.unwrap();
        }
        pool.close().await;
        let body = |code: &str| json!({"code": code, "name": "ada", "password": PASSWORD});
        let expired = post(&app, "/api/invitations/accept", "10.6.1.1", None, body(&code)).await;
        let unknown = post(&app, "/api/invitations/accept", "10.6.1.1", None, body(&"f".repeat(64))).await;
        assert_eq!((expired.0, &expired.1), (404, &unknown.1));
        let reset = post(&app, "/api/password-reset", "10.6.1.1", None, json!({"code": code_of(&app.first_reset), "password": PASSWORD})).await;
        assert_eq!((reset.0, reset.1["error"].as_str()), (404, Some("NOT_FOUND")), "{:?}", reset.1);
        let open = app.call("GET", &format!("/api/invitations?tenant={}", app.tenant), None).await;
        assert_eq!(open.body, json!([]), "an expired invitation is not open");
    }

    async fn unknown_codes_are_throttled_per_address(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        for i in 0..50 {
            let r = post(&app, "/api/invitations/accept", "10.6.0.1", None, json!({"code": format!("{i:064}"), "name": "x", "password": PASSWORD})).await;
            assert_eq!(r.0, 404, "{i}: {:?}", r.1);
        }
        let r = post(&app, "/api/invitations/accept", "10.6.0.1", None, json!({"code": "0", "name": "x", "password": PASSWORD})).await;
        assert_eq!((r.0, r.1["error"].as_str()), (429, Some("TOO_MANY_ATTEMPTS")), "{:?}", r.1);
        let r = post(&app, "/api/password-reset", "10.6.0.1", None, json!({"code": "0", "password": PASSWORD})).await;
        assert_eq!(r.0, 429, "the same count: {:?}", r.1);
        let r = post(&app, "/api/invitations/accept", "10.6.0.2", None, json!({"code": "0", "name": "x", "password": PASSWORD})).await;
        assert_eq!(r.0, 404, "another address: {:?}", r.1);
    }

    async fn the_first_run_reset_link_sets_admins_password(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        assert!(app.first_reset.starts_with(&format!("{}/reset#", app.base)), "{}", app.first_reset);
        let code = code_of(&app.first_reset);
        let weak = post(&app, "/api/password-reset", "10.7.0.1", None, json!({"code": code, "password": "admin-admin"})).await;
        assert_eq!(weak.1["error"], "WEAK_PASSWORD", "{:?}", weak.1);
        let (status, body, session) = post(&app, "/api/password-reset", "10.7.0.1", None, json!({"code": code, "password": PASSWORD})).await;
        assert_eq!((status, body["account"]["name"].as_str()), (200, Some("admin")), "{body:?}");
        assert!(session.is_some(), "signed in");
        let again = post(&app, "/api/password-reset", "10.7.0.1", None, json!({"code": code, "password": PASSWORD})).await;
        assert_eq!(again.0, 404, "once");
        let r = post(&app, "/api/session", "10.7.0.1", None, json!({"name": "admin", "password": PASSWORD})).await;
        assert_eq!(r.0, 200);
        // The operator's link ends every session.
        let admin = app.operator().admin();
        let id = admin.find_account("admin").await.unwrap().id;
        let link = admin.reset_link(&id, "https://board.example").await.unwrap();
        assert!(link.starts_with("https://board.example/reset#"), "{link}");
        let (status, _, _) = post(&app, "/api/password-reset", "10.7.0.1", None, json!({"code": code_of(&link), "password": "plaid unicorn orbits the lighthouse"})).await;
        assert_eq!(status, 200);
        let cookie = format!("board_session={}", r.2.unwrap());
        assert_eq!(app.raw("GET", "/api/me", &[("cookie", &cookie)], "").await.status, 401);
    }
}

on_both_backends! {
    // Using one reset link voids the account's other links; a password
    // changed with PATCH /api/me voids them too.
    async fn a_used_link_or_a_new_password_voids_the_other_reset_links(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let admin = app.operator().admin();
        let id = admin.find_account("admin").await.unwrap().id;
        let one = code_of(&admin.reset_link(&id, "https://b.example").await.unwrap());
        let two = code_of(&admin.reset_link(&id, "https://b.example").await.unwrap());
        let (status, _, session) = post(&app, "/api/password-reset", "10.6.2.1", None, json!({"code": one, "password": PASSWORD})).await;
        assert_eq!(status, 200);
        let r = post(&app, "/api/password-reset", "10.6.2.1", None, json!({"code": two, "password": PASSWORD})).await;
        assert_eq!((r.0, r.1["error"].as_str()), (404, Some("NOT_FOUND")), "the other link is void: {:?}", r.1);

        let three = code_of(&admin.reset_link(&id, "https://b.example").await.unwrap());
        let cookie = format!("board_session={}", session.unwrap());
        let body = json!({"password": {"current": PASSWORD, "new": "plaid unicorn orbits the lighthouse"}}).to_string();
        let headers = [("cookie", cookie.as_str()), ("content-type", "application/json")];
        assert_eq!(app.raw("PATCH", "/api/me", &headers, &body).await.status, 200);
        let r = post(&app, "/api/password-reset", "10.6.2.1", None, json!({"code": three, "password": PASSWORD})).await;
        assert_eq!(r.0, 404, "a new password voids the links sent before: {:?}", r.1);
    }

    // The reset page reads whose link it holds, without using it; a code
    // that does not serve is 404 and counts like a reset's.
    async fn a_reset_link_names_its_account_without_being_used(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let code = code_of(&app.first_reset);
        let r = post(&app, "/api/password-reset/account", "10.6.4.1", None, json!({"code": code})).await;
        assert_eq!((r.0, r.1["name"].as_str()), (200, Some("admin")), "{:?}", r.1);
        assert!(r.2.is_none(), "no session");
        let r = post(&app, "/api/password-reset/account", "10.6.4.1", None, json!({"code": code, "x": 1})).await;
        assert_eq!(r.0, 422, "{:?}", r.1);
        let r = post(&app, "/api/password-reset", "10.6.4.1", None, json!({"code": code, "password": PASSWORD})).await;
        assert_eq!(r.0, 200, "the link still serves: {:?}", r.1);
        let r = post(&app, "/api/password-reset/account", "10.6.4.1", None, json!({"code": code})).await;
        assert_eq!((r.0, r.1["error"].as_str()), (404, Some("NOT_FOUND")), "used: {:?}", r.1);
        for _ in 0..60 {
            let r = post(&app, "/api/password-reset/account", "10.6.4.2", None, json!({"code": "0"})).await;
            if r.0 == 429 {
                return;
            }
            assert_eq!(r.0, 404, "{:?}", r.1);
        }
        panic!("unknown codes are never throttled");
    }

    // The reset body is {code, password}: any other key is 422.
    async fn a_reset_with_an_unknown_key_is_422(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let code = code_of(&app.first_reset);
        let r = post(&app, "/api/password-reset", "10.6.3.1", None, json!({"code": code, "password": PASSWORD, "name": "x"})).await;
        assert_eq!((r.0, r.1["error"].as_str()), (422, Some("VALIDATION_FAILED")), "{:?}", r.1);
        let r = post(&app, "/api/password-reset", "10.6.3.1", None, json!({"code": code, "password": PASSWORD})).await;
        assert_eq!(r.0, 200, "the link still serves: {:?}", r.1);
        // So is PATCH /api/me's password object: {current, new} only.
        let cookie = format!("board_session={}", r.2.unwrap());
        let headers = [("cookie", cookie.as_str()), ("content-type", "application/json")];
        let body = json!({"password": {"current": PASSWORD, "new": "plaid unicorn orbits the lighthouse", "extra": 1}});
        let r = app.raw("PATCH", "/api/me", &headers, &body.to_string()).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")), "{:?}", r.body);
    }

    // An invitation serves only while its creator is an ADMIN of the
    // workspace: demoted or removed, its code is 404 like an unknown one.
    async fn an_invitation_serves_only_while_its_creator_is_admin(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "admin").await;
        let ann_id = app.call_as(&ann, "GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let invite = |token: String| { let (app, t) = (&app, t.clone()); async move {
            let r = app.call_as(&token, "POST", "/api/invitations", Some(json!({"tenantId": t, "role": "MEMBER"}))).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            r.body["code"].as_str().unwrap().to_string()
        }};
        let demoted = invite(ann.clone()).await;
        let removed = invite(ann.clone()).await;
        let kept = invite(ann.clone()).await;
        let r = app.call("PATCH", &format!("/api/members/{ann_id}"), Some(json!({"tenantId": t, "role": "MEMBER"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = post(&app, "/api/invitations/accept", "10.6.4.1", None, json!({"code": demoted, "name": "bo", "password": PASSWORD})).await;
        assert_eq!((r.0, r.1["error"].as_str()), (404, Some("NOT_FOUND")), "{:?}", r.1);
        // Made ADMIN again, the creator's open invitations serve again.
        let r = app.call("PATCH", &format!("/api/members/{ann_id}"), Some(json!({"tenantId": t, "role": "ADMIN"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = post(&app, "/api/invitations/accept", "10.6.4.1", None, json!({"code": kept, "name": "cy", "password": PASSWORD})).await;
        assert_eq!(r.0, 200, "{:?}", r.1);
        let r = app.call("DELETE", &format!("/api/members/{ann_id}?tenant={t}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = post(&app, "/api/invitations/accept", "10.6.4.1", None, json!({"code": removed, "name": "di", "password": PASSWORD})).await;
        assert_eq!(r.0, 404, "{:?}", r.1);
        assert!(app.operator().admin().find_account("di").await.is_err(), "no account was made");
    }

    // Names that differ from a taken one only in case or width are taken;
    // one with a hidden character is 422; sign-in finds the account by its
    // key, and the name stays as typed.
    async fn look_alike_names_are_taken_and_hidden_ones_refused(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let t = app.tenant.clone();
        for (name, status, error) in [("ADMIN", 409, "NAME_TAKEN"), ("Admin", 409, "NAME_TAKEN"), ("ａｄｍｉｎ", 409, "NAME_TAKEN"),
                                      ("admin\u{200B}", 422, "VALIDATION_FAILED"), ("\u{202E}nimda", 422, "VALIDATION_FAILED")] {
            let code = app.call("POST", "/api/invitations", Some(json!({"tenantId": t, "role": "MEMBER"}))).await.body["code"].as_str().unwrap().to_string();
            let r = post(&app, "/api/invitations/accept", "10.6.5.1", None, json!({"code": code, "name": name, "password": PASSWORD})).await;
            assert_eq!((r.0, r.1["error"].as_str()), (status, Some(error)), "{name:?}: {:?}", r.1);
        }
        let code = app.call("POST", "/api/invitations", Some(json!({"tenantId": t, "role": "MEMBER"}))).await.body["code"].as_str().unwrap().to_string();
        let r = post(&app, "/api/invitations/accept", "10.6.5.1", None, json!({"code": code, "name": "Zoë", "password": PASSWORD})).await;
        assert_eq!((r.0, r.1["account"]["name"].as_str()), (200, Some("Zoë")), "stored as typed: {:?}", r.1);
        let zoe = r.2.unwrap();
        let cookie = format!("board_session={zoe}");
        let headers = [("cookie", cookie.as_str()), ("content-type", "application/json")];
        let r = app.raw("PATCH", "/api/me", &headers, &json!({"name": "ＡＤＭＩＮ"}).to_string()).await;
        assert_eq!((r.status, r.body["error"].as_str()), (409, Some("NAME_TAKEN")), "{:?}", r.body);
        let r = app.raw("PATCH", "/api/me", &headers, &json!({"name": "zoë\u{2066}"}).to_string()).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
        let r = app.raw("PATCH", "/api/me", &headers, &json!({"name": "ZOË"}).to_string()).await;
        assert_eq!((r.status, r.body["name"].as_str()), (200, Some("ZOË")), "its own key: {:?}", r.body);
        let e = app.operator().admin().create_account(&board_core::Name::parse("aDmIn").unwrap()).await.unwrap_err();
        assert_eq!(e.code(), "NAME_TAKEN");
        // Sign-in by the key: `zoë` signs in as `ZOË`.
        let r = post(&app, "/api/session", "10.6.5.2", None, json!({"name": "zoë", "password": PASSWORD})).await;
        assert_eq!((r.0, r.1["account"]["name"].as_str()), (200, Some("ZOË")), "{:?}", r.1);
    }
}

on_both_backends! {
    // A demotion racing an acceptance: the acceptance decides under the
    // workspace's lock, so a code that served committed before the creator's
    // demotion (its member.added comes first), never after.
    async fn an_acceptance_racing_its_creators_demotion_never_follows_it(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_TRUST_PROXY", "true")]).await;
        let second = app.second_server().await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "admin").await;
        let ann_id = app.call_as(&ann, "GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let mut served = 0;
        for round in 0..8 {
            let r = app.call("PATCH", &format!("/api/members/{ann_id}"), Some(json!({"tenantId": t, "role": "ADMIN"}))).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            let code = app.call_as(&ann, "POST", "/api/invitations", Some(json!({"tenantId": t, "role": "VIEWER"}))).await.body["code"].as_str().unwrap().to_string();
            let path = format!("/api/members/{ann_id}");
            let demote = app.call("PATCH", &path, Some(json!({"tenantId": t, "role": "MEMBER"})));
            let body = json!({"code": code, "name": format!("r{round}"), "password": PASSWORD});
            let accept = app.http.post(format!("{}/api/invitations/accept", second.base)).header("x-forwarded-for", "10.6.6.1").json(&body).send();
            let (d, a) = tokio::join!(demote, accept);
            assert_eq!(d.status, 200, "{:?}", d.body);
            let status = a.unwrap().status().as_u16();
            assert!(status == 200 || status == 404, "{status}");
            served += usize::from(status == 200);
        }
        // In commit order: each round's acceptance, if it served, comes
        // before the demotion that follows it.
        sqlx::any::install_default_drivers();
        let pool = sqlx::AnyPool::connect(&app.db.url).await.unwrap();
        let rows: Vec<(String, String)> = sqlx::query_as("SELECT type, data FROM events WHERE type LIKE 'member.%' ORDER BY seq")
            .fetch_all(&pool).await.unwrap();
        pool.close().await;
        let mut ann_admin = false;
        let mut added = 0;
        for (kind, data) in rows {
            let data: Value = serde_json::from_str(&data).unwrap();
            let subject = &data["subject"];
            if subject["accountId"] == ann_id.as_str() {
                ann_admin = subject["role"] == "ADMIN";
            } else if kind == "member.added" && subject["name"].as_str().unwrap_or("").starts_with('r') {
                assert!(ann_admin, "an acceptance committed after its creator's demotion: {data}");
                added += 1;
            }
        }
        assert_eq!(added, served);
    }
}
