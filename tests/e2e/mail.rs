//! E-mail (api.md §26): addresses and their verification, preferences,
//! batches sent through a real SMTP server (aiosmtpd, `.ci/smtp-server`),
//! unsubscribing, retries while the SMTP server is out of reach.

use std::time::Duration;

use crate::notifications::count;
use serde_json::{json, Value};
use testkit::mail::{self, header, wait_for, Relay};
use testkit::{self as common, on_both_backends, on_both_backends_with_mail};

const PUBLIC: &str = "http://board.example.test";

/// A server that sends mail through `smtp` (the test server when `None`).
async fn mail_app(backend: common::Backend, smtp: Option<&str>) -> common::App {
    let url = smtp.map_or_else(|| mail::smtp_url().unwrap(), str::to_string);
    common::spawn_app_with(
        backend,
        &[
            ("BOARD_SMTP_URL", &url),
            ("BOARD_MAIL_FROM", "Board <board@example.test>"),
            ("BOARD_PUBLIC_URL", PUBLIC),
            ("BOARD_MAIL_SCAN", "1s"),
        ],
    )
    .await
}

/// The account of `token`, given a verified address of its own (by the
/// operator, `board account email --verified`); returns the address.
async fn verified(app: &common::App, token: &str, who: &str) -> String {
    let me = app.call_as(token, "GET", "/api/me", None).await.body;
    let id = board_core::AccountId::parse(me["id"].as_str().unwrap()).unwrap();
    let to = mail::address(who);
    app.operator()
        .admin()
        .set_email(&id, &to, true)
        .await
        .unwrap();
    to
}

/// The code of the link `<PUBLIC>/<page>#<code>` in a message's text.
fn code_in(message: &Value, page: &str) -> String {
    let text = message["text"].as_str().unwrap();
    let start =
        text.find(&format!("{PUBLIC}/{page}#")).expect("the link") + PUBLIC.len() + page.len() + 2;
    text[start..].split_whitespace().next().unwrap().to_string()
}

async fn sql(app: &common::App, statement: &str) {
    sqlx::any::install_default_drivers();
    let pool = sqlx::AnyPool::connect(&app.db.url).await.expect("connect");
    sqlx::query(sqlx::AssertSqlSafe(statement.to_string()))
        .execute(&pool)
        .await
        .unwrap();
    pool.close().await;
}

on_both_backends! {
    // The hourly sweep removes finished batches after a year and codes a
    // day after they expired; open batches and live codes stay.
    async fn the_sweep_prunes_old_batches_and_spent_codes(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let me = "(SELECT id FROM accounts WHERE name = 'admin')";
        let old = "2000-01-01T00:00:00.000Z";
        let soon = "2999-01-01T00:00:00.000Z";
        let day_ago = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64 - 86_400_000;
        let recent = board_core::Timestamp::from_millis(day_ago);
        for (id, state, finished) in [("b1", "sent", Some(old)), ("b2", "failed", Some(old)), ("b3", "skipped", Some(recent.as_str())), ("b4", "open", None), ("b5", "sent", Some(recent.as_str()))] {
            let finished = finished.map_or("NULL".to_string(), |f| format!("'{f}'"));
            sql(&app, &format!("INSERT INTO mail_batches (id, account_id, workspace_id, state, opened_at, due_at, finished_at) \
                VALUES ('{id}', {me}, '{t}', '{state}', '{old}', '{old}', {finished})")).await;
        }
        for (id, expires) in [("v1", old), ("v2", soon)] {
            sql(&app, &format!("INSERT INTO email_verifications (id, account_id, email, code_hash, created_at, expires_at) \
                VALUES ('{id}', {me}, 'a@example.test', 'h{id}', '{old}', '{expires}')")).await;
            sql(&app, &format!("INSERT INTO password_resets (id, account_id, code_hash, created_at, expires_at) \
                VALUES ('{id}', {me}, 'h{id}', '{old}', '{expires}')")).await;
        }
        let pruned = app.operator().admin().prune_mail().await.unwrap();
        assert_eq!(pruned, board_core::MailPruned { batches: 2, verifications: 1, resets: 1 });
        assert_eq!(count(&app, "SELECT COUNT(*) FROM mail_batches WHERE id IN ('b3', 'b4', 'b5')").await, 3);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM mail_batches").await, 3);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM email_verifications WHERE id = 'v2'").await, 1);
        assert_eq!(count(&app, "SELECT COUNT(*) FROM password_resets WHERE id IN ('v1', 'v2')").await, 1, "the expired one went");
        assert_eq!(app.operator().admin().prune_mail().await.unwrap(), board_core::MailPruned::default());
    }

    async fn without_smtp_there_is_no_mail_but_preferences_keep(backend) {
        let app = common::spawn_app(backend).await;
        let ann = app.account_in(&app.tenant, "ann", "member").await;
        let me = app.call_as(&ann, "GET", "/api/me", None).await.body;
        assert_eq!((me["mail"].clone(), me["email"].clone(), me["emailVerified"].clone()), (json!(false), Value::Null, json!(false)));
        let r = app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": "ann@example.test"}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("MAIL_DISABLED")), "{:?}", r.body);
        let r = app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": null}))).await;
        assert_eq!(r.body["error"], "MAIL_DISABLED");

        let r = app.call_as(&ann, "GET", "/api/me/notifications", None).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body, json!({"email": {"assigned": true, "mentioned": true, "commented": false, "moved": false, "due_soon": true}, "batchMinutes": 5}));
        let r = app.call_as(&ann, "PATCH", "/api/me/notifications", Some(json!({"email": {"moved": true, "assigned": false}, "batchMinutes": 0}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, json!({"email": {"assigned": false, "mentioned": true, "commented": false, "moved": true, "due_soon": true}, "batchMinutes": 0}));
        let r = app.call_as(&ann, "PATCH", "/api/me/notifications", Some(json!({"batchMinutes": 1440}))).await;
        assert_eq!(r.body["email"]["moved"], true, "a partial patch keeps the rest");
        assert_eq!(r.body["batchMinutes"], 1440);
        for bad in [json!({"batchMinutes": 1441}), json!({"email": {"liked": true}}), json!({"email": {"moved": "yes"}})] {
            let r = app.call_as(&ann, "PATCH", "/api/me/notifications", Some(bad.clone())).await;
            assert_eq!(r.status, 422, "{bad}: {:?}", r.body);
        }
        assert_eq!(app.call_as(&ann, "GET", "/api/me/notifications", None).await.body["batchMinutes"], 1440);
        let r = app.call_as(&ann, "GET", "/api/me/notifications", None).await;
        assert_eq!(r.status, 200);
        // Unknown and malformed codes: 404, whatever the mail setting.
        let r = app.call_as("", "POST", "/api/email/verify", Some(json!({"code": "0123"}))).await;
        assert_eq!(r.status, 404, "{:?}", r.body);
        let r = app.call_as("", "GET", "/api/mail/unsubscribe?token=nope", None).await;
        assert_eq!(r.status, 404);
    }
}

on_both_backends_with_mail! {
    async fn a_new_address_is_verified_once_by_its_link(backend) {
        let app = mail_app(backend, None).await;
        let ann = app.account_in(&app.tenant, "ann", "member").await;
        let to = mail::address("ann");
        let r = app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": to}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((r.body["email"].as_str(), r.body["emailVerified"].as_bool(), r.body["mail"].as_bool()), (Some(to.as_str()), Some(false), Some(true)));
        let got = wait_for(&to, 1, Duration::from_secs(10)).await;
        assert_eq!(header(&got[0], "Subject"), Some("board: verify your e-mail address"));
        let code = code_in(&got[0], "verify");

        let r = app.call_as("", "POST", "/api/email/verify", Some(json!({"code": code}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body, json!({"email": to, "emailVerified": true}));
        let r = app.call_as("", "POST", "/api/email/verify", Some(json!({"code": code}))).await;
        assert_eq!(r.status, 404, "a code serves once");
        let me = app.call_as(&ann, "GET", "/api/me", None).await.body;
        assert_eq!(me["emailVerified"], true);

        // The same address again sends nothing; a bad one is 422; null removes it.
        let r = app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": to}))).await;
        assert_eq!(r.body["emailVerified"], true);
        let r = app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": "not an address"}))).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
        // A second address: its code does not verify once the address changed again.
        let other = mail::address("ann2");
        app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": other}))).await;
        let got = wait_for(&other, 1, Duration::from_secs(10)).await;
        let stale = code_in(&got[0], "verify");
        let r = app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": null}))).await;
        assert_eq!((r.body["email"].clone(), r.body["emailVerified"].clone()), (Value::Null, json!(false)));
        let r = app.call_as("", "POST", "/api/email/verify", Some(json!({"code": stale}))).await;
        assert_eq!(r.status, 404);
        // An expired code: 404.
        app.call_as(&ann, "PATCH", "/api/me", Some(json!({"email": other}))).await;
        let got = wait_for(&other, 2, Duration::from_secs(10)).await;
        let late = code_in(&got[1], "verify");
        sql(&app, "UPDATE email_verifications SET expires_at = '2000-01-01T00:00:00.000Z'").await;
        let r = app.call_as("", "POST", "/api/email/verify", Some(json!({"code": late}))).await;
        assert_eq!(r.status, 404);
        assert_eq!(mail::messages_to(&to).len(), 1, "one message per new address");
    }

    async fn notifications_go_out_batched_escaped_and_unsubscribable(backend) {
        let app = mail_app(backend, None).await;
        let t = app.tenant.clone();
        let bob = app.account_in(&t, "bob", "member").await;
        let to = verified(&app, &bob, "bob").await;
        let r = app.call_as(&bob, "PATCH", "/api/me/notifications", Some(json!({"batchMinutes": 0}))).await;
        assert_eq!(r.status, 200);
        let bob_id = app.call_as(&bob, "GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let card = app.card("<b>Ship</b> & \"go\"").await;
        let id = card["id"].as_str().unwrap();
        let r = app.call("PUT", &format!("/api/cards/{id}/assignees/{bob_id}"), None).await;
        assert!(r.status < 300, "{:?}", r.body);
        let got = wait_for(&to, 1, Duration::from_secs(10)).await;
        let m = &got[0];
        let subject = header(m, "Subject").unwrap();
        assert!(subject.contains("<b>Ship</b> & \"go\""), "{subject}");
        let html = m["html"].as_str().unwrap();
        assert!(html.contains("&lt;b&gt;Ship&lt;/b&gt; &amp; &quot;go&quot;"), "{html}");
        assert!(!html.contains("<b>Ship"), "{html}");
        let text = m["text"].as_str().unwrap();
        assert!(text.contains("assigned you to") && text.contains(&format!("{PUBLIC}/w/{t}/c/{id}")), "{text}");
        assert_eq!(header(m, "List-Unsubscribe-Post"), Some("List-Unsubscribe=One-Click"));
        let unsubscribe = header(m, "List-Unsubscribe").unwrap().trim_matches(['<', '>']).to_string();
        assert!(unsubscribe.starts_with(&format!("{PUBLIC}/api/mail/unsubscribe?token=")), "{unsubscribe}");
        let message_id = header(m, "Message-ID").unwrap().to_string();
        assert!(message_id.ends_with("@example.test>"), "{message_id}");

        // A comment on a card bob watches: `commented`, not wanted by default.
        let r = app.call("POST", &format!("/api/cards/{id}/comments"), Some(json!({"content": "hello"}))).await;
        assert_eq!(r.status, 201);
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert_eq!(mail::messages_to(&to).len(), 1, "an unwanted kind sends nothing");

        // The unsubscribe page changes nothing; its POST turns `assigned` off.
        let path = unsubscribe.trim_start_matches(PUBLIC).to_string();
        let page = reqwest::get(format!("{}{path}", app.base)).await.unwrap();
        assert_eq!(page.status(), 200);
        assert!(page.text().await.unwrap().contains("<form method=\"post\""));
        assert_eq!(app.call_as(&bob, "GET", "/api/me/notifications", None).await.body["email"]["assigned"], true);
        let done = reqwest::Client::new()
            .post(format!("{}{path}", app.base))
            .header("content-type", "application/x-www-form-urlencoded")
            .body("List-Unsubscribe=One-Click")
            .send()
            .await
            .unwrap();
        assert_eq!(done.status(), 200);
        let prefs = app.call_as(&bob, "GET", "/api/me/notifications", None).await.body;
        assert_eq!(prefs["email"], json!({"assigned": false, "mentioned": true, "commented": false, "moved": false, "due_soon": true}));

        // A mention: wanted; read in the app before its batch is due: nothing sent.
        let r = app.call_as(&bob, "PATCH", "/api/me/notifications", Some(json!({"batchMinutes": 60}))).await;
        assert_eq!(r.status, 200);
        app.call("POST", &format!("/api/cards/{id}/comments"), Some(json!({"content": "@bob look"}))).await;
        let r = app.call_as(&bob, "POST", "/api/notifications/read", Some(json!({"all": true}))).await;
        assert_eq!(r.status, 200);
        sql(&app, "UPDATE mail_batches SET due_at = '2000-01-01T00:00:00.000Z' WHERE state = 'open'").await;
        tokio::time::sleep(Duration::from_secs(4)).await;
        assert_eq!(mail::messages_to(&to).len(), 1, "a batch read meanwhile sends nothing");
        let log = app.operator().admin().mail_log(false, 10).await.unwrap();
        let states: Vec<&str> = log.iter().map(|e| e.state.as_str()).collect();
        assert!(states.contains(&"sent") && states.contains(&"skipped"), "{log:?}");
        // Another mention, unread: sent at its time, its text escaped (the
        // excerpt is plain text: a code span keeps its characters).
        app.call("POST", &format!("/api/cards/{id}/comments"), Some(json!({"content": "@bob `<i>now</i>`"}))).await;
        sql(&app, "UPDATE mail_batches SET due_at = '2000-01-01T00:00:00.000Z' WHERE state = 'open'").await;
        let got = wait_for(&to, 2, Duration::from_secs(10)).await;
        assert!(got[1]["text"].as_str().unwrap().contains("mentioned you on"));
        assert!(got[1]["html"].as_str().unwrap().contains("@bob &lt;i&gt;now&lt;/i&gt;"));
        assert_ne!(header(&got[1], "Message-ID"), Some(message_id.as_str()));
    }

    async fn mail_is_retried_while_the_smtp_server_is_out_of_reach(backend) {
        let relay = Relay::start(false).await;
        let app = mail_app(backend, Some(&relay.url)).await;
        let bob = app.account_in(&app.tenant, "bob", "member").await;
        let to = verified(&app, &bob, "bob").await;
        app.call_as(&bob, "PATCH", "/api/me/notifications", Some(json!({"batchMinutes": 0}))).await;
        let bob_id = app.call_as(&bob, "GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        let card = app.card("Down").await;
        app.call("PUT", &format!("/api/cards/{}/assignees/{bob_id}", card["id"].as_str().unwrap()), None).await;
        // Tried and refused: kept for a retry, nothing lost.
        let start = std::time::Instant::now();
        loop {
            let log = app.operator().admin().mail_log(false, 10).await.unwrap();
            if log.iter().any(|e| e.state == "retry" && e.attempts >= 1) {
                assert!(log[0].reply.as_deref().unwrap_or("").contains("SMTP server"), "{log:?}");
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(15), "no retry recorded: {log:?}");
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        assert!(mail::messages_to(&to).is_empty());
        relay.set_up(true);
        // The first retry comes within 30 s.
        let got = wait_for(&to, 1, Duration::from_secs(30)).await;
        assert!(got[0]["text"].as_str().unwrap().contains("assigned you to"));
        // Its state follows the SMTP server's answer.
        let start = std::time::Instant::now();
        let log = loop {
            let log = app.operator().admin().mail_log(false, 10).await.unwrap();
            if log[0].state == "sent" || start.elapsed() > Duration::from_secs(10) {
                break log;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        };
        assert_eq!(log[0].state, "sent", "{log:?}");
        assert!(log[0].attempts >= 2);
        assert!(app.operator().admin().mail_log(true, 10).await.unwrap().is_empty(), "nothing failed");
    }
}

on_both_backends_with_mail! {
    async fn invitations_and_reset_links_go_by_mail(backend) {
        let app = mail_app(backend, None).await;
        let to = mail::address("new");
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": app.tenant, "role": "MEMBER", "email": to}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let got = wait_for(&to, 1, Duration::from_secs(10)).await;
        assert_eq!(code_in(&got[0], "invite"), r.body["code"].as_str().unwrap());

        let bob = app.account_in(&app.tenant, "bob", "member").await;
        let addr = verified(&app, &bob, "bob").await;
        let ask = |name: String| {
            let app = &app;
            async move { app.call_as("", "POST", "/api/password-reset/request", Some(json!({"name": name}))).await }
        };
        for name in ["bob".to_string(), addr.to_uppercase(), "nobody".to_string()] {
            let r = ask(name.clone()).await;
            assert_eq!((r.status, r.body.clone()), (202, json!({"requested": true})), "{name}");
        }
        let got = wait_for(&addr, 2, Duration::from_secs(10)).await;
        let code = code_in(&got[0], "reset");
        assert_eq!(header(&got[0], "Subject"), Some("board: set a new password"));
        let r = app.call_as("", "POST", "/api/password-reset", Some(json!({"code": code, "password": "a long and unusual phrase 42"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
    }
}

on_both_backends! {
    async fn without_smtp_invitations_and_resets_by_mail_are_refused(backend) {
        let app = common::spawn_app(backend).await;
        let r = app.call("POST", "/api/invitations", Some(json!({"tenantId": app.tenant, "role": "MEMBER", "email": "a@example.test"}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("MAIL_DISABLED")));
        let r = app.call_as("", "POST", "/api/password-reset/request", Some(json!({"name": "admin"}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("MAIL_DISABLED")));
        let r = app.call("GET", &format!("/api/invitations?tenant={}", app.tenant), None).await;
        assert_eq!(r.body.as_array().map(Vec::len), Some(0), "nothing written: {:?}", r.body);
    }
}
