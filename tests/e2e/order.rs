//! Cards in order (api.md §16): placements on create and PATCH, the anchor
//! rules, positions in events, renumbering with `cards.repositioned`, and
//! racing placements on two servers.

use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use testkit::order::numbered;
use testkit::sse::EventStream;
use testkit::{self as common, on_both_backends, App};

const WAIT: Duration = Duration::from_secs(5);

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

async fn columns(app: &App) -> (String, String) {
    let cols = app.columns().await;
    (id(&cols[0]), id(&cols[1]))
}

async fn create(app: &App, body: Value) -> common::Res {
    let mut body = body;
    body["tenantId"] = json!(app.tenant);
    body["title"] = json!("placed");
    app.call("POST", "/api/cards", Some(body)).await
}

async fn patch(app: &App, card: &str, body: Value) -> common::Res {
    app.call("PATCH", &format!("/api/cards/{card}"), Some(body))
        .await
}

async fn stream(app: &App) -> EventStream {
    let path = format!("/api/events?tenant={}", app.tenant);
    EventStream::open(&app.http, &app.base, &app.token, &path, None).await
}

on_both_backends! {
    async fn a_new_card_goes_where_its_placement_says(backend) {
        let app = common::spawn_app(backend).await;
        let (todo, _) = columns(&app).await;
        let abc = app.cards_at_end(&todo, &["a", "b", "c"]).await;
        let order = app.column_order(&todo).await;
        assert!(order[0].1 < order[1].1 && order[1].1 < order[2].1);

        let r = create(&app, json!({"beforeId": abc[1]})).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let d = id(&r.body);
        let r = create(&app, json!({"afterId": abc[2]})).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let e = id(&r.body);
        let r = create(&app, json!({"beforeId": abc[0], "columnId": todo})).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let top = id(&r.body);
        assert_eq!(app.column_ids(&todo).await, vec![top, abc[0].clone(), d, abc[1].clone(), abc[2].clone(), e]);
    }

    async fn a_refused_placement_changes_nothing(backend) {
        let app = common::spawn_app(backend).await;
        let (todo, doing) = columns(&app).await;
        let cards = app.cards_at_end(&todo, &["a", "b"]).await;
        let other = app.cards_at_end(&doing, &["elsewhere"]).await;
        let foreign_ws = app.workspace("Other").await;
        let foreign = id(&app.card_in(&foreign_ws, "foreign").await);
        let before = app.column_order(&todo).await;

        let both = create(&app, json!({"beforeId": cards[0], "afterId": cards[1]})).await;
        assert_eq!(both.status, 422, "{:?}", both.body);
        assert_eq!(both.body["error"], "VALIDATION_FAILED");
        let form = both.body["details"]["formErrors"][0].as_str().unwrap();
        assert!(form.contains("beforeId") && form.contains("afterId"), "{form}");
        let malformed = create(&app, json!({"afterId": "nope"})).await;
        assert_eq!(malformed.status, 422);
        assert!(malformed.body["details"]["fieldErrors"]["afterId"].is_array(), "{:?}", malformed.body);

        let unknown = "ckv7q2x0a0000abcdefghijk";
        for anchor in [unknown, other[0].as_str(), foreign.as_str()] {
            let r = create(&app, json!({"afterId": anchor})).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("INVALID_ANCHOR")), "{:?}", r.body);
            let r = patch(&app, &cards[0], json!({"beforeId": anchor, "title": "renamed"})).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("INVALID_ANCHOR")), "{:?}", r.body);
        }
        // The card itself, and an anchor of the column it leaves.
        let r = patch(&app, &cards[0], json!({"afterId": cards[0]})).await;
        assert_eq!(r.body["error"], "INVALID_ANCHOR", "{:?}", r.body);
        let r = patch(&app, &cards[0], json!({"columnId": doing, "afterId": cards[1]})).await;
        assert_eq!(r.body["error"], "INVALID_ANCHOR", "{:?}", r.body);
        let r = patch(&app, &cards[0], json!({"afterId": cards[1], "beforeId": cards[1]})).await;
        assert_eq!(r.status, 422);
        // A deleted anchor.
        let gone = app.cards_at_end(&todo, &["gone"]).await;
        assert_eq!(app.call("DELETE", &format!("/api/cards/{}", gone[0]), None).await.status, 200);
        let r = patch(&app, &cards[1], json!({"beforeId": gone[0]})).await;
        assert_eq!(r.body["error"], "INVALID_ANCHOR", "{:?}", r.body);
        // An archived anchor: it is not on the board (api.md §16).
        let shelved = app.cards_at_end(&todo, &["shelved"]).await;
        let archived = app.call("POST", &format!("/api/cards/{}/archive", shelved[0]), None).await;
        assert_eq!(archived.status, 200, "{:?}", archived.body);
        let r = patch(&app, &cards[0], json!({"afterId": shelved[0]})).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("INVALID_ANCHOR")), "{:?}", r.body);
        let r = create(&app, json!({"beforeId": shelved[0]})).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("INVALID_ANCHOR")), "{:?}", r.body);

        assert_eq!(app.column_order(&todo).await, before, "nothing moved or appeared");
        assert_eq!(app.column_ids(&doing).await, other);
        let card = app.call("GET", &format!("/api/cards/{}", cards[0]), None).await;
        assert_eq!(card.body["title"], "a");
        let h = app.call("GET", &format!("/api/cards/{}/history", cards[0]), None).await;
        assert_eq!(h.body.as_array().unwrap().len(), 1);
    }

    async fn a_move_within_a_column_writes_no_history_and_emits_card_moved(backend) {
        let app = common::spawn_app(backend).await;
        let (todo, doing) = columns(&app).await;
        let c = app.cards_at_end(&todo, &["a", "b", "c"]).await;
        let mut events = stream(&app).await;

        let r = patch(&app, &c[2], json!({"beforeId": c[0]})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(app.column_ids(&todo).await, vec![c[2].clone(), c[0].clone(), c[1].clone()]);
        let moved = events.next(WAIT).await.expect("card.moved");
        assert_eq!(moved.event, "card.moved");
        assert_eq!(moved.data["fromColumnId"], todo.as_str());
        assert_eq!(moved.data["subject"]["columnId"], todo.as_str());
        assert_eq!(moved.data["subject"]["position"], r.body["position"]);
        let h = app.call("GET", &format!("/api/cards/{}/history", c[2]), None).await;
        assert_eq!(h.body.as_array().unwrap().len(), 1, "history records column changes only");

        // Already there: nothing changes, no event.
        let again = patch(&app, &c[2], json!({"beforeId": c[0]})).await;
        assert_eq!(again.body, r.body);
        // Without a placement: the same column, or a rename, keeps the place.
        let same = patch(&app, &c[0], json!({"columnId": todo, "title": "A"})).await;
        assert_eq!(same.status, 200);
        let updated = events.next(WAIT).await.expect("card.updated");
        assert_eq!(updated.event, "card.updated");
        assert_eq!(updated.data["subject"]["position"], same.body["position"]);
        assert_eq!(app.column_ids(&todo).await, vec![c[2].clone(), c[0].clone(), c[1].clone()]);

        // To another column: its end without a placement, else the placement.
        let d = app.cards_at_end(&doing, &["x", "y"]).await;
        let _ = events.take(2, WAIT).await;
        let r = patch(&app, &c[1], json!({"columnId": doing, "afterId": d[0]})).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(app.column_ids(&doing).await, vec![d[0].clone(), c[1].clone(), d[1].clone()]);
        let moved = events.next(WAIT).await.expect("card.moved");
        assert_eq!(moved.data["fromColumnId"], todo.as_str());
        let h = app.call("GET", &format!("/api/cards/{}/history", c[1]), None).await;
        assert_eq!(h.body.as_array().unwrap().len(), 2);
        let r = patch(&app, &c[2], json!({"columnId": doing})).await;
        assert_eq!(app.column_ids(&doing).await.last(), Some(&id(&r.body)));
        // Top and bottom of the same column, through the anchors at its edges.
        let r = patch(&app, &d[0], json!({"afterId": c[2]})).await;
        assert_eq!(r.status, 200);
        assert_eq!(app.column_ids(&doing).await, vec![c[1].clone(), d[1].clone(), c[2].clone(), d[0].clone()]);
    }

    async fn a_used_up_gap_renumbers_a_few_cards_and_says_so(backend) {
        let app = common::spawn_app(backend).await;
        let (todo, _) = columns(&app).await;
        let cards = app.cards_at_end(&todo, &numbered("c", 60)).await;
        let (head, rest) = (&cards[..10], &cards[10..]);
        let mut events = stream(&app).await;
        // Each card in turn directly below the first: the gap halves each time.
        let mut expected: Vec<String> = head.to_vec();
        for card in rest {
            let r = patch(&app, card, json!({"afterId": cards[0]})).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            expected.insert(1, card.clone());
        }
        let order = app.column_order(&todo).await;
        let ids: Vec<String> = order.iter().map(|(i, _)| i.clone()).collect();
        assert_eq!(ids, expected);
        // Replay the events: they end on the board's positions.
        let mut model: std::collections::HashMap<String, i64> = std::collections::HashMap::new();
        let (mut moves, mut renumbered) = (0, 0);
        while moves < rest.len() {
            let f = events.next(WAIT).await.expect("an event per placement");
            let s = &f.data["subject"];
            if f.event == "cards.repositioned" {
                renumbered += 1;
                assert_eq!(s["columnId"], todo.as_str());
                let listed = s["cards"].as_array().unwrap();
                assert!(!listed.is_empty() && listed.len() < 40, "a local window: {}", listed.len());
                let next = events.next(WAIT).await.expect("its card.moved");
                assert_eq!(next.event, "card.moved");
                assert_eq!(next.id, f.id.map(|i| i + 1), "the same commit");
                let placed = id(&next.data["subject"]);
                assert!(listed.iter().all(|c| id(c) != placed), "not the placed card itself");
                for c in listed {
                    model.insert(id(c), c["position"].as_i64().unwrap());
                }
                model.insert(placed, next.data["subject"]["position"].as_i64().unwrap());
                moves += 1;
            } else {
                assert_eq!(f.event, "card.moved");
                model.insert(id(s), s["position"].as_i64().unwrap());
                moves += 1;
            }
        }
        assert!(renumbered >= 2, "50 placements at one place use up its gap more than once");
        for (card, position) in &order {
            if let Some(p) = model.get(card) {
                assert_eq!(p, position, "{card}");
            }
        }
    }

    async fn placements_agree_with_a_model_of_the_column(backend) {
        let app = common::spawn_app(backend).await;
        let (todo, _) = columns(&app).await;
        let cards = app.cards_at_end(&todo, &numbered("c", 12)).await;
        let mut model = cards.clone();
        let mut seed: u64 = 7;
        let mut next = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (seed >> 33) as usize % n
        };
        for _ in 0..150 {
            let card = model[next(model.len())].clone();
            let mut anchor = model[next(model.len())].clone();
            while anchor == card {
                anchor = model[next(model.len())].clone();
            }
            let after = next(2) == 0;
            let side = if after { "afterId" } else { "beforeId" };
            let r = patch(&app, &card, json!({ side: anchor })).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            model.retain(|c| *c != card);
            let at = model.iter().position(|c| *c == anchor).unwrap() + usize::from(after);
            model.insert(at, card);
        }
        assert_eq!(app.column_ids(&todo).await, model);
        // Two cards in turn directly below the first: each placement halves
        // the gap it lands in, and the renumbered window holds the placed card
        // itself (parked with the window, then written to its place).
        let (first, x, y) = (model[0].clone(), model[5].clone(), model[9].clone());
        for i in 0..60 {
            let card = if i % 2 == 0 { &x } else { &y };
            let r = patch(&app, card, json!({"afterId": first})).await;
            assert_eq!(r.status, 200, "{:?}", r.body);
            model.retain(|c| c != card);
            model.insert(1, card.clone());
        }
        assert_eq!(app.column_ids(&todo).await, model);
    }

    async fn racing_placements_on_two_servers_stay_where_they_said(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let second = app.second_server().await;
        let (todo, _) = columns(&app).await;
        let bases = [app.base.clone(), second.base.clone()];
        testkit::order::race_placements(app.clone(), &bases, &todo, 24).await;
    }
}

on_both_backends! {
    async fn the_openapi_document_describes_placements(backend) {
        let app = common::spawn_app(backend).await;
        let doc = app.call("GET", "/api/openapi.json", None).await.body;
        for schema in ["NewCard", "CardPatch"] {
            let props = &doc["components"]["schemas"][schema]["properties"];
            for key in ["beforeId", "afterId"] {
                assert!(props[key].is_object(), "{schema}.{key}: {props}");
            }
        }
        for (path, method) in [("/api/cards", "post"), ("/api/cards/{id}", "patch")] {
            let refused = &doc["paths"][path][method]["responses"]["422"]["description"];
            assert!(refused.as_str().unwrap().contains("INVALID_ANCHOR"), "{path}: {refused}");
        }
    }
}
