//! Webhooks (api.md §18): the five Admin routes, the target check, and
//! deliveries to a real receiver on 127.0.0.1 that the test controls
//! (`testkit::receiver`): signed, one at a time in seq order, retried with
//! back-off, timed out at 10 s, given up after `--webhook-give-up`, and
//! never lost across a restart of the server while the receiver is down.

use std::time::Duration;

use serde_json::{json, Value};
use testkit::receiver::{Mode, Receiver};
use testkit::{self as common, on_both_backends, App};

const PRIVATE: &[(&str, &str)] = &[("BOARD_WEBHOOK_ALLOW_PRIVATE", "true")];

async fn create(app: &App, body: Value) -> Value {
    let r = app.call("POST", "/api/webhooks", Some(body)).await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    r.body
}

async fn hook(app: &App, id: &str) -> Value {
    let r = app
        .call("GET", &format!("/api/webhooks?tenant={}", app.tenant), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["id"] == id)
        .cloned()
        .expect("the webhook is listed")
}

async fn deliveries(app: &App, id: &str) -> Vec<Value> {
    let r = app
        .call("GET", &format!("/api/webhooks/{id}/deliveries"), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_array().unwrap().clone()
}

on_both_backends! {
    async fn only_admins_reach_the_routes_and_the_secret_is_shown_once(backend) {
        let app = common::spawn_app_with(backend, PRIVATE).await;
        let member = app.account_in(&app.tenant, "mia", "member").await;
        let viewer = app.account_in(&app.tenant, "vic", "viewer").await;
        let body = json!({"tenantId": app.tenant, "url": "http://127.0.0.1:9/x", "secret": "0123456789abcdef"});
        let created = create(&app, body.clone()).await;
        let id = created["id"].as_str().unwrap().to_string();
        assert_eq!(created["secret"], "0123456789abcdef");
        assert_eq!(created["active"], true);
        assert_eq!(created["events"].as_array().unwrap().len(), board_core::WEBHOOK_EVENTS.len());
        for t in ["card.archived", "card.restored", "cards.repositioned"] {
            assert!(created["events"].as_array().unwrap().contains(&json!(t)), "{t}");
        }
        let listed = hook(&app, &id).await;
        assert!(listed.get("secret").is_none(), "never in a list: {listed}");
        for key in ["lastDeliveredSeq", "lastAttemptAt", "lastStatus", "lastError", "failingSince"] {
            assert!(listed.get(key).is_some(), "{key} in {listed}");
        }
        let generated = create(&app, json!({"tenantId": app.tenant, "url": "http://127.0.0.1:9/y"})).await;
        assert!(generated["secret"].as_str().unwrap().len() >= 16);

        let routes = [
            ("GET", format!("/api/webhooks?tenant={}", app.tenant), None),
            ("POST", "/api/webhooks".to_string(), Some(body)),
            ("PATCH", format!("/api/webhooks/{id}"), Some(json!({"active": false}))),
            ("DELETE", format!("/api/webhooks/{id}"), None),
            ("GET", format!("/api/webhooks/{id}/deliveries"), None),
        ];
        for token in [&member, &viewer] {
            for (method, path, body) in &routes {
                let r = app.call_as(token, method, path, body.clone()).await;
                assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")), "{method} {path}");
            }
        }
        assert_eq!(hook(&app, &id).await["active"], true, "a refused PATCH changed nothing");
        let missing = "zzzzzzzzzzzzzzzzzzzzzzzz";
        for (method, path) in [("PATCH", format!("/api/webhooks/{missing}")), ("DELETE", format!("/api/webhooks/{missing}")), ("GET", format!("/api/webhooks/{missing}/deliveries")), ("GET", "/api/webhooks/nope/deliveries".into())] {
            let r = app.call(method, &path, Some(json!({}))).await;
            assert_eq!(r.status, 404, "{method} {path}: {:?}", r.body);
        }
        let r = app.call("GET", "/api/webhooks", None).await;
        assert_eq!(r.status, 422, "tenant is required");

        let r = app.call("PATCH", &format!("/api/webhooks/{id}"), Some(json!({"events": ["card.moved"], "active": false}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((r.body["events"].clone(), r.body["active"].clone(), r.body["skipped"].clone()), (json!(["card.moved"]), json!(false), json!(0)));
        for bad in [json!({"events": []}), json!({"events": ["card.nope"]}), json!({"url": "ftp://x"}), json!({"secret": "0123456789abcdef"}), json!({"active": "yes"})] {
            let r = app.call("PATCH", &format!("/api/webhooks/{id}"), Some(bad.clone())).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")), "{bad}");
        }
        let r = app.call("DELETE", &format!("/api/webhooks/{id}"), None).await;
        assert_eq!((r.status, r.body.clone()), (200, json!({"deleted": true})));
        let r = app.call("GET", &format!("/api/webhooks/{id}/deliveries"), None).await;
        assert_eq!(r.status, 404);
    }

    async fn private_targets_are_refused_at_creation_and_on_a_new_url(backend) {
        let app = common::spawn_app(backend).await;
        for url in ["http://127.0.0.1:8080/", "http://localhost/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://10.1.2.3/", "http://169.254.169.254/latest", "http://[fd00::1]/", "http://0.0.0.0/",
            // NAT64, SIIT and Teredo forms, benchmarking and IETF-protocol ranges (api.md §18).
            "http://[64:ff9b::a9fe:a9fe]/", "http://[64:ff9b:1::a9fe:a9fe]/", "http://[::ffff:0:a9fe:a9fe]/",
            "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/", "http://198.18.0.1/", "http://192.0.0.170/", "http://[2002:c612:1::]/"] {
            let r = app.call("POST", "/api/webhooks", Some(json!({"tenantId": app.tenant, "url": url}))).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("WEBHOOK_TARGET")), "{url}: {:?}", r.body);
        }
        let public = create(&app, json!({"tenantId": app.tenant, "url": "http://93.184.216.34/hook"})).await;
        let id = public["id"].as_str().unwrap();
        for url in ["http://192.168.0.1/", "http://[64:ff9b::7f00:1]/"] {
            let r = app.call("PATCH", &format!("/api/webhooks/{id}"), Some(json!({"url": url}))).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("WEBHOOK_TARGET")), "{url}");
        }
        assert_eq!(hook(&app, id).await["url"], "http://93.184.216.34/hook", "nothing changed");
        let r = app.call("GET", &format!("/api/webhooks?tenant={}", app.tenant), None).await;
        assert_eq!(r.body.as_array().unwrap().len(), 1, "no refused webhook was stored");
    }

    async fn events_arrive_signed_one_at_a_time_in_seq_order(backend) {
        let app = common::spawn_app_with(backend, PRIVATE).await;
        let receiver = Receiver::start().await;
        let moves_receiver = Receiver::start().await;
        let secret = "a-secret-of-the-team";
        let created = create(&app, json!({"tenantId": app.tenant, "url": receiver.url, "secret": secret})).await;
        let moves = create(&app, json!({"tenantId": app.tenant, "url": moves_receiver.url, "events": ["card.moved"]})).await;
        let cols = app.columns().await;
        let card = app.card("one").await;
        let card_id = card["id"].as_str().unwrap();
        app.call("PATCH", &format!("/api/cards/{card_id}"), Some(json!({"columnId": cols[1]["id"]}))).await;
        app.call("POST", &format!("/api/cards/{card_id}/comments"), Some(json!({"content": "hi"}))).await;
        // Another workspace's change reaches no webhook of this one.
        let other = app.workspace("Other").await;
        app.card_in(&other, "elsewhere").await;
        app.call("DELETE", &format!("/api/cards/{card_id}"), None).await;
        let got = receiver.wait_for(Duration::from_secs(10), |s| s.len() >= 4).await;
        assert_eq!(got.len(), 4, "{got:?}");
        let moved = moves_receiver.wait_for(Duration::from_secs(10), |s| !s.is_empty()).await;
        assert_eq!(moved.len(), 1, "the filter takes only card.moved");
        let hits = receiver.hits();
        assert_eq!(hits.len(), 4, "no retry: {hits:?}");
        let mut types = Vec::new();
        for h in &hits {
            let data: Value = serde_json::from_str(&h.body).unwrap();
            assert_eq!(data["seq"], h.seq, "X-Board-Delivery is the seq");
            assert_eq!(data["type"], h.event.as_str());
            assert_eq!(data["tenantId"], app.tenant.as_str());
            assert!(data["subject"].is_object(), "{data}");
            assert_eq!(h.content_type, "application/json");
            let ts: i64 = h.timestamp.parse().unwrap();
            let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs() as i64;
            assert!((ts - now).abs() < 60, "X-Board-Timestamp is unix seconds");
            assert_eq!(h.signature, board_core::webhook_signature(secret, ts, &h.body), "signed with the secret");
            types.push(h.event.clone());
        }
        assert_eq!(types, ["card.created", "card.moved", "comment.created", "card.deleted"]);
        let mut sorted = got.clone();
        sorted.sort();
        assert_eq!(got, sorted, "in seq order");
        assert_eq!(moved[0], got[1], "the same seq on both webhooks");
        assert_eq!(receiver.overlaps(), 0, "one request at a time");
        tokio::time::sleep(board_core::WEBHOOK_FLUSH * 3).await;
        let id = created["id"].as_str().unwrap();
        let listed = hook(&app, id).await;
        assert_eq!(listed["lastStatus"], 200);
        assert!(listed["failingSince"].is_null() && listed["lastError"].is_null());
        assert!(listed["lastDeliveredSeq"].as_i64().unwrap() >= got[3]);
        let log = deliveries(&app, id).await;
        assert_eq!(log.len(), 4, "{log:?}");
        assert_eq!(log[0]["type"], "card.deleted", "newest first");
        assert_eq!((log[0]["seq"].clone(), log[0]["status"].clone(), log[0]["attempt"].clone(), log[0]["error"].clone()), (json!(got[3]), json!(200), json!(1), Value::Null));
        // The filter's webhook passed over what it does not take: its position
        // reaches the last event.
        let filtered = hook(&app, moves["id"].as_str().unwrap()).await;
        assert!(filtered["lastDeliveredSeq"].as_i64().unwrap() >= got[3], "{filtered}");
    }

    async fn failures_are_retried_with_back_off_then_delivered(backend) {
        let app = common::spawn_app_with(backend, PRIVATE).await;
        let receiver = Receiver::start().await;
        receiver.fail_next(3);
        let created = create(&app, json!({"tenantId": app.tenant, "url": receiver.url})).await;
        let id = created["id"].as_str().unwrap();
        app.card("a").await;
        app.card("b").await;
        let got = receiver.wait_for(Duration::from_secs(20), |s| s.len() >= 2).await;
        let hits = receiver.hits();
        assert_eq!(hits.len(), 5, "3 failures, then the two events: {hits:?}");
        assert!(hits[..4].iter().all(|h| h.seq == hits[0].seq), "the second event waits for the first");
        let gaps: Vec<Duration> = hits.windows(2).take(3).map(|w| w[1].at - w[0].at).collect();
        for (gap, want) in gaps.iter().zip([1000, 2000, 4000]) {
            assert!(gap.as_millis() >= want - 50 && gap.as_millis() < want + 1500, "back-off {gaps:?}");
        }
        assert_eq!(got.len(), 2);
        assert!(got[0] < got[1]);
        tokio::time::sleep(board_core::WEBHOOK_FLUSH * 3).await;
        let log = deliveries(&app, id).await;
        let attempts: Vec<(i64, Value)> = log.iter().rev().map(|d| (d["attempt"].as_i64().unwrap(), d["status"].clone())).collect();
        assert_eq!(attempts, vec![(1, json!(500)), (2, json!(500)), (3, json!(500)), (4, json!(200)), (1, json!(200))]);
        assert_eq!(log.last().unwrap()["error"], "answered HTTP 500");
        let h = hook(&app, id).await;
        assert_eq!((h["lastStatus"].clone(), h["failingSince"].clone(), h["lastError"].clone()), (json!(200), Value::Null, Value::Null));
    }

    async fn a_receiver_that_hangs_times_out_after_ten_seconds(backend) {
        let app = common::spawn_app_with(backend, PRIVATE).await;
        let receiver = Receiver::start().await;
        receiver.set_mode(Mode::Hang);
        let created = create(&app, json!({"tenantId": app.tenant, "url": receiver.url})).await;
        let id = created["id"].as_str().unwrap();
        app.card("slow").await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        receiver.set_mode(Mode::Accept);
        let got = receiver.wait_for(Duration::from_secs(20), |s| !s.is_empty()).await;
        assert_eq!(got.len(), 1);
        let hits = receiver.hits();
        assert_eq!(hits.len(), 2, "{hits:?}");
        let waited = hits[1].at - hits[0].at;
        assert!(waited >= Duration::from_secs(11) && waited < Duration::from_secs(14), "10 s timeout + 1 s back-off: {waited:?}");
        tokio::time::sleep(board_core::WEBHOOK_FLUSH * 3).await;
        let log = deliveries(&app, id).await;
        assert_eq!(log.len(), 2);
        let first = &log[1];
        assert!(first["status"].is_null(), "{first}");
        assert!(first["error"].as_str().unwrap().contains("timed out"), "{first}");
        assert!(first["durationMs"].as_i64().unwrap() >= 10_000 && first["durationMs"].as_i64().unwrap() < 11_000);
    }

    async fn a_webhook_failing_past_give_up_turns_inactive_with_the_reason(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_WEBHOOK_ALLOW_PRIVATE", "true"), ("BOARD_WEBHOOK_GIVE_UP", "2s")]).await;
        let receiver = Receiver::start().await;
        receiver.set_mode(Mode::Status(503));
        let created = create(&app, json!({"tenantId": app.tenant, "url": receiver.url})).await;
        let id = created["id"].as_str().unwrap();
        app.card("x").await;
        let mut h = hook(&app, id).await;
        for _ in 0..100 {
            if h["active"] == false {
                break;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
            h = hook(&app, id).await;
        }
        assert_eq!(h["active"], false, "{h}");
        let error = h["lastError"].as_str().unwrap();
        assert!(error.contains("turned inactive") && error.contains("503"), "{error}");
        assert_eq!(h["lastStatus"], 503);
        let tried = receiver.hits().len();
        assert!((2..=3).contains(&tried), "1 s, then 2 s of back-off: {tried}");
        // Turned on again, it resumes after its position: the event comes.
        receiver.set_mode(Mode::Accept);
        let r = app.call("PATCH", &format!("/api/webhooks/{id}"), Some(json!({"active": true}))).await;
        assert_eq!((r.status, r.body["skipped"].clone(), r.body["failingSince"].clone()), (200, json!(0), Value::Null));
        let got = receiver.wait_for(Duration::from_secs(10), |s| !s.is_empty()).await;
        assert_eq!(got.len(), 1);
    }

    async fn nothing_is_delivered_after_a_delete_or_while_off(backend) {
        let app = common::spawn_app_with(backend, PRIVATE).await;
        let receiver = Receiver::start().await;
        let a = create(&app, json!({"tenantId": app.tenant, "url": receiver.url})).await;
        let a = a["id"].as_str().unwrap();
        app.card("first").await;
        receiver.wait_for(Duration::from_secs(10), |s| s.len() == 1).await;
        app.call("PATCH", &format!("/api/webhooks/{a}"), Some(json!({"active": false}))).await;
        app.card("while off").await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(receiver.accepted().len(), 1, "nothing while off");
        app.call("DELETE", &format!("/api/webhooks/{a}"), None).await;
        app.card("after delete").await;
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(receiver.hits().len(), 1, "nothing after the delete");
    }

    async fn retention_keeps_what_an_active_webhook_has_not_delivered(backend) {
        let app = common::spawn_app_with(backend, PRIVATE).await;
        let receiver = Receiver::start().await;
        receiver.set_mode(Mode::Drop);
        let created = create(&app, json!({"tenantId": app.tenant, "url": receiver.url})).await;
        let id = created["id"].as_str().unwrap();
        for i in 0..3 {
            app.card(&format!("c{i}")).await;
        }
        tokio::time::sleep(Duration::from_millis(300)).await;
        app.operator().admin().prune_events(Duration::ZERO, Duration::ZERO).await.unwrap();
        receiver.set_mode(Mode::Accept);
        let got = receiver.wait_for(Duration::from_secs(15), |s| s.len() >= 3).await;
        assert_eq!(got.len(), 3, "none of the undelivered events was pruned: {got:?}");
        // Off, the webhook holds nothing back: a reactivation skips what was
        // pruned meanwhile, and says how many seqs it passed over.
        tokio::time::sleep(board_core::WEBHOOK_FLUSH * 3).await;
        app.call("PATCH", &format!("/api/webhooks/{id}"), Some(json!({"active": false}))).await;
        for i in 0..3 {
            app.card(&format!("d{i}")).await;
        }
        app.operator().admin().prune_events(Duration::ZERO, Duration::ZERO).await.unwrap();
        let r = app.call("PATCH", &format!("/api/webhooks/{id}"), Some(json!({"active": true}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body["skipped"], 2, "three events, the newest kept: {:?}", r.body);
        let got = receiver.wait_for(Duration::from_secs(10), |s| s.len() >= 4).await;
        assert_eq!(got.len(), 4, "the newest, retained, is delivered: {got:?}");
    }

    async fn a_restart_while_the_receiver_is_down_loses_nothing(backend) {
        let mut app = common::spawn_app_with(backend, PRIVATE).await;
        let receiver = Receiver::start().await;
        create(&app, json!({"tenantId": app.tenant, "url": receiver.url})).await;
        app.card("before").await;
        receiver.wait_for(Duration::from_secs(10), |s| s.len() == 1).await;
        receiver.set_mode(Mode::Status(500));
        for i in 0..4 {
            app.card(&format!("down {i}")).await;
        }
        // The first of them is being retried when the server stops.
        tokio::time::sleep(Duration::from_millis(1500)).await;
        app.stop().await;
        receiver.set_mode(Mode::Accept);
        app.start().await;
        app.card("after").await;
        let got = receiver.wait_for(Duration::from_secs(20), |s| s.len() >= 6).await;
        let mut unique = got.clone();
        unique.dedup();
        assert_eq!(unique.len(), 6, "every event, none lost: {got:?}");
        let mut sorted = unique.clone();
        sorted.sort();
        assert_eq!(unique, sorted, "in seq order");
    }
}
