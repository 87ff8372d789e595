//! The routes that check the bearer token in their own first statement (issue
//! 32): `GET /api/columns?tenant=`, `GET /api/board`, a card's comments and
//! history, and their 304s; and the write `POST /api/cards/[id]/comments`.
//! Every credential that `Board::authenticate` refuses is refused by them
//! too, in the contract's order (401, 404, 403, 422); the routes that do not
//! fuse are unchanged.

use board_core::{Name, TokenId};
use serde_json::json;
use testkit::{self as common, on_both_backends, App};

/// The status of a `GET path` with `token`, and of the same `GET` sent with
/// `If-None-Match` naming the tag the admin's `GET` returned (its 304 form).
async fn statuses(app: &App, token: &str, path: &str) -> (u16, u16) {
    let get = |token: String, tag: Option<String>| {
        let mut req = app
            .http
            .get(format!("{}{path}", app.base))
            .bearer_auth(token);
        if let Some(t) = tag {
            req = req.header("if-none-match", t);
        }
        req.send()
    };
    let first = get(app.token.clone(), None).await.expect("request");
    let tag = first
        .headers()
        .get("etag")
        .map(|t| t.to_str().unwrap().to_string());
    let plain = get(token.to_string(), None)
        .await
        .expect("request")
        .status()
        .as_u16();
    let conditional = get(token.to_string(), tag)
        .await
        .expect("request")
        .status()
        .as_u16();
    (plain, conditional)
}

/// Four tokens `Board::authenticate` refuses: `valid` with a wrong secret, a
/// token id never issued, and a revoked and an expired token of members
/// with `role` (so only the credential refuses them).
async fn refused_tokens(app: &App, valid: &str, role: &str) -> [String; 4] {
    let board = app.operator();
    let mut forged = valid.to_string();
    let last = forged.pop().unwrap();
    forged.push(if last == '0' { '1' } else { '0' });
    let unknown = format!("brd_{}_{}", cuid2::create_id(), "a".repeat(64));
    let revoked = app.account_in(&app.tenant, "rita", role).await;
    let id = TokenId::from_token_or_id(&revoked).unwrap();
    board.admin().revoke_token(&id).await.unwrap();
    let eve = board
        .admin()
        .create_account(&Name::parse("eve").unwrap())
        .await
        .unwrap();
    app.member(&app.tenant, "eve", role).await;
    let ttl = std::time::Duration::from_secs(1);
    let expiring = board
        .admin()
        .create_token(&eve.id, Some(ttl))
        .await
        .unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(1500)).await;
    [forged, unknown, revoked, expiring.token]
}

/// The fused routes of a workspace with one card that has a comment.
async fn fused_paths(app: &App) -> Vec<String> {
    let card = app.card("fused").await;
    let id = card["id"].as_str().unwrap();
    let r = app
        .call(
            "POST",
            &format!("/api/cards/{id}/comments"),
            Some(json!({"content": "hi"})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    let t = &app.tenant;
    vec![
        format!("/api/columns?tenant={t}"),
        format!("/api/board?tenant={t}"),
        format!("/api/cards/{id}/comments"),
        format!("/api/cards/{id}/history"),
    ]
}

on_both_backends! {
    async fn fused_reads_refuse_every_bad_credential(backend) {
        let app = common::spawn_app(backend).await;
        let paths = fused_paths(&app).await;

        let [forged, unknown, revoked, expired] = refused_tokens(&app, &app.token, "viewer").await;
        for path in &paths {
            for (what, token) in [("wrong secret", &forged), ("unknown", &unknown), ("revoked", &revoked), ("expired", &expired)] {
                assert_eq!(statuses(&app, token, path).await, (401, 401), "{what}: {path}");
            }
            for header in ["Basic abc", "Bearer", "Bearer nope"] {
                let r = app.raw("GET", path, &[("authorization", header)], "").await;
                assert_eq!(r.status, 401, "{header:?}: {path}");
                assert_eq!(r.body["error"], "UNAUTHENTICATED");
            }
        }
        // The routes that do not fuse refuse them the same way.
        let card = paths[2].trim_end_matches("/comments").to_string();
        for path in [card.clone(), format!("{card}/relations"), format!("/api/events?tenant={}", app.tenant)] {
            for token in [&forged, &revoked, &expired] {
                assert_eq!(app.call_as(token, "GET", &path, None).await.status, 401, "{path}");
            }
        }
    }

    async fn fused_reads_check_401_then_404_then_403_then_422(backend) {
        let app = common::spawn_app(backend).await;
        let paths = fused_paths(&app).await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let mut forged = app.token.clone();
        let last = forged.pop().unwrap();
        forged.push(if last == '0' { '1' } else { '0' });
        let ghost_card = format!("/api/cards/{}/history", cuid2::create_id());

        // A valid token of a non-member: 403, its 304 form too; a viewer reads.
        for path in &paths {
            assert_eq!(statuses(&app, &outsider, path).await, (403, 403), "{path}");
            assert_eq!(statuses(&app, &viewer, path).await, (200, 304), "{path}");
        }
        // 401 before 404 (an unknown or malformed card) and before 422.
        let bad = ["wrong", &forged];
        for token in bad {
            for path in [ghost_card.as_str(), "/api/cards/nope/comments", "/api/board", "/api/board?tenant=nope&project=x"] {
                let r = app.call_as(token, "GET", path, None).await;
                assert_eq!(r.status, 401, "{token}: {path}");
            }
        }
        // 404 before 403: a card that does not exist, to a non-member.
        assert_eq!(app.call_as(&outsider, "GET", &ghost_card, None).await.status, 404);
        assert_eq!(app.call_as(&outsider, "GET", "/api/cards/nope/comments", None).await.status, 404);
        // 403 before 422: a malformed project, to a non-member; 422 to a viewer.
        let path = format!("/api/board?tenant={}&project=nope", app.tenant);
        assert_eq!(app.call_as(&outsider, "GET", &path, None).await.status, 403);
        let r = app.call_as(&viewer, "GET", &path, None).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
        // A workspace that does not exist is 403, never 404; no tenant is 422.
        let ghost = format!("/api/board?tenant={}", cuid2::create_id());
        assert_eq!(app.call_as(&viewer, "GET", &ghost, None).await.status, 403);
        let ghost = format!("/api/columns?tenant={}", cuid2::create_id());
        assert_eq!(app.call_as(&viewer, "GET", &ghost, None).await.status, 403);
        assert_eq!(app.call_as(&viewer, "GET", "/api/board", None).await.status, 422);
    }

    async fn a_fused_comment_post_checks_401_then_404_then_403_then_422(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("fused write").await;
        let path = format!("/api/cards/{}/comments", card["id"].as_str().unwrap());
        let ghost = format!("/api/cards/{}/comments", cuid2::create_id());
        let board = app.operator();
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let member = app.account_in(&app.tenant, "mia", "member").await;
        let [forged, unknown, revoked, expired] = refused_tokens(&app, &member, "member").await;
        let good = json!({"content": "fine"});
        let bad = json!({"content": 7});

        // 401 for every credential authenticate refuses, before 404 and 422.
        for (what, token) in [("wrong secret", &forged), ("unknown", &unknown), ("revoked", &revoked), ("expired", &expired)] {
            for (p, body) in [(&path, &good), (&ghost, &good), (&path, &bad)] {
                let r = app.call_as(token, "POST", p, Some(body.clone())).await;
                assert_eq!(r.status, 401, "{what}: {p} {body}");
            }
        }
        for header in ["Basic abc", "Bearer", "Bearer nope"] {
            let r = app.raw("POST", &path, &[("authorization", header), ("content-type", "application/json")], "{").await;
            assert_eq!(r.status, 401, "{header:?}");
        }
        let r = app.raw("POST", "/api/cards/nope/comments", &[("authorization", "Bearer nope")], "{").await;
        assert_eq!(r.status, 401, "a malformed card id and body: 401 first");
        // 404 before 403; 403 (not a member, or below Member) before 422.
        assert_eq!(app.call_as(&outsider, "POST", &ghost, Some(good.clone())).await.status, 404);
        for token in [&outsider, &viewer] {
            assert_eq!(app.call_as(token, "POST", &path, Some(good.clone())).await.status, 403);
            assert_eq!(app.call_as(token, "POST", &path, Some(bad.clone())).await.status, 403);
        }
        let r = app.call_as(&member, "POST", &path, Some(bad)).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
        assert_eq!(app.call("GET", &path, None).await.body, json!([]), "nothing refused was written");
        // A member's comment is its account's.
        let r = app.call_as(&member, "POST", &path, Some(good)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let mia = board.admin().find_account("mia").await.unwrap();
        assert_eq!(r.body["authorId"], mia.id.as_str());
        let list = app.call("GET", &path, None).await.body;
        assert_eq!(list.as_array().unwrap().len(), 1);
        assert_eq!(list[0], r.body);
    }

    async fn fused_columns_skip_a_project_set_without_columns(backend) {
        let app = common::spawn_app(backend).await;
        let path = format!("/api/columns?tenant={}", app.tenant);
        let before = app.call("GET", &path, None).await.body;
        // A project's set starts without columns: it joins as a row without one.
        let ws = board_core::WorkspaceId::parse(&app.tenant).unwrap();
        app.operator().admin().create_project(&ws, &Name::parse("Apollo").unwrap()).await.unwrap();
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let r = app.call_as(&viewer, "GET", &path, None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, before);
        assert_eq!(r.body.as_array().unwrap().len(), 3);
    }
}
