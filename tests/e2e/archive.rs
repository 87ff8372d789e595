//! Archive (api.md §19): archive and restore, what an archived card keeps and
//! where it is left out, the archived list paged by cursor, WIP limits (§20),
//! and restores raced into one HARD-limited column.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use testkit::sse::EventStream;
use testkit::{self as common, on_both_backends, App};
use tokio::sync::Barrier;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

async fn post(app: &App, card: &str, what: &str) -> common::Res {
    app.call("POST", &format!("/api/cards/{card}/{what}"), None)
        .await
}

/// The ids of the cards on the board, column by column.
async fn on_board(app: &App) -> Vec<String> {
    let r = app
        .call("GET", &format!("/api/board?tenant={}", app.tenant), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["columns"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|c| c["cards"].as_array().unwrap().iter().map(id))
        .collect()
}

async fn history_len(app: &App, card: &str) -> usize {
    let r = app
        .call("GET", &format!("/api/cards/{card}/history"), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body.as_array().unwrap().len()
}

/// Every page of the archived list with `limit`, the ids in order.
async fn archived(app: &App, query: &str, limit: u32) -> Vec<String> {
    let mut ids = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut path = format!(
            "/api/cards?tenant={}&archived=true&limit={limit}{query}",
            app.tenant
        );
        if let Some(c) = &cursor {
            path.push_str(&format!("&cursor={c}"));
        }
        let r = app.call("GET", &path, None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let cards = r.body["cards"].as_array().unwrap();
        assert!(cards.len() <= limit as usize);
        ids.extend(cards.iter().map(id));
        match r.body["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return ids,
        }
    }
}

on_both_backends! {
    async fn archive_and_restore(backend) {
        let app = common::spawn_app(backend).await;
        let columns = app.columns().await;
        let (todo, doing) = (id(&columns[0]), id(&columns[1]));
        let mut events = EventStream::open(
            &app.http, &app.base, &app.token, &format!("/api/events?tenant={}", app.tenant), None,
        ).await;
        let a = id(&app.card("a").await);
        let b = id(&app.card("b").await);
        let c = id(&app.card("c").await);
        events.take(3, Duration::from_secs(5)).await;

        let r = post(&app, &b, "archive").await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let at = r.body["archivedAt"].as_str().expect("archivedAt").to_string();
        assert_eq!(r.body["columnId"], todo.as_str());
        assert_eq!(on_board(&app).await, [a.clone(), c.clone()]);
        assert_eq!(history_len(&app, &b).await, 1, "archiving writes no history");
        let got = app.call("GET", &format!("/api/cards/{b}"), None).await;
        assert_eq!(got.body["archivedAt"], at.as_str());
        // Again: 200, unchanged, no event.
        let again = post(&app, &b, "archive").await;
        assert_eq!((again.status, &again.body), (200, &r.body));

        // An archived card keeps taking comments and links, and moves without
        // coming back.
        let comment = app.call("POST", &format!("/api/cards/{b}/comments"), Some(json!({"content": "still here"}))).await;
        assert_eq!(comment.status, 201, "{:?}", comment.body);
        let link = app.call("POST", &format!("/api/cards/{b}/relations"), Some(json!({"targetId": a, "kind": "RELATED"}))).await;
        assert_eq!(link.status, 201, "{:?}", link.body);
        let moved = app.call("PATCH", &format!("/api/cards/{b}"), Some(json!({"columnId": doing}))).await;
        assert_eq!(moved.status, 200, "{:?}", moved.body);
        assert_eq!(moved.body["archivedAt"], at.as_str());
        assert_eq!(on_board(&app).await, [a.clone(), c.clone()]);

        // Restore: at the end of its column (Doing now), no history entry.
        let d = id(&app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "d", "columnId": doing}))).await.body);
        let r = post(&app, &b, "restore").await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert!(r.body["archivedAt"].is_null());
        assert_eq!(app.column_ids(&doing).await, [d.clone(), b.clone()]);
        assert_eq!(history_len(&app, &b).await, 2, "the move, not the restore");
        let again = post(&app, &b, "restore").await;
        assert_eq!((again.status, &again.body), (200, &r.body));

        let frames = events.take(6, Duration::from_secs(5)).await;
        let kinds: Vec<&str> = frames.iter().map(|f| f.event.as_str()).collect();
        assert_eq!(
            kinds,
            ["card.archived", "comment.created", "relation.created", "card.moved", "card.created", "card.restored"]
        );
        assert_eq!(frames[0].data["subject"]["archivedAt"], at.as_str());
        assert!(frames[5].data["subject"]["archivedAt"].is_null());
        assert!(events.next(Duration::from_millis(400)).await.is_none(), "a repeat emits nothing");

        // 404 and roles.
        let unknown = cuid2::create_id();
        assert_eq!(post(&app, &unknown, "archive").await.status, 404);
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let r = app.call_as(&viewer, "POST", &format!("/api/cards/{a}/archive"), None).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        assert_eq!(on_board(&app).await.len(), 4);
    }

    async fn column_delete_takes_archived_cards_along(backend) {
        let app = common::spawn_app(backend).await;
        let columns = app.columns().await;
        let (todo, doing) = (id(&columns[0]), id(&columns[1]));
        let review = id(&app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Review"}))).await.body);
        let body = |t: &str, c: &str| Some(json!({"tenantId": app.tenant, "title": t, "columnId": c}));
        let kept = id(&app.call("POST", "/api/cards", body("kept", &review)).await.body);
        let parked = id(&app.call("POST", "/api/cards", body("parked", &review)).await.body);
        assert_eq!(post(&app, &parked, "archive").await.status, 200);
        let r = app.call("DELETE", &format!("/api/columns/{review}"), Some(json!({"cards": "MOVE", "targetColumnId": doing}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["cardsMoved"], 2, "{:?}", r.body);
        let got = app.call("GET", &format!("/api/cards/{parked}"), None).await.body;
        assert_eq!((got["columnId"].as_str(), got["archivedAt"].is_string()), (Some(doing.as_str()), true));
        assert_eq!(app.column_ids(&doing).await, [kept]);

        // DELETE takes it too.
        let gone = id(&app.call("POST", "/api/cards", body("gone", &todo)).await.body);
        assert_eq!(post(&app, &gone, "archive").await.status, 200);
        let other = id(&app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "name": "Other"}))).await.body);
        let moved = app.call("PATCH", &format!("/api/cards/{gone}"), Some(json!({"columnId": other}))).await;
        assert_eq!(moved.status, 200);
        let r = app.call("DELETE", &format!("/api/columns/{other}"), Some(json!({"cards": "DELETE", "confirm": "APAGAR CARDS"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(app.call("GET", &format!("/api/cards/{gone}"), None).await.status, 404);
    }

    async fn restore_outside_the_set_in_effect_goes_to_its_first_column(backend) {
        let app = common::spawn_app(backend).await;
        let pid = app.project(&app.tenant, "Proj").await;
        let card = app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "projectId": pid, "title": "p"}))).await.body;
        let cid = id(&card);
        assert_eq!(post(&app, &cid, "archive").await.status, 200);
        let backlog = app.call("POST", "/api/columns", Some(json!({"tenantId": app.tenant, "projectId": pid, "name": "Backlog"}))).await.body;
        app.settings(json!({"tenantId": app.tenant, "columnScope": "PROJECT"})).await;
        let r = post(&app, &cid, "restore").await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["columnId"], backlog["id"]);
        let h = app.call("GET", &format!("/api/cards/{cid}/history"), None).await.body;
        let h = h.as_array().unwrap();
        assert_eq!(h.len(), 2);
        assert_eq!((h[1]["fromName"].as_str(), h[1]["toName"].as_str()), (Some("To do"), Some("Backlog")));
    }

    async fn archived_cards_leave_the_wip_count(backend) {
        let app = common::spawn_app(backend).await;
        let doing = id(&app.columns().await[1]);
        app.settings(json!({"tenantId": app.tenant, "wipLimits": "HARD"})).await;
        let r = app.call("PATCH", &format!("/api/columns/{doing}"), Some(json!({"wipLimit": 1}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let body = |t: &str| Some(json!({"tenantId": app.tenant, "title": t, "columnId": doing}));
        let first = id(&app.call("POST", "/api/cards", body("first")).await.body);
        assert_eq!(app.call("POST", "/api/cards", body("second")).await.body["error"], "WIP_LIMIT");
        assert_eq!(post(&app, &first, "archive").await.status, 200);
        let second = app.call("POST", "/api/cards", body("second")).await;
        assert_eq!(second.status, 201, "an archived card does not count: {:?}", second.body);
        // Restoring into the full column is refused, and changes nothing.
        let r = post(&app, &first, "restore").await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("WIP_LIMIT")), "{:?}", r.body);
        let got = app.call("GET", &format!("/api/cards/{first}"), None).await.body;
        assert!(got["archivedAt"].is_string());
        assert_eq!(app.column_ids(&doing).await, [id(&second.body)]);
        // Moving an archived card into the full column adds nothing to it.
        let todo = id(&app.columns().await[0]);
        let parked = id(&app.call("POST", "/api/cards", Some(json!({"tenantId": app.tenant, "title": "p", "columnId": todo}))).await.body);
        assert_eq!(post(&app, &parked, "archive").await.status, 200);
        let r = app.call("PATCH", &format!("/api/cards/{parked}"), Some(json!({"columnId": doing}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let flow = app.call("GET", &format!("/api/flow?tenant={}", app.tenant), None).await.body;
        assert_eq!(flow["columns"][1]["wip"], 1, "{flow:?}");
    }

    async fn the_archived_list_pages_by_cursor(backend) {
        let app = common::spawn_app(backend).await;
        let pid = app.project(&app.tenant, "Proj").await;
        let mut all = Vec::new();
        for i in 0..7 {
            let mut body = json!({"tenantId": app.tenant, "title": format!("c{i}")});
            if i % 2 == 0 {
                body["projectId"] = json!(pid);
            }
            let c = id(&app.call("POST", "/api/cards", Some(body)).await.body);
            assert_eq!(post(&app, &c, "archive").await.status, 200);
            all.push(c);
        }
        app.card("on the board").await;
        all.reverse(); // most recently archived first
        assert_eq!(archived(&app, "", 3).await, all);
        assert_eq!(archived(&app, "", 200).await, all);
        let of_project: Vec<String> = all.iter().enumerate().filter(|(i, _)| i % 2 == 0).map(|(_, c)| c.clone()).collect();
        assert_eq!(archived(&app, &format!("&project={pid}"), 2).await, of_project);

        let base = format!("/api/cards?tenant={}", app.tenant);
        for (query, field) in [
            ("&archived=true&limit=0", "limit"),
            ("&archived=true&limit=201", "limit"),
            ("&archived=true&cursor=zz", "cursor"),
            ("&archived=maybe", "archived"),
        ] {
            let r = app.call("GET", &format!("{base}{query}"), None).await;
            assert_eq!(r.status, 422, "{query}: {:?}", r.body);
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{query}: {:?}", r.body);
        }
        let r = app.call("GET", "/api/cards?archived=true", None).await;
        assert_eq!(r.status, 422);
        let r = app.call("GET", &format!("{base}&archived=true&project={}", cuid2::create_id()), None).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
        let outsider = app.workspace("Elsewhere").await;
        let stranger = app.account_in(&outsider, "sam", "member").await;
        let r = app.call_as(&stranger, "GET", &format!("{base}&archived=true&limit=0"), None).await;
        assert_eq!(r.status, 403, "403 before 422: {:?}", r.body);
    }

    async fn paging_while_others_archive_and_restore(backend) {
        // Pages read while other cards are archived and restored concurrently:
        // every card archived before the first page and never restored is
        // listed exactly once.
        let app = Arc::new(common::spawn_app(backend).await);
        let mut before = Vec::new();
        for i in 0..40 {
            let c = id(&app.card(&format!("old{i}")).await);
            assert_eq!(post(&app, &c, "archive").await.status, 200);
            before.push(c);
        }
        // Churn: some old ones are restored and archived again, new ones archived.
        let churned: Vec<String> = before.iter().step_by(5).cloned().collect();
        let mut fresh = Vec::new();
        for i in 0..20 {
            fresh.push(id(&app.card(&format!("new{i}")).await));
        }
        let barrier = Arc::new(Barrier::new(2));
        let writer = {
            let (app, barrier, churned, fresh) = (app.clone(), barrier.clone(), churned.clone(), fresh.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                for (i, c) in fresh.iter().enumerate() {
                    assert_eq!(post(&app, c, "archive").await.status, 200);
                    if let Some(old) = churned.get(i) {
                        assert_eq!(post(&app, old, "restore").await.status, 200);
                        assert_eq!(post(&app, old, "archive").await.status, 200);
                    }
                }
            })
        };
        barrier.wait().await;
        let listed = archived(&app, "", 3).await;
        writer.await.expect("the writer");
        let unique: HashSet<&String> = listed.iter().collect();
        assert_eq!(unique.len(), listed.len(), "no card twice: {listed:?}");
        let stable: Vec<&String> = before.iter().filter(|c| !churned.contains(c)).collect();
        for c in &stable {
            assert!(unique.contains(c), "{c} was archived all along and is missing");
        }
        // In order: most recently archived first.
        let positions: Vec<usize> = stable.iter().rev().map(|c| listed.iter().position(|l| l == *c).unwrap()).collect();
        assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    }

    async fn restores_raced_into_a_hard_limited_column(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let doing = id(&app.columns().await[1]);
        let racers = app.cards_at_end(&doing, &testkit::order::numbered("racer", 8)).await;
        for c in &racers {
            assert_eq!(post(&app, c, "archive").await.status, 200);
        }
        app.settings(json!({"tenantId": app.tenant, "wipLimits": "HARD"})).await;
        let r = app.call("PATCH", &format!("/api/columns/{doing}"), Some(json!({"wipLimit": 3}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let barrier = Arc::new(Barrier::new(racers.len()));
        let tasks: Vec<_> = racers.iter().cloned().map(|c| {
            let (app, barrier) = (app.clone(), barrier.clone());
            tokio::spawn(async move {
                barrier.wait().await;
                post(&app, &c, "restore").await
            })
        }).collect();
        let mut answers = Vec::new();
        for t in tasks {
            let r = t.await.expect("a racer");
            answers.push((r.status, r.body["error"].as_str().unwrap_or_default().to_string()));
        }
        let held = app.column_ids(&doing).await.len();
        assert!(held <= 3, "{held} cards in a column limited to 3: {answers:?}");
        let accepted = answers.iter().filter(|(s, _)| *s == 200).count();
        assert_eq!(accepted, 3, "{answers:?}");
        assert!(answers.iter().all(|a| a.0 == 200 || a == &(422, "WIP_LIMIT".to_string())), "{answers:?}");
    }
}
