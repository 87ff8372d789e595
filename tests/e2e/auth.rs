//! Credentials (401), workspace reach and roles (403), cookie auth, health
//! (the first-run bootstrap, a process story: board-server/tests/server.rs).

use serde_json::json;
use testkit::{self as common, on_both_backends};

on_both_backends! {
    async fn missing_unknown_revoked_and_malformed_credentials_are_401(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/board?tenant={}", app.tenant);
        assert_eq!(app.call("GET", &path, None).await.status, 200);

        let none = app.call_as("", "GET", &path, None).await;
        assert_eq!(none.status, 401);
        assert_eq!(none.body["error"], "UNAUTHENTICATED");
        assert!(none.body["message"].is_string());

        // Unknown: right shape, wrong secret; and a token id that was never issued.
        let mut forged = app.token.clone();
        let last = forged.pop().unwrap();
        forged.push(if last == '0' { '1' } else { '0' });
        assert_eq!(app.call_as(&forged, "GET", &path, None).await.status, 401);
        let unknown = format!("brd_{}_{}", cuid2::create_id(), "a".repeat(64));
        assert_eq!(app.call_as(&unknown, "GET", &path, None).await.status, 401);

        for header in ["Basic abc", "Bearer", "Bearer ", "token", &format!("Token {}", app.token)] {
            let r = app.raw("GET", &path, &[("authorization", header)], "").await;
            assert_eq!(r.status, 401, "header {header:?}");
            assert_eq!(r.body["error"], "UNAUTHENTICATED");
        }

        // Revoked (what `board token revoke` does): refused from then on.
        let token = app.account_in(&app.tenant, "carol", "viewer").await;
        assert_eq!(app.call_as(&token, "GET", &path, None).await.status, 200);
        let id = board_core::TokenId::from_token_or_id(&token).unwrap();
        app.operator().admin().revoke_token(&id).await.unwrap();
        assert_eq!(app.call_as(&token, "GET", &path, None).await.status, 401);
    }

    async fn expired_tokens_are_401(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/board?tenant={}", app.tenant);
        let board = app.operator();
        let dave = board.admin().create_account(&board_core::Name::parse("dave").unwrap()).await.unwrap();
        app.member(&app.tenant, "dave", "member").await;
        let t = board.admin().create_token(&dave.id, Some(std::time::Duration::from_secs(1))).await.unwrap();
        let token = t.token.as_str();
        assert!(t.expires_at.is_some());
        tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
        assert_eq!(app.call_as(token, "GET", &path, None).await.status, 401);
    }

    async fn cookie_authenticates_and_header_wins(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/board?tenant={}", app.tenant);
        let cookie = format!("board_session={}", app.token);
        let r = app.raw("GET", &path, &[("cookie", &cookie)], "").await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["columns"].as_array().unwrap().len(), 3);

        let bad = app.raw("GET", &path, &[("cookie", "board_session=nope")], "").await;
        assert_eq!(bad.status, 401);

        // A bad header is refused even with a good cookie.
        let both = app
            .raw("GET", &path, &[("cookie", &cookie), ("authorization", "Bearer nope")], "")
            .await;
        assert_eq!(both.status, 401);
    }

    async fn unreached_workspace_and_low_role_are_403(backend) {
        let app = common::spawn_app(backend).await;
        let other = app.workspace("Other").await;
        let card = app.card("mine").await;
        let card_path = format!("/api/cards/{}", card["id"].as_str().unwrap());

        // An admin of Default does not reach Other.
        let r = app.call("GET", &format!("/api/board?tenant={other}"), None).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "FORBIDDEN");
        // A workspace that does not exist is 403 too, never 404.
        let ghost = cuid2::create_id();
        assert_eq!(app.call("GET", &format!("/api/board?tenant={ghost}"), None).await.status, 403);
        let r = app
            .call("POST", "/api/cards", Some(json!({"tenantId": ghost, "title": "x"})))
            .await;
        assert_eq!(r.status, 403);

        // An account of Other does not reach Default's card.
        let outsider = app.account_in(&other, "olga", "admin").await;
        assert_eq!(app.call_as(&outsider, "GET", &card_path, None).await.status, 403);
        assert_eq!(app.call_as(&outsider, "DELETE", &card_path, None).await.status, 403);

        // A viewer reads but cannot write; a member writes but cannot change settings.
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        assert_eq!(app.call_as(&viewer, "GET", &card_path, None).await.status, 200);
        let r = app
            .call_as(&viewer, "PATCH", &card_path, Some(json!({"title": "nope"})))
            .await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "FORBIDDEN");
        let r = app
            .call_as(&viewer, "POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "x"})))
            .await;
        assert_eq!(r.status, 403);
        let member = app.account_in(&app.tenant, "mia", "member").await;
        let r = app
            .call_as(&member, "PATCH", &card_path, Some(json!({"title": "renamed"})))
            .await;
        assert_eq!(r.status, 200);
        let settings = json!({"tenantId": app.tenant, "columnManagement": false});
        assert_eq!(app.call_as(&member, "PATCH", "/api/settings", Some(settings.clone())).await.status, 403);
        let r = app.call("PATCH", "/api/settings", Some(settings)).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body["columnManagement"], false);

        // Nothing changed by the refusals.
        let after = app.call("GET", &card_path, None).await;
        assert_eq!(after.body["title"], "renamed");
    }

    async fn health_needs_no_credential(backend) {
        let app = common::spawn_app(backend).await;
        let r = app.call_as("", "GET", "/healthz", None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body["status"], "ok");
    }

    async fn health_answers_head_like_get(backend) {
        let app = common::spawn_app(backend).await;
        let get = app.http.get(format!("{}/healthz", app.base)).send().await.unwrap();
        assert_eq!(get.status().as_u16(), 200);
        let content_type = get.headers()["content-type"].clone();
        let res = app.http.head(format!("{}/healthz", app.base)).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 200, "no credential needed");
        assert_eq!(res.headers()["content-type"], content_type, "the headers of GET");
        assert!(res.headers().contains_key("x-request-id"));
        assert!(res.bytes().await.unwrap().is_empty(), "no body");
        // A method the path lacks names HEAD with GET.
        let res = app.http.post(format!("{}/healthz", app.base)).send().await.unwrap();
        assert_eq!(res.status().as_u16(), 405);
        assert_eq!(res.headers()["allow"], "GET, HEAD");
    }
}
