//! Relations over HTTP: create, list, delete, every refusal (and that a refusal
//! changes nothing), access, and racing A→B / B→A creations.

use std::sync::Arc;

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};
use tokio::sync::Barrier;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// `POST /api/cards/{from}/relations` with the admin token.
async fn link(app: &common::App, from: &str, to: &str, kind: &str) -> common::Res {
    app.call(
        "POST",
        &format!("/api/cards/{from}/relations"),
        Some(json!({"targetId": to, "kind": kind})),
    )
    .await
}

/// The relation list of a card (asserting 200).
async fn links_of(app: &common::App, card: &str) -> Vec<Value> {
    let r = app
        .call("GET", &format!("/api/cards/{card}/relations"), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_array().expect("array").clone()
}

/// Creates `n` cards in `Default` and returns their ids.
async fn cards(app: &common::App, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..n {
        out.push(id(&app.card(&format!("card {i}")).await));
    }
    out
}

/// Asserts a refusal's status and code.
fn refused(r: &common::Res, status: u16, code: &str) {
    assert_eq!(r.status, status, "{:?}", r.body);
    assert_eq!(r.body["error"], code, "{:?}", r.body);
}

on_both_backends! {
    async fn create_list_and_delete(backend) {
        let app = common::spawn_app(backend).await;
        let c = cards(&app, 3).await;
        let (a, b, x) = (&c[0], &c[1], &c[2]);

        let r = link(&app, a, b, "PARENT").await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let ab = r.body.clone();
        let rid = id(&ab);
        assert!(board_core::RelationId::parse(&rid).is_some(), "{rid}");
        assert_eq!(ab["sourceId"], a.as_str());
        assert_eq!(ab["targetId"], b.as_str());
        assert_eq!(ab["kind"], "PARENT");
        let at = ab["createdAt"].as_str().unwrap();
        assert!(at.len() == 24 && at.ends_with('Z'), "{at}");
        assert_eq!(ab.as_object().unwrap().len(), 6, "{ab}");
        assert!(ab["createdBy"].is_string(), "the account that linked them: {ab}");

        let r = link(&app, x, a, "RELATED").await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let xa = r.body.clone();

        // Where the card is source or target, oldest first.
        assert_eq!(links_of(&app, a).await, vec![ab.clone(), xa.clone()]);
        assert_eq!(links_of(&app, b).await, vec![ab.clone()]);
        assert_eq!(links_of(&app, x).await, vec![xa.clone()]);

        // Delete: gone from both cards.
        let del = app.call("DELETE", &format!("/api/relations/{rid}"), None).await;
        assert_eq!(del.status, 200, "{:?}", del.body);
        assert_eq!(del.body, json!({"deleted": true}));
        assert_eq!(links_of(&app, a).await, vec![xa.clone()]);
        assert!(links_of(&app, b).await.is_empty());
        // Already deleted, unknown, malformed: 404.
        for p in [rid.clone(), cuid2::create_id(), "nope".into()] {
            let r = app.call("DELETE", &format!("/api/relations/{p}"), None).await;
            refused(&r, 404, "NOT_FOUND");
        }
        // After the delete the pair can be linked again, either way.
        assert_eq!(link(&app, b, a, "BLOCKS").await.status, 201);

        // Deleting a card removes its links from the other card.
        assert_eq!(app.call("DELETE", &format!("/api/cards/{x}"), None).await.status, 200);
        let left = links_of(&app, a).await;
        assert_eq!(left.len(), 1, "{left:?}");
        assert_eq!(left[0]["sourceId"], b.as_str());
    }

    async fn refusals_are_422_409_404_and_change_nothing(backend) {
        let app = common::spawn_app(backend).await;
        let c = cards(&app, 2).await;
        let (a, b) = (&c[0], &c[1]);
        assert_eq!(link(&app, a, b, "RELATED").await.status, 201);
        let before_a = links_of(&app, a).await;
        let before_b = links_of(&app, b).await;

        refused(&link(&app, a, a, "RELATED").await, 422, "SELF_LINK");
        // A link between the two cards exists, in either direction, of any kind.
        refused(&link(&app, a, b, "RELATED").await, 409, "LINK_EXISTS");
        refused(&link(&app, a, b, "PARENT").await, 409, "LINK_EXISTS");
        refused(&link(&app, b, a, "BLOCKS").await, 409, "LINK_EXISTS");
        // A well-formed target that does not exist.
        let r = link(&app, a, &cuid2::create_id(), "RELATED").await;
        refused(&r, 404, "NOT_FOUND");

        // Schema failures, with details.
        let path = format!("/api/cards/{a}/relations");
        let r = app.call("POST", &path, Some(json!({"targetId": 5, "kind": "CHILD", "extra": 1}))).await;
        refused(&r, 422, "VALIDATION_FAILED");
        let d = &r.body["details"];
        assert!(d["fieldErrors"]["targetId"][0].is_string(), "{d}");
        assert!(d["fieldErrors"]["kind"][0].as_str().unwrap().contains("PARENT"), "{d}");
        assert!(d["formErrors"][0].as_str().unwrap().contains("extra"), "{d}");
        let r = app.call("POST", &path, Some(json!({}))).await;
        refused(&r, 422, "VALIDATION_FAILED");
        assert_eq!(r.body["details"]["fieldErrors"], json!({"targetId": ["Required"], "kind": ["Required"]}));
        let r = app.call("POST", &path, Some(json!({"targetId": "nope", "kind": "RELATED"}))).await;
        refused(&r, 422, "VALIDATION_FAILED");
        assert!(r.body["details"]["fieldErrors"]["targetId"].is_array(), "{:?}", r.body);
        let r = app.call("POST", &path, Some(json!({"targetId": b, "kind": "related"}))).await;
        refused(&r, 422, "VALIDATION_FAILED");
        let auth = format!("Bearer {}", app.token);
        for body in ["{not json", "", "[1]"] {
            let r = app.raw("POST", &path, &[("authorization", &auth), ("content-type", "application/json")], body).await;
            refused(&r, 422, "VALIDATION_FAILED");
            assert_eq!(r.body["details"]["formErrors"].as_array().unwrap().len(), 1, "{body:?}: {:?}", r.body);
        }

        assert_eq!(links_of(&app, a).await, before_a);
        assert_eq!(links_of(&app, b).await, before_b);
    }

    async fn cross_workspace_and_cross_project(backend) {
        let app = common::spawn_app(backend).await;
        // A second workspace with a column and a card; "both" reaches both workspaces.
        let other = app.workspace("Other").await;
        let both = app.account_in(&other, "both", "admin").await;
        app.member(&app.tenant, "both", "member").await;
        let r = app
            .call_as(&both, "POST", "/api/columns", Some(json!({"tenantId": other, "name": "Col"})))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let r = app
            .call_as(&both, "POST", "/api/cards", Some(json!({"tenantId": other, "title": "far"})))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let far = id(&r.body);
        let a = id(&app.card("a").await);
        let b = id(&app.card("b").await);

        // Whether or not the account reaches the target's workspace.
        refused(&link(&app, &a, &far, "RELATED").await, 422, "CROSS_WORKSPACE_LINK");
        let path = format!("/api/cards/{a}/relations");
        let r = app.call_as(&both, "POST", &path, Some(json!({"targetId": far, "kind": "RELATED"}))).await;
        refused(&r, 422, "CROSS_WORKSPACE_LINK");

        // Projects.
        let mut projects = Vec::new();
        for name in ["P1", "P2"] {
            projects.push(app.project(&app.tenant, name).await);
        }
        let mut in_project = Vec::new();
        for p in [&projects[0], &projects[0], &projects[1]] {
            let r = app
                .call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "projectId": p, "title": "p"})))
                .await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            in_project.push(id(&r.body));
        }
        let (p1, p1b, p2) = (&in_project[0], &in_project[1], &in_project[2]);
        refused(&link(&app, p1, p2, "RELATED").await, 422, "CROSS_PROJECT_LINK");
        refused(&link(&app, p1, &a, "RELATED").await, 422, "CROSS_PROJECT_LINK");
        refused(&link(&app, &a, p2, "BLOCKS").await, 422, "CROSS_PROJECT_LINK");
        for card in [p1, p2, &a] {
            assert!(links_of(&app, card).await.is_empty(), "a refusal linked {card}");
        }
        // Same project, and two cards without a project: the same grouping.
        assert_eq!(link(&app, p1, p1b, "RELATED").await.status, 201);
        assert_eq!(link(&app, &a, &b, "RELATED").await.status, 201);

        app.settings(json!({"tenantId": app.tenant, "allowCrossProjectLinks": true})).await;
        assert_eq!(link(&app, p1, p2, "RELATED").await.status, 201);
        assert_eq!(link(&app, p2, &a, "PARENT").await.status, 201);
        // The setting never allows another workspace.
        refused(&link(&app, &a, &far, "RELATED").await, 422, "CROSS_WORKSPACE_LINK");
        assert_eq!(links_of(&app, &a).await.len(), 2);
    }

    async fn parent_and_blocks_cycles_are_refused(backend) {
        let app = common::spawn_app(backend).await;
        let c = cards(&app, 4).await;
        for kind in ["PARENT", "BLOCKS"] {
            // Fresh cards per kind: c0 → c1 → c2 → c3.
            let c = cards(&app, 4).await;
            for w in c.windows(2) {
                assert_eq!(link(&app, &w[0], &w[1], kind).await.status, 201, "{kind}");
            }
            let before: Vec<Vec<Value>> = {
                let mut v = Vec::new();
                for card in &c {
                    v.push(links_of(&app, card).await);
                }
                v
            };
            // Closing the chain through 4 cards, or through 3.
            refused(&link(&app, &c[3], &c[0], kind).await, 422, "LINK_CYCLE");
            refused(&link(&app, &c[2], &c[0], kind).await, 422, "LINK_CYCLE");
            refused(&link(&app, &c[3], &c[1], kind).await, 422, "LINK_CYCLE");
            for (card, links) in c.iter().zip(&before) {
                assert_eq!(&links_of(&app, card).await, links, "{kind}: a refusal changed {card}");
            }
            // A link of another kind along the same path closes no cycle of its kind.
            let other = if kind == "PARENT" { "BLOCKS" } else { "PARENT" };
            assert_eq!(link(&app, &c[3], &c[0], other).await.status, 201, "{kind}");
            // Forward shortcuts close no cycle either.
            assert_eq!(link(&app, &c[0], &c[2], kind).await.status, 201, "{kind}");
        }
        // GENERATED and RELATED are not checked for cycles.
        for kind in ["GENERATED", "RELATED"] {
            let c = cards(&app, 3).await;
            assert_eq!(link(&app, &c[0], &c[1], kind).await.status, 201);
            assert_eq!(link(&app, &c[1], &c[2], kind).await.status, 201);
            assert_eq!(link(&app, &c[2], &c[0], kind).await.status, 201, "{kind} closes a loop freely");
        }
        // A diamond is not a cycle.
        assert_eq!(link(&app, &c[0], &c[1], "PARENT").await.status, 201);
        assert_eq!(link(&app, &c[0], &c[2], "PARENT").await.status, 201);
        assert_eq!(link(&app, &c[1], &c[3], "PARENT").await.status, 201);
        assert_eq!(link(&app, &c[2], &c[3], "PARENT").await.status, 201);
        refused(&link(&app, &c[3], &c[0], "PARENT").await, 422, "LINK_CYCLE");
    }

    async fn access_401_404_403_in_contract_order(backend) {
        let app = common::spawn_app(backend).await;
        let c = cards(&app, 3).await;
        let (a, b, x) = (&c[0], &c[1], &c[2]);
        let r = link(&app, a, b, "RELATED").await;
        let rid = id(&r.body);
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let member = app.account_in(&app.tenant, "mo", "member").await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "olga", "admin").await;
        let list = format!("/api/cards/{a}/relations");
        let body = json!({"targetId": x, "kind": "BLOCKS"});
        let del = format!("/api/relations/{rid}");

        // 401 first, even for paths that do not exist.
        for token in ["", "brd_nope"] {
            for (m, p) in [("GET", list.as_str()), ("POST", list.as_str()), ("DELETE", del.as_str()),
                           ("GET", "/api/cards/nope/relations"), ("DELETE", "/api/relations/nope")] {
                let r = app.call_as(token, m, p, Some(body.clone())).await;
                refused(&r, 401, "UNAUTHENTICATED");
            }
        }
        // 404 for the route's card or relation, before 403 and before 422.
        let unknown = cuid2::create_id();
        for p in [format!("/api/cards/{unknown}/relations"), "/api/cards/nope/relations".into()] {
            refused(&app.call_as(&outsider, "GET", &p, None).await, 404, "NOT_FOUND");
            refused(&app.call_as(&outsider, "POST", &p, Some(json!({"kind": 1}))).await, 404, "NOT_FOUND");
        }
        refused(&app.call_as(&outsider, "DELETE", &format!("/api/relations/{unknown}"), None).await, 404, "NOT_FOUND");
        // 403: the workspace not reached, or a role too low; before 422.
        refused(&app.call_as(&outsider, "GET", &list, None).await, 403, "FORBIDDEN");
        refused(&app.call_as(&outsider, "POST", &list, Some(body.clone())).await, 403, "FORBIDDEN");
        refused(&app.call_as(&outsider, "DELETE", &del, None).await, 403, "FORBIDDEN");
        refused(&app.call_as(&viewer, "POST", &list, Some(body.clone())).await, 403, "FORBIDDEN");
        refused(&app.call_as(&viewer, "POST", &list, Some(json!({"kind": 1}))).await, 403, "FORBIDDEN");
        refused(&app.call_as(&viewer, "DELETE", &del, None).await, 403, "FORBIDDEN");
        // A viewer reads; nothing changed.
        let r = app.call_as(&viewer, "GET", &list, None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body.as_array().unwrap().len(), 1, "{:?}", r.body);
        assert!(links_of(&app, x).await.is_empty());
        // A member writes.
        let r = app.call_as(&member, "POST", &list, Some(body.clone())).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let r = app.call_as(&member, "DELETE", &del, None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(links_of(&app, b).await, Vec::<Value>::new());
        // No other method on these paths.
        let r = app.call("PATCH", &list, Some(body.clone())).await;
        refused(&r, 405, "METHOD_NOT_ALLOWED");
    }

    async fn racing_inverse_creations_give_one_link_per_pair(backend) {
        const PAIRS: usize = 20;
        let app = Arc::new(common::spawn_app(backend).await);
        let c = cards(&app, 2 * PAIRS).await;
        let kinds = ["PARENT", "BLOCKS", "GENERATED", "RELATED"];
        let barrier = Arc::new(Barrier::new(2 * PAIRS));
        let mut tasks = Vec::new();
        for p in 0..PAIRS {
            let (a, b) = (c[2 * p].clone(), c[2 * p + 1].clone());
            let kind = kinds[p % kinds.len()];
            for (from, to) in [(a.clone(), b.clone()), (b, a)] {
                let (app, barrier) = (app.clone(), barrier.clone());
                tasks.push(tokio::spawn(async move {
                    // Open this task's connection first, so the creations start together.
                    let warm = app.call("GET", &format!("/api/cards/{from}/relations"), None).await;
                    assert_eq!(warm.status, 200);
                    barrier.wait().await;
                    link(&app, &from, &to, kind).await
                }));
            }
        }
        let mut results = Vec::new();
        for t in tasks {
            results.push(t.await.unwrap());
        }
        let board = app.board().await;
        for p in 0..PAIRS {
            let mut statuses = vec![results[2 * p].status, results[2 * p + 1].status];
            statuses.sort();
            assert_eq!(statuses, vec![201, 409], "pair {p}: {:?} / {:?}", results[2 * p].body, results[2 * p + 1].body);
            for card in [&c[2 * p], &c[2 * p + 1]] {
                let links = board
                    .card_relations(&board_core::Actor::Operator, &board_core::CardId::parse(card).unwrap())
                    .await
                    .unwrap();
                assert_eq!(links.len(), 1, "pair {p}: {links:?}");
            }
        }
        board.close().await;
    }
}
