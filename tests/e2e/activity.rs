//! Activity over HTTP (api.md §29): a card's changes and a workspace's feed, newest first,
//! each with a sentence; paging by cursor; who may read it (a reader who lost access, a
//! foreign card); and retention.

use std::time::Duration;

use crate::uploads::{png, upload};
use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// Every page of `path` (which has a `?`), `limit` items a page, newest first.
async fn all_pages(app: &common::App, token: &str, path: &str, limit: u16) -> Vec<Value> {
    let mut items = Vec::new();
    let mut cursor: Option<String> = None;
    loop {
        let mut url = format!("{path}&limit={limit}");
        if let Some(c) = &cursor {
            url.push_str(&format!("&cursor={c}"));
        }
        let r = app.call_as(token, "GET", &url, None).await;
        assert_eq!(r.status, 200, "{url}: {:?}", r.body);
        let page = r.body["items"].as_array().expect("items").clone();
        assert!(page.len() <= usize::from(limit));
        items.extend(page);
        match r.body["nextCursor"].as_str() {
            Some(c) => cursor = Some(c.to_string()),
            None => return items,
        }
    }
}

/// The summaries of a card's whole activity, newest first.
async fn summaries(app: &common::App, card: &str) -> Vec<String> {
    let r = app
        .call("GET", &format!("/api/cards/{card}/activity"), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["items"]
        .as_array()
        .expect("items")
        .iter()
        .map(|i| i["summary"].as_str().expect("summary").to_string())
        .collect()
}

on_both_backends! {
    async fn a_cards_activity_reads_every_change_as_a_sentence(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let cols = app.columns().await;
        let card = id(&app.card("Fix login").await);
        let other = id(&app.card("Write docs").await);
        let path = format!("/api/cards/{card}");
        let ok = |r: common::Res| assert!(r.status < 300, "{:?}", r.body);
        ok(app.call("PATCH", &path, Some(json!({"title": "Fix the login"}))).await);
        ok(app.call("PATCH", &path, Some(json!({"columnId": id(&cols[2])}))).await);
        let label = app.call("POST", "/api/labels", Some(json!({"tenantId": t, "name": "Bug"}))).await;
        ok(app.call("PUT", &format!("{path}/labels/{}", id(&label.body)), None).await);
        ok(app.call("POST", &format!("{path}/comments"), Some(json!({"content": "On it"}))).await);
        let item = app.call("POST", &format!("{path}/checklist"), Some(json!({"text": "Write tests"}))).await;
        ok(app.call("PATCH", &format!("/api/checklist/{}", id(&item.body)), Some(json!({"done": true}))).await);
        let r = upload(&app, &app.token, &format!("{path}/attachments"), &[("files", "shot.png", png())]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let link = app.call("POST", &format!("{path}/relations"), Some(json!({"targetId": other, "kind": "BLOCKS"}))).await;
        ok(link);

        let got = summaries(&app, &card).await;
        assert_eq!(got, [
            "marked the card as blocking “Write docs”",
            "attached “shot.png”",
            "checked “Write tests”",
            "added “Write tests” to the checklist",
            "commented",
            "added the label “Bug”",
            "moved the card from “To do” to “Done”",
            "renamed the card to “Fix the login”",
            "created the card in “To do”",
        ], "{got:#?}");
        // The link is the other card's activity too, seen from there.
        assert_eq!(summaries(&app, &other).await[0], "marked “Fix the login” as blocking the card");

        let r = app.call("GET", &format!("{path}/activity"), None).await;
        let first = &r.body["items"][0];
        assert_eq!(first["type"], "relation.created");
        assert!(first["seq"].is_i64() && first["at"].is_string(), "{first}");
        assert!(first["actor"]["id"].is_string() && first["actor"]["name"].is_string(), "{first}");
        assert_eq!(r.body["nextCursor"], Value::Null);

        // The workspace's feed names the card; a project's has only its cards.
        let feed = all_pages(&app, &app.token, &format!("/api/activity?tenant={t}"), 200).await;
        let feed: Vec<&str> = feed.iter().map(|i| i["summary"].as_str().unwrap()).collect();
        assert!(feed.contains(&"checked “Write tests” on “Fix the login”"), "{feed:#?}");
        assert!(feed.contains(&"added the label “Bug”"), "the label's creation: {feed:#?}");
        let project = app.project(&t, "Side").await;
        let side = app.call("POST", "/api/cards", Some(json!({"tenantId": t, "title": "Aside", "projectId": project}))).await;
        assert_eq!(side.status, 201, "{:?}", side.body);
        let r = app.call("GET", &format!("/api/activity?tenant={t}&project={project}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let items = r.body["items"].as_array().unwrap();
        assert_eq!(items.len(), 1, "{items:?}");
        assert_eq!(items[0]["summary"], "created “Aside” in “To do”");
    }

    async fn deletions_of_a_cards_parts_stay_in_its_activity(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Parts").await);
        let other = id(&app.card("Other").await);
        let path = format!("/api/cards/{card}");
        let comment = app.call("POST", &format!("{path}/comments"), Some(json!({"content": "x"}))).await.body;
        let link = app.call("POST", &format!("{path}/relations"), Some(json!({"targetId": other, "kind": "RELATED"}))).await.body;
        assert_eq!(app.call("DELETE", &format!("/api/comments/{}", id(&comment)), None).await.status, 200);
        assert_eq!(app.call("DELETE", &format!("/api/relations/{}", id(&link)), None).await.status, 200);
        let got = summaries(&app, &card).await;
        assert_eq!(&got[..2], [
            "removed the link between the card and “Other”",
            "deleted a comment",
        ], "{got:#?}");
        assert_eq!(summaries(&app, &other).await[0], "removed the link between “Parts” and the card");
    }

    async fn activity_pages_by_cursor_each_item_once(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Busy").await);
        for n in 0..11 {
            let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(json!({"title": format!("Busy {n}")}))).await;
            assert_eq!(r.status, 200);
        }
        let items = all_pages(&app, &app.token, &format!("/api/cards/{card}/activity?"), 5).await;
        assert_eq!(items.len(), 12);
        let seqs: Vec<i64> = items.iter().map(|i| i["seq"].as_i64().unwrap()).collect();
        assert!(seqs.windows(2).all(|w| w[0] > w[1]), "newest first, once each: {seqs:?}");
        // Each rename reads against the state before it, across pages too.
        for (n, item) in items[..11].iter().enumerate() {
            assert_eq!(item["summary"], format!("renamed the card to “Busy {}”", 10 - n));
        }
        for bad in ["limit=0", "limit=201", "cursor=zz", "cursor=00"] {
            let r = app.call("GET", &format!("/api/cards/{card}/activity?{bad}"), None).await;
            assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
        }
        let t = &app.tenant;
        let r = app.call("GET", "/api/activity", None).await;
        assert_eq!(r.status, 422, "tenant is required");
        let r = app.call("GET", &format!("/api/activity?tenant={t}&project=nope"), None).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
    }

    async fn who_may_read_activity(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let card = id(&app.card("Private").await);
        let viewer = app.account_in(&t, "Vera", "viewer").await;
        let r = app.call_as(&viewer, "GET", &format!("/api/cards/{card}/activity"), None).await;
        assert_eq!(r.status, 200, "a Viewer reads it");
        let r = app.call_as(&viewer, "GET", &format!("/api/activity?tenant={t}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);

        // A card of a workspace not reached is 403, as every read of it (api.md's order
        // of checks: 404 is for a card that does not exist), and so is that feed.
        let other = app.workspace("Elsewhere").await;
        let foreign = id(&app.card_in(&other, "Theirs").await);
        let r = app.call_as(&viewer, "GET", &format!("/api/cards/{foreign}/activity"), None).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        assert!(r.body.get("items").is_none());
        let r = app.call_as(&viewer, "GET", &format!("/api/activity?tenant={other}"), None).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        let r = app.call("GET", "/api/cards/ckv7q2x0a0000abcdefghijk/activity", None).await;
        assert_eq!(r.status, 404);
        let r = app.call_as("", "GET", &format!("/api/cards/{card}/activity"), None).await;
        assert_eq!(r.status, 401);

        // A reader removed from the workspace reads neither any more.
        let me = app.call_as(&viewer, "GET", "/api/me", None).await.body;
        let vera = me["id"].as_str().or(me["account"]["id"].as_str()).expect("my id").to_string();
        let r = app.call("DELETE", &format!("/api/members/{vera}?tenant={t}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = app.call_as(&viewer, "GET", &format!("/api/cards/{card}/activity"), None).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
        let r = app.call_as(&viewer, "GET", &format!("/api/activity?tenant={t}"), None).await;
        assert_eq!(r.status, 403, "{:?}", r.body);
    }

    async fn activity_outlives_the_resumable_events(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Old").await);
        let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(json!({"title": "Older"}))).await;
        assert_eq!(r.status, 200);
        let admin = app.operator().admin();
        // Past the events' retention: a stream resumes no more, the activity stays.
        admin.prune_events(Duration::ZERO, Duration::from_secs(3600)).await.unwrap();
        assert_eq!(summaries(&app, &card).await, ["renamed the card to “Older”", "created the card in “To do”"]);
        // Past the activity's, it goes (but for the newest event, which carries the head).
        admin.prune_events(Duration::ZERO, Duration::ZERO).await.unwrap();
        assert_eq!(summaries(&app, &card).await, ["updated the card"], "its previous state is gone");
    }
}

/// The card lookup is an index, not a scan of the events (SQLite's plan).
#[tokio::test]
async fn the_card_lookup_uses_its_indexes() {
    let app = common::spawn_app(common::Backend::Sqlite).await;
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let rows = sqlx::query(
        "EXPLAIN QUERY PLAN SELECT seq FROM events \
         WHERE (card_id = 'x' OR other_card_id = 'x') AND seq < 10 AND account_id IS NULL \
         ORDER BY seq DESC LIMIT 5",
    )
    .fetch_all(&pool)
    .await
    .expect("plan");
    let plan: Vec<String> = rows
        .iter()
        .map(|r| sqlx::Row::try_get::<String, _>(r, "detail").unwrap_or_default())
        .collect();
    pool.close().await;
    let text = plan.join("\n");
    assert!(
        text.contains("events_card") && text.contains("events_other_card"),
        "{text}"
    );
    assert!(!text.contains("SCAN events"), "{text}");
}

/// A server given less activity retention than events retention does not start, and says why.
#[tokio::test]
async fn a_shorter_activity_retention_is_refused_at_start() {
    let db = common::TestDb::new(common::Backend::Sqlite).await;
    let config = common::config(
        &db,
        &[
            ("BOARD_EVENTS_RETENTION", "2d"),
            ("BOARD_ACTIVITY_RETENTION", "1d"),
        ],
    );
    let Err(err) = board_server::Server::build(config).await else {
        panic!("a shorter activity retention was accepted");
    };
    let text = err.to_string();
    assert!(
        text.contains("--activity-retention") && text.contains("--events-retention"),
        "{text}"
    );
}
