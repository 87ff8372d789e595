//! Notifications (api.md §26): who hears what, watching a card, the inbox,
//! the private `notification.created` event and due reminders.

use std::time::Duration;

use serde_json::{json, Value};
use testkit::sse::EventStream;
use testkit::{self as common, on_both_backends};

const WAIT: Duration = Duration::from_secs(5);

/// The caller's inbox: (kind, actor's name or "", excerpt or "") newest first.
async fn inbox(app: &common::App, token: &str) -> Vec<(String, String, String)> {
    let r = app.call_as(token, "GET", "/api/notifications", None).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| {
            let text = |v: &Value| v.as_str().unwrap_or("").to_string();
            (
                text(&n["kind"]),
                text(&n["actor"]["name"]),
                text(&n["excerpt"]),
            )
        })
        .collect()
}

/// The kinds of the caller's inbox, newest first.
async fn kinds(app: &common::App, token: &str) -> Vec<String> {
    inbox(app, token)
        .await
        .into_iter()
        .map(|(k, _, _)| k)
        .collect()
}

async fn unread(app: &common::App, token: &str) -> i64 {
    let r = app
        .call_as(token, "GET", "/api/notifications/count", None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    r.body["unread"].as_i64().unwrap()
}

async fn comment(app: &common::App, token: &str, card: &str, text: &str) -> Value {
    let path = format!("/api/cards/{card}/comments");
    let r = app
        .call_as(token, "POST", &path, Some(json!({"content": text})))
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    r.body
}

/// The number of rows of `sql` (a `SELECT COUNT(*)`) in the app's database.
pub(crate) async fn count(app: &common::App, sql: &str) -> i64 {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    n
}

on_both_backends! {
    async fn comments_tell_those_named_and_the_watchers_once(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "member").await;
        let bob = app.account_in(&t, "bob", "member").await;
        let bob_smith = app.account_in(&t, "Bob Smith", "member").await;
        let cara = app.account_in(&t, "cara", "viewer").await;
        let other = app.workspace("Other").await;
        let outsider = app.account_in(&other, "dan", "member").await;
        // The admin creates the card: a watcher.
        let card = app.card("Ship it").await;
        let id = card["id"].as_str().unwrap().to_string();

        // The longest member name wins; code names nobody; nor does a
        // non-member; the author hears nothing of their own comment.
        comment(&app, &ann, &id, "hi @bob smith, see `@cara` and @dan and @ann").await;
        // The excerpt is plain text: no Markdown syntax.
        assert_eq!(inbox(&app, &bob_smith).await, vec![("mentioned".into(), "ann".into(),
            "hi @bob smith, see @cara and @dan and @ann".into())]);
        assert!(kinds(&app, &bob).await.is_empty(), "the shorter name is not named");
        assert!(kinds(&app, &cara).await.is_empty(), "code names nobody");
        assert!(kinds(&app, &outsider).await.is_empty(), "not a member");
        assert!(kinds(&app, &ann).await.is_empty(), "never the actor");
        assert_eq!(kinds(&app, &app.token).await, vec!["commented"], "the creator watches");

        // A viewer may watch; the card says so to that reader alone.
        let path = format!("/api/cards/{id}/watch");
        let r = app.call_as(&cara, "PUT", &path, None).await;
        assert_eq!((r.status, &r.body["watching"]), (200, &json!(true)), "{:?}", r.body);
        assert_eq!(app.call_as(&cara, "PUT", &path, None).await.status, 200, "idempotent");
        let mine = app.call_as(&cara, "GET", &format!("/api/cards/{id}"), None).await;
        let theirs = app.call_as(&bob, "GET", &format!("/api/cards/{id}"), None).await;
        assert_eq!((&mine.body["watching"], &theirs.body["watching"]), (&json!(true), &json!(false)));
        // The creator stops watching.
        let r = app.call("DELETE", &path, None).await;
        assert_eq!((r.status, &r.body["watching"]), (200, &json!(false)));

        // Mentioned beats commented: one notification per account and change.
        comment(&app, &ann, &id, "@cara: done").await;
        assert_eq!(kinds(&app, &cara).await, vec!["mentioned"]);
        comment(&app, &bob, &id, "ok").await;
        assert_eq!(kinds(&app, &cara).await, vec!["commented", "mentioned"]);
        assert_eq!(kinds(&app, &ann).await, vec!["commented"], "a commenter watches");
        assert_eq!(kinds(&app, &app.token).await, vec!["commented"], "no longer watching");

        // An edit tells only the names it adds.
        let first = app.call("GET", &format!("/api/cards/{id}/comments"), None).await.body[0]["id"]
            .as_str().unwrap().to_string();
        let edit = json!({"content": "hi @bob smith and @bob"});
        let r = app.call_as(&ann, "PATCH", &format!("/api/comments/{first}"), Some(edit)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(kinds(&app, &bob_smith).await, vec!["mentioned"], "named before");
        assert_eq!(kinds(&app, &bob).await, vec!["mentioned"]);

        // Moves tell the watchers, naming both columns.
        let cols = app.columns().await;
        let r = app.call_as(&bob, "PATCH", &format!("/api/cards/{id}"), Some(json!({"columnId": cols[1]["id"]}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(inbox(&app, &cara).await[0], ("moved".into(), "bob".into(), "To do → Doing".into()));
        assert_eq!(kinds(&app, &bob).await, vec!["mentioned"], "never the actor");

        // Assigned beats moved; the account just assigned hears of it.
        let r = app.call_as(&bob, "PUT", &format!("/api/cards/{id}/assignees/{}", account(&app, "Bob Smith").await), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(kinds(&app, &bob_smith).await, vec!["assigned", "mentioned"]);
        assert_eq!(unread(&app, &bob_smith).await, 2);
    }

    async fn a_comment_tells_each_kind_of_watcher_but_its_author(backend) {
        // Whether anyone but the author watches is read with the card: each
        // kind of watcher alone must be told (no notification statement runs
        // only when nobody but the author watches).
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "member").await;
        let bob = app.account_in(&t, "bob", "member").await;
        let cara = app.account_in(&t, "cara", "viewer").await;
        let dan = app.account_in(&t, "dan", "member").await;
        let r = app.call_as(&ann, "POST", "/api/cards", Some(json!({"tenantId": t, "title": "Mine"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let id = r.body["id"].as_str().unwrap().to_string();
        let told = "SELECT COUNT(*) FROM notifications";

        comment(&app, &ann, &id, "a note to self").await;
        assert_eq!(count(&app, told).await, 0, "nobody but the author watches");
        let cols = app.columns().await;
        let card = format!("/api/cards/{id}");
        let r = app.call_as(&ann, "PATCH", &card, Some(json!({"columnId": cols[1]["id"]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(count(&app, told).await, 0, "a move nobody else watches");
        comment(&app, &ann, &id, "still mine, @bob").await;
        assert_eq!(kinds(&app, &bob).await, vec!["mentioned"], "a mention without watchers");

        // A chosen watch.
        let watch = format!("/api/cards/{id}/watch");
        assert_eq!(app.call_as(&cara, "PUT", &watch, None).await.status, 200);
        comment(&app, &ann, &id, "one").await;
        assert_eq!(kinds(&app, &cara).await, vec!["commented"], "a chosen watch");
        assert_eq!(app.call_as(&cara, "DELETE", &watch, None).await.status, 200);

        // An assignee.
        let path = format!("/api/cards/{id}/assignees/{}", account(&app, "dan").await);
        assert_eq!(app.call_as(&ann, "PUT", &path, None).await.status, 200);
        comment(&app, &ann, &id, "two").await;
        assert_eq!(kinds(&app, &dan).await, vec!["commented", "assigned"], "an assignee");
        assert_eq!(app.call_as(&ann, "DELETE", &path, None).await.status, 200);

        // Another commenter; and the creator, told of that comment.
        comment(&app, &bob, &id, "three").await;
        assert_eq!(kinds(&app, &ann).await, vec!["commented"], "the creator");
        comment(&app, &ann, &id, "four").await;
        assert_eq!(kinds(&app, &bob).await, vec!["commented", "mentioned"], "a commenter");
        assert_eq!(kinds(&app, &cara).await, vec!["commented"], "no longer watching");
        assert_eq!(kinds(&app, &dan).await, vec!["commented", "assigned"], "no longer assigned");
        let r = app.call_as(&ann, "PATCH", &card, Some(json!({"columnId": cols[0]["id"]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(kinds(&app, &bob).await[0], "moved", "a move, watched");
        assert_eq!(kinds(&app, &cara).await, vec!["commented"], "a move, not watched by cara");
    }

    async fn the_inbox_pages_marks_read_and_leaves_lost_workspaces_out(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "member").await;
        let card = app.card("Paged").await;
        let id = card["id"].as_str().unwrap().to_string();
        for i in 0..5 {
            comment(&app, &ann, &id, &format!("note {i}")).await;
        }
        assert_eq!(unread(&app, &app.token).await, 5);
        let r = app.call("GET", "/api/notifications?limit=2", None).await;
        let page = r.body["items"].as_array().unwrap().clone();
        assert_eq!(page[0]["excerpt"], "note 4", "newest first");
        assert_eq!(page[0]["card"]["title"], "Paged");
        assert_eq!(page[0]["tenantId"], t.as_str());
        let mut seen: Vec<Value> = page.iter().map(|n| n["id"].clone()).collect();
        let mut cursor = r.body["nextCursor"].as_str().unwrap().to_string();
        loop {
            let r = app.call("GET", &format!("/api/notifications?limit=2&cursor={cursor}"), None).await;
            seen.extend(r.body["items"].as_array().unwrap().iter().map(|n| n["id"].clone()));
            match r.body["nextCursor"].as_str() {
                Some(c) => cursor = c.to_string(),
                None => break,
            }
        }
        assert_eq!(seen.len(), 5, "each once");

        // Read by ids: another's ids are ignored, never revealed.
        let other = app.account_in(&t, "other", "member").await;
        let ids = json!({"ids": [seen[0], seen[1]]});
        let r = app.call_as(&other, "POST", "/api/notifications/read", Some(ids.clone())).await;
        assert_eq!((r.status, &r.body), (200, &json!({"read": 0})));
        let r = app.call("POST", "/api/notifications/read", Some(ids.clone())).await;
        assert_eq!((r.status, &r.body), (200, &json!({"read": 2})));
        let r = app.call("POST", "/api/notifications/read", Some(ids)).await;
        assert_eq!(r.body, json!({"read": 0}), "read already");
        let unread_only = app.call("GET", "/api/notifications?unread=true", None).await;
        assert_eq!(unread_only.body["items"].as_array().unwrap().len(), 3);
        assert!(unread_only.body["items"][0]["readAt"].is_null());
        let too_many: Vec<String> = (0..501).map(|_| cuid2::create_id()).collect();
        let r = app.call("POST", "/api/notifications/read", Some(json!({"ids": too_many}))).await;
        assert_eq!(r.status, 422);
        assert_eq!(app.call("POST", "/api/notifications/read", Some(json!({}))).await.status, 422);
        assert_eq!(app.call("GET", "/api/notifications?unread=maybe", None).await.status, 422);
        let r = app.call("POST", "/api/notifications/read", Some(json!({"all": true}))).await;
        assert_eq!(r.body, json!({"read": 3}));
        assert_eq!(unread(&app, &app.token).await, 0);

        // A workspace the account lost leaves its inbox.
        comment(&app, &app.token, &id, "for ann").await;
        assert_eq!(unread(&app, &ann).await, 1);
        let ann_id = account(&app, "ann").await;
        let r = app.call("DELETE", &format!("/api/members/{ann_id}?tenant={t}"), None).await;
        assert!(r.status < 300, "{:?}", r.body);
        assert_eq!(unread(&app, &ann).await, 0);
        assert!(kinds(&app, &ann).await.is_empty());
    }

    async fn a_notification_streams_to_its_account_alone(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "member").await;
        let bob = app.account_in(&t, "bob", "member").await;
        let other = app.workspace("Other").await;
        app.member(&other, "ann", "viewer").await;
        let card = app.card("Streamed").await;
        let id = card["id"].as_str().unwrap().to_string();
        let mut anns = EventStream::open(&app.http, &app.base, &ann, &format!("/api/events?tenant={t}"), None).await;
        let mut anns_other = EventStream::open(&app.http, &app.base, &ann, &format!("/api/events?tenant={other}"), None).await;
        let mut bobs = EventStream::open(&app.http, &app.base, &bob, &format!("/api/events?tenant={t}"), None).await;
        comment(&app, &bob, &id, "@ann look").await;
        let mut got = anns.take(2, WAIT).await;
        got.sort_by_key(|f| f.event.clone());
        assert_eq!(got[1].event, "notification.created", "{got:?}");
        assert_eq!(got[1].data["subject"]["kind"], "mentioned");
        assert_eq!(got[1].data["subject"]["actor"]["name"], "bob");
        assert_eq!(got[1].data["subject"]["card"]["id"], id.as_str());
        assert_eq!(got[1].data["tenantId"], t.as_str());
        // The inbox shows the same notification as the event.
        let listed = app.call_as(&ann, "GET", "/api/notifications", None).await.body["items"][0].clone();
        assert_eq!(got[1].data["subject"], listed);
        // On every stream of that account, none of anyone else's.
        let there = anns_other.next(WAIT).await.expect("on the other workspace's stream too");
        assert_eq!(there.event, "notification.created");
        let theirs = bobs.take(1, WAIT).await;
        assert_eq!(theirs[0].event, "comment.created");
        assert!(bobs.next(Duration::from_millis(500)).await.is_none(), "not bob's");
        // A resume replays it in its place.
        let before = got.iter().map(|f| f.id.unwrap()).min().unwrap() - 1;
        let mut again = EventStream::open(&app.http, &app.base, &ann, &format!("/api/events?tenant={t}"), Some(&before.to_string())).await;
        let replayed = again.take(2, WAIT).await;
        assert!(replayed.iter().any(|f| f.event == "notification.created"), "{replayed:?}");
        // Not a webhook event.
        let hook = json!({"tenantId": t, "url": "https://example.com/h", "events": ["notification.created"]});
        assert_eq!(app.call("POST", "/api/webhooks", Some(hook)).await.status, 422);
    }

    async fn due_reminders_go_once_per_due_time(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let ann = app.account_in(&t, "ann", "member").await;
        let ann_id = account(&app, "ann").await;
        let soon = |hours: i64| (chrono_like_now() + hours * 3_600_000).to_string();
        let body = json!({"tenantId": t, "title": "Due", "dueAt": iso(soon(2)), "assigneeIds": [ann_id]});
        let r = app.call("POST", "/api/cards", Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let id = r.body["id"].as_str().unwrap().to_string();
        assert_eq!(kinds(&app, &ann).await, vec!["assigned"]);
        let far = json!({"tenantId": t, "title": "Later", "dueAt": iso(soon(48))});
        assert_eq!(app.call("POST", "/api/cards", Some(far)).await.status, 201);
        let admin = app.operator().admin();
        let day = Duration::from_secs(24 * 3600);
        // Several sweeps at once (as several servers would): one reminder.
        let sweeps: Vec<_> = (0..6)
            .map(|_| {
                let board = app.operator().clone();
                tokio::spawn(async move { board.admin().remind_due(day).await.unwrap() })
            })
            .collect();
        let mut claimed = 0;
        for s in sweeps {
            claimed += s.await.unwrap();
        }
        assert_eq!(claimed, 1);
        assert_eq!(inbox(&app, &ann).await[0].0, "due_soon");
        assert_eq!(admin.remind_due(day).await.unwrap(), 0, "once per due time");
        // The creator set the date, yet time caused the reminder: the actor is null.
        let listed = app.call_as(&ann, "GET", "/api/notifications", None).await.body["items"][0].clone();
        assert!(listed["actor"].is_null(), "{listed:?}");
        // A new due time, an earlier one too, arms it again.
        let r = app.call("PATCH", &format!("/api/cards/{id}"), Some(json!({"dueAt": iso(soon(1))}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(admin.remind_due(day).await.unwrap(), 1);
        assert_eq!(kinds(&app, &ann).await, vec!["due_soon", "due_soon", "assigned"]);
        // In the done column: no reminder.
        let cols = app.columns().await;
        app.call("PATCH", &format!("/api/cards/{id}"), Some(json!({"dueAt": iso(soon(3)), "columnId": cols[2]["id"]}))).await;
        assert_eq!(admin.remind_due(day).await.unwrap(), 0);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM notifications WHERE kind = 'due_soon'").await, 2);
    }

    async fn without_mail_the_api_says_so(backend) {
        let app = common::spawn_app(backend).await;
        let me = app.call("GET", "/api/me", None).await;
        assert_eq!((&me.body["mail"], &me.body["email"]), (&json!(false), &Value::Null));
        let r = app.call("PATCH", "/api/me", Some(json!({"email": "a@example.com"}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("MAIL_DISABLED")), "{:?}", r.body);
    }
}

/// The id of the account `name`.
async fn account(app: &common::App, name: &str) -> String {
    app.operator()
        .admin()
        .find_account(name)
        .await
        .unwrap()
        .id
        .to_string()
}

/// Milliseconds since the epoch, now.
fn chrono_like_now() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// `millis` (as text) as an RFC 3339 time.
fn iso(millis: String) -> String {
    board_core::Timestamp::from_millis(millis.parse().unwrap()).to_string()
}
