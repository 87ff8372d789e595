//! Conditional requests (api.md §22): strong tags on the board, the columns,
//! a card and its comments, history, relations and attachments; `304` for a
//! current `If-None-Match`, `412` for a stale `If-Match`; every change type of
//! §11 changes the tags of the payloads it alters; racing `If-Match` writers.

use std::sync::Arc;

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends, App};
use tokio::sync::Barrier;

use crate::uploads::{id, png, upload};

/// A response with its tag.
struct Tagged {
    status: u16,
    tag: Option<String>,
    body: Vec<u8>,
}

impl Tagged {
    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }
}

/// Sends `method path` to `base` with `token` and extra headers.
async fn send(
    app: &App,
    base: &str,
    token: &str,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: Option<Value>,
) -> Tagged {
    let mut req = app.http.request(
        reqwest::Method::from_bytes(method.as_bytes()).unwrap(),
        format!("{base}{path}"),
    );
    req = req.bearer_auth(token);
    for (k, v) in headers {
        req = req.header(*k, *v);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let tag = res
        .headers()
        .get("etag")
        .map(|v| v.to_str().unwrap().to_string());
    let body = res.bytes().await.expect("body").to_vec();
    Tagged { status, tag, body }
}

/// `GET path` with `If-None-Match` (none when empty).
async fn get(app: &App, path: &str, if_none_match: &str) -> Tagged {
    let headers: &[(&str, &str)] = match if_none_match {
        "" => &[],
        h => &[("if-none-match", h)],
    };
    send(app, &app.base, &app.token, "GET", path, headers, None).await
}

/// The current tag of `path` (asserting a tagged 200).
async fn tag(app: &App, path: &str) -> String {
    let r = get(app, path, "").await;
    assert_eq!(
        r.status,
        200,
        "{path}: {}",
        String::from_utf8_lossy(&r.body)
    );
    let t = r.tag.expect("an ETag on the 200");
    assert!(
        t.starts_with('"') && t.ends_with('"') && t.len() > 2,
        "strong: {t}"
    );
    t
}

/// The tagged payloads of one card and of the board it is on.
struct Views {
    paths: Vec<(&'static str, String)>,
}

impl Views {
    fn of(app: &App, card: &str, project: &str) -> Views {
        let t = &app.tenant;
        Views {
            paths: vec![
                ("board", format!("/api/board?tenant={t}")),
                ("columns", format!("/api/columns?tenant={t}")),
                (
                    "project columns",
                    format!("/api/columns?tenant={t}&project={project}"),
                ),
                ("all columns", "/api/columns".to_string()),
                ("card", format!("/api/cards/{card}")),
                ("comments", format!("/api/cards/{card}/comments")),
                ("history", format!("/api/cards/{card}/history")),
                ("relations", format!("/api/cards/{card}/relations")),
                ("attachments", format!("/api/cards/{card}/attachments")),
            ],
        }
    }

    /// Every tag, after checking that each is current: `If-None-Match` with
    /// it is a 304 without a body.
    async fn tags(&self, app: &App) -> Vec<String> {
        let mut out = Vec::new();
        for (name, path) in &self.paths {
            let t = tag(app, path).await;
            let again = get(app, path, &t).await;
            assert_eq!(again.status, 304, "{name}: the current tag is not modified");
            assert!(again.body.is_empty(), "{name}: a 304 has no body");
            assert_eq!(
                again.tag.as_deref(),
                Some(t.as_str()),
                "{name}: the 304 repeats the tag"
            );
            out.push(t);
        }
        out
    }

    /// Makes the change `what` and checks that exactly the payloads in
    /// `altered` got a new tag (a 200 for the old one) and, for the others,
    /// that their payload did not change.
    async fn after(&self, app: &App, before: &mut Vec<String>, what: &str, altered: &[&str]) {
        let now = self.tags(app).await;
        for (((name, path), old), new) in self.paths.iter().zip(before.iter()).zip(&now) {
            if altered.contains(name) {
                assert_ne!(old, new, "{what} alters {name}: its tag must change");
                let r = get(app, path, old).await;
                assert_eq!(r.status, 200, "{what}: the old tag of {name} is stale");
            }
        }
        *before = now;
    }
}

fn ok(r: &common::Res, what: &str) {
    assert!(r.status < 300, "{what}: {} {:?}", r.status, r.body);
}

on_both_backends! {
    async fn every_change_type_changes_the_tags_of_what_it_alters(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let project = app.project(&t, "Apollo").await;
        let a = id(&app.card("A").await);
        let b = id(&app.card("B").await);
        let views = Views::of(&app, &a, &project);
        let mut tags = views.tags(&app).await;
        let cols = app.columns().await;
        let doing = id(&cols[1]);

        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": t, "name": "Review"}))).await;
        ok(&r, "column.created");
        let review = id(&r.body);
        views.after(&app, &mut tags, "column.created", &["board", "columns", "project columns", "all columns"]).await;

        let r = app.call("PATCH", &format!("/api/columns/{review}"), Some(json!({"name": "QA"}))).await;
        ok(&r, "column.updated");
        views.after(&app, &mut tags, "column.updated", &["board", "columns", "project columns", "all columns"]).await;

        let r = app.call("PATCH", "/api/columns/order", Some(json!({"columnIds": [review, doing]}))).await;
        ok(&r, "columns.reordered");
        views.after(&app, &mut tags, "columns.reordered", &["board", "columns", "project columns", "all columns"]).await;

        let r = app.call("PATCH", &format!("/api/cards/{a}"), Some(json!({"columnId": review}))).await;
        ok(&r, "card.moved");
        views.after(&app, &mut tags, "card.moved", &["board", "card", "history"]).await;

        // A column deleted with MOVE moves the card: its place and its history change.
        let r = app.call("DELETE", &format!("/api/columns/{review}"), Some(json!({"cards": "MOVE", "targetColumnId": doing}))).await;
        ok(&r, "column.deleted");
        views.after(&app, &mut tags, "column.deleted", &["board", "columns", "project columns", "all columns", "card", "history"]).await;

        let r = app.call("PATCH", &format!("/api/cards/{a}"), Some(json!({"title": "A2"}))).await;
        ok(&r, "card.updated");
        views.after(&app, &mut tags, "card.updated", &["board", "card"]).await;

        // Renamed with its own column named: under that column's lock alone.
        let r = app.call("PATCH", &format!("/api/cards/{a}"), Some(json!({"title": "A3", "columnId": doing}))).await;
        ok(&r, "card.updated in its column");
        views.after(&app, &mut tags, "card.updated in its column", &["board", "card"]).await;

        // api.md §19: an archived card leaves the board; restored, it is back.
        let r = app.call("POST", &format!("/api/cards/{a}/archive"), None).await;
        ok(&r, "card.archived");
        views.after(&app, &mut tags, "card.archived", &["board", "card"]).await;
        let r = app.call("POST", &format!("/api/cards/{a}/restore"), None).await;
        ok(&r, "card.restored");
        views.after(&app, &mut tags, "card.restored", &["board", "card"]).await;

        let c = id(&app.card("C").await);
        views.after(&app, &mut tags, "card.created", &["board"]).await;

        let path = format!("/api/cards/{a}/comments");
        let r = app.call("POST", &path, Some(json!({"content": "hi"}))).await;
        ok(&r, "comment.created");
        let comment = id(&r.body);
        views.after(&app, &mut tags, "comment.created", &["comments"]).await;

        let r = app.call("PATCH", &format!("/api/comments/{comment}"), Some(json!({"content": "hello"}))).await;
        ok(&r, "comment.updated");
        views.after(&app, &mut tags, "comment.updated", &["comments"]).await;

        let up = upload(&app, &app.token, &format!("/api/cards/{a}/attachments"), &[("files", "a.png", png())]).await;
        assert_eq!(up.status, 201, "attachment.created: {:?}", up.body);
        let file = id(&up.body[0]);
        views.after(&app, &mut tags, "attachment.created", &["attachments"]).await;

        let r = app.call("DELETE", &format!("/api/attachments/{file}"), None).await;
        ok(&r, "attachment.deleted");
        views.after(&app, &mut tags, "attachment.deleted", &["attachments"]).await;

        // An image bound to a comment, then deleted on its own: the comment's images change.
        let up = upload(&app, &app.token, &format!("/api/cards/{a}/comments/uploads"), &[("files", "i.png", png())]).await;
        assert_eq!(up.status, 201, "{:?}", up.body);
        let image = id(&up.body[0]);
        views.after(&app, &mut tags, "attachment.created (loose image)", &[]).await;
        let r = app.call("PATCH", &format!("/api/comments/{comment}"), Some(json!({"content": "see", "attachmentIds": [image]}))).await;
        ok(&r, "comment.updated (image bound)");
        views.after(&app, &mut tags, "comment.updated (image bound)", &["comments"]).await;
        let r = app.call("DELETE", &format!("/api/attachments/{image}"), None).await;
        ok(&r, "attachment.deleted (bound image)");
        views.after(&app, &mut tags, "attachment.deleted (bound image)", &["comments"]).await;

        let r = app.call("DELETE", &format!("/api/comments/{comment}"), None).await;
        ok(&r, "comment.deleted");
        views.after(&app, &mut tags, "comment.deleted", &["comments"]).await;

        let r = app.call("POST", &format!("/api/cards/{b}/relations"), Some(json!({"targetId": a, "kind": "BLOCKS"}))).await;
        ok(&r, "relation.created");
        let link = id(&r.body);
        views.after(&app, &mut tags, "relation.created", &["relations"]).await;

        let r = app.call("DELETE", &format!("/api/relations/{link}"), None).await;
        ok(&r, "relation.deleted");
        views.after(&app, &mut tags, "relation.deleted", &["relations"]).await;

        // A card deleted: the board loses it, and its links leave the other card's list.
        let r = app.call("POST", &format!("/api/cards/{a}/relations"), Some(json!({"targetId": b, "kind": "RELATED"}))).await;
        ok(&r, "relation.created");
        views.after(&app, &mut tags, "relation.created", &["relations"]).await;
        let r = app.call("DELETE", &format!("/api/cards/{b}"), None).await;
        ok(&r, "card.deleted");
        views.after(&app, &mut tags, "card.deleted", &["board", "relations"]).await;

        // Settings: the WIP mode decides overLimit on the board; the scope decides a project's set.
        let r = app.call("PATCH", "/api/settings", Some(json!({"tenantId": t, "wipLimits": "HARD"}))).await;
        ok(&r, "settings.updated");
        views.after(&app, &mut tags, "settings.updated (wipLimits)", &["board"]).await;
        let r = app.call("PATCH", "/api/settings", Some(json!({"tenantId": t, "columnScope": "PROJECT"}))).await;
        ok(&r, "settings.updated");
        views.after(&app, &mut tags, "settings.updated (columnScope)", &[]).await;
        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": t, "projectId": project, "name": "Own"}))).await;
        ok(&r, "column.created in the project's set");
        views.after(&app, &mut tags, "column.created (project set)", &["project columns", "columns", "all columns"]).await;

        // cards.repositioned: placements right after card A until the gap is
        // used up and the cards below it are renumbered (first among them the
        // card placed before, which sits right below A).
        let r = app.call("PATCH", &format!("/api/cards/{c}"), Some(json!({"columnId": doing}))).await;
        ok(&r, "card.moved");
        let mut below = format!("/api/cards/{c}");
        let mut renumbered = false;
        for i in 0..40 {
            let mover = id(&app.card(&format!("m{i}")).await);
            let board_before = tag(&app, &views.paths[0].1).await;
            let below_before = tag(&app, &below).await;
            let position = app.call("GET", &below, None).await.body["position"].clone();
            let r = app.call("PATCH", &format!("/api/cards/{mover}"), Some(json!({"columnId": doing, "afterId": a}))).await;
            ok(&r, "placement");
            assert_ne!(tag(&app, &views.paths[0].1).await, board_before, "a placement alters the board");
            if app.call("GET", &below, None).await.body["position"] != position {
                assert_ne!(tag(&app, &below).await, below_before, "cards.repositioned alters the card");
                assert_eq!(get(&app, &below, &below_before).await.status, 200);
                renumbered = true;
                break;
            }
            below = format!("/api/cards/{mover}");
        }
        assert!(renumbered, "the gap was used up and the cards below renumbered");
    }

    async fn conditions_follow_rfc_9110(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("A").await);
        let path = format!("/api/cards/{card}");
        let current = tag(&app, &path).await;
        let weak = format!("W/{current}");
        // If-None-Match: weak comparison, lists, `*`.
        for header in [current.as_str(), weak.as_str(), "*", &format!("\"x\", {current}")] {
            assert_eq!(get(&app, &path, header).await.status, 304, "{header}");
        }
        for header in ["\"x\"", "W/\"x\"", "garbage"] {
            let r = get(&app, &path, header).await;
            assert_eq!(r.status, 200, "{header}");
            assert_eq!(r.tag.as_deref(), Some(current.as_str()));
            assert_eq!(r.json()["id"], card.as_str());
        }
        // Credentials first: a revoked token is 401, never 304.
        let token = app.account_in(&app.tenant, "carol", "viewer").await;
        // Carol does not watch the card: her tag is her own (api.md §26).
        let hers = send(&app, &app.base, &token, "GET", &path, &[], None).await.tag.unwrap();
        assert_ne!(hers, current, "the creator watches it, carol does not");
        let h = [("if-none-match", hers.as_str())];
        assert_eq!(send(&app, &app.base, &token, "GET", &path, &h, None).await.status, 304);
        let tid = board_core::TokenId::from_token_or_id(&token).unwrap();
        app.operator().admin().revoke_token(&tid).await.unwrap();
        assert_eq!(send(&app, &app.base, &token, "GET", &path, &h, None).await.status, 401);
        // Access: an account outside the workspace gets 403, not 304.
        let other = app.workspace("Other").await;
        let stranger = app.account_in(&other, "dave", "admin").await;
        assert_eq!(send(&app, &app.base, &stranger, "GET", &path, &h, None).await.status, 403);

        // If-Match: strong comparison; a stale or weak tag is 412 and changes nothing.
        let patch = |cond: String, title: &str| {
            let app = &app;
            let path = path.clone();
            let body = json!({"title": title});
            async move { send(app, &app.base, &app.token, "PATCH", &path, &[("if-match", &cond)], Some(body)).await }
        };
        let r = patch(weak.clone(), "weak").await;
        assert_eq!(r.status, 412, "a weak tag never matches If-Match");
        assert_eq!(r.json()["error"], "PRECONDITION_FAILED");
        assert_eq!(tag(&app, &path).await, current, "nothing changed");
        let r = patch(format!("\"x\", {current}"), "listed").await;
        assert_eq!(r.status, 200, "a list naming the current tag");
        let changed = tag(&app, &path).await;
        assert_ne!(changed, current);
        let r = patch(current.clone(), "stale").await;
        assert_eq!(r.status, 412, "stale");
        assert_eq!(app.call("GET", &path, None).await.body["title"], "listed", "nothing changed");
        assert_eq!(patch("*".into(), "any").await.status, 200);
        let history = app.call("GET", &format!("{path}/history"), None).await;
        assert_eq!(history.body.as_array().unwrap().len(), 1, "no history from a refused move");

        // Comments: If-Match takes the tag of the card's comments.
        let list = format!("{path}/comments");
        let c = app.call("POST", &list, Some(json!({"content": "one"}))).await;
        let one = format!("/api/comments/{}", id(&c.body));
        let comments_tag = tag(&app, &list).await;
        let edit = |cond: String, content: &str| {
            let app = &app;
            let one = one.clone();
            let body = json!({"content": content});
            async move { send(app, &app.base, &app.token, "PATCH", &one, &[("if-match", &cond)], Some(body)).await }
        };
        assert_eq!(edit(tag(&app, &path).await, "card's tag").await.status, 412, "the card's tag is not the comments'");
        assert_eq!(edit(comments_tag.clone(), "two").await.status, 200);
        let r = edit(comments_tag.clone(), "three").await;
        assert_eq!(r.status, 412);
        assert_eq!(r.json()["error"], "PRECONDITION_FAILED");
        let after = app.call("GET", &list, None).await;
        assert_eq!(after.body[0]["content"], "two", "nothing changed");
        // A comment added since makes the tag stale too: a plain new comment
        // leaves the card's version, and the number of comments tags it.
        let current = tag(&app, &list).await;
        assert_eq!(app.call("POST", &list, Some(json!({"content": "another"}))).await.status, 201);
        assert_eq!(edit(current, "stale").await.status, 412, "a new comment changes the tag");
        assert_eq!(edit(tag(&app, &list).await, "five").await.status, 200);
        // Without If-Match, as before.
        assert_eq!(app.call("PATCH", &one, Some(json!({"content": "four"}))).await.status, 200);
    }

    async fn an_unreadable_if_match_is_refused_and_if_none_match_ignored(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("A").await);
        let path = format!("/api/cards/{card}");
        let c = app.call("POST", &format!("{path}/comments"), Some(json!({"content": "0"}))).await;
        let comment = format!("/api/comments/{}", id(&c.body));
        let card_tag = tag(&app, &path).await;
        let comments_tag = tag(&app, &format!("{path}/comments")).await;
        // A byte outside visible ASCII, or a current tag with one byte changed
        // to one: never "no condition".
        let spoiled = |t: &str| {
            let mut b = t.as_bytes().to_vec();
            b[1] = 0xe9;
            b
        };
        let raw = |method: &str, target: &str, name: &str, value: Vec<u8>, body: Option<Value>| {
            let mut req = app
                .http
                .request(reqwest::Method::from_bytes(method.as_bytes()).unwrap(), format!("{}{target}", app.base))
                .bearer_auth(&app.token)
                .header(name, reqwest::header::HeaderValue::from_bytes(&value).unwrap());
            if let Some(b) = body {
                req = req.json(&b);
            }
            async move {
                let res = req.send().await.expect("request");
                let status = res.status().as_u16();
                (status, res.json::<Value>().await.unwrap_or(Value::Null))
            }
        };
        let unreadable: Vec<Vec<u8>> = vec![
            b"\"\xc3\xa9\"".to_vec(),
            spoiled(&card_tag),
            format!("{card_tag}, garbage").into_bytes(),
            format!("{card_tag} {card_tag}").into_bytes(),
        ];
        for value in unreadable {
            let (status, body) = raw("PATCH", &path, "if-match", value.clone(), Some(json!({"title": "over"}))).await;
            assert_eq!(status, 412, "{value:?}: {body}");
            assert_eq!(body["error"], "PRECONDITION_FAILED");
        }
        assert_eq!(tag(&app, &path).await, card_tag, "the card did not change");
        assert_eq!(app.call("GET", &path, None).await.body["title"], "A");
        let (status, _) = raw("PATCH", &comment, "if-match", spoiled(&comments_tag), Some(json!({"content": "over"}))).await;
        assert_eq!(status, 412, "a comment's stale tag with one byte changed");
        let thread = app.call("GET", &format!("{path}/comments"), None).await;
        assert_eq!(thread.body[0]["content"], "0", "the comment did not change");
        assert_eq!(app.call("GET", &format!("{path}/history"), None).await.body.as_array().unwrap().len(), 1);
        // If-None-Match that cannot be read is ignored: the payload comes.
        let (status, body) = raw("GET", &path, "if-none-match", spoiled(&card_tag), None).await;
        assert_eq!(status, 200);
        assert_eq!(body["id"], card.as_str());
        let (status, _) = raw("GET", &path, "if-none-match", format!("{card_tag}, garbage").into_bytes(), None).await;
        assert_eq!(status, 200, "a list that is not entity tags is ignored whole");
        // The current tag, readable, still goes through.
        let (status, _) = raw("PATCH", &path, "if-match", card_tag.clone().into_bytes(), Some(json!({"title": "B"}))).await;
        assert_eq!(status, 200);
    }

    async fn racing_if_match_patches_let_exactly_one_through(backend) {
        let app = common::spawn_app(backend).await;
        let second = app.second_server().await;
        let card = id(&app.card("A").await);
        let path = format!("/api/cards/{card}");
        let c = app.call("POST", &format!("{path}/comments"), Some(json!({"content": "0"}))).await;
        let comment = format!("/api/comments/{}", id(&c.body));
        let app = Arc::new(app);
        for round in 0..5 {
            for (target, list) in [(comment.clone(), format!("{path}/comments")), (path.clone(), path.clone())] {
                let cond = tag(&app, &list).await;
                let n = 8;
                let barrier = Arc::new(Barrier::new(n));
                let mut tasks = Vec::new();
                for i in 0..n {
                    let (app, barrier, target, cond) = (app.clone(), barrier.clone(), target.clone(), cond.clone());
                    let base = if i % 2 == 0 { app.base.clone() } else { second.base.clone() };
                    tasks.push(tokio::spawn(async move {
                        let body = if target.contains("/comments/") {
                            json!({"content": format!("r{round} w{i}")})
                        } else {
                            json!({"title": format!("r{round} w{i}")})
                        };
                        barrier.wait().await;
                        send(&app, &base, &app.token, "PATCH", &target, &[("if-match", &cond)], Some(body)).await.status
                    }));
                }
                let mut statuses = Vec::new();
                for t in tasks {
                    statuses.push(t.await.unwrap());
                }
                statuses.sort_unstable();
                let mut want = vec![412; n - 1];
                want.insert(0, 200);
                assert_eq!(statuses, want, "round {round} on {target}: one wins, the others see its change");
            }
        }
        drop(second);
    }

    async fn a_write_answers_the_tag_and_html_a_read_would_carry(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("A").await);
        let path = format!("/api/cards/{card}");
        let thread = format!("{path}/comments");
        let call = |method: &'static str, path: String, cond: Option<String>, body: Value| {
            let app = &app;
            async move {
                let headers: Vec<(&str, &str)> = cond.as_deref().map(|c| ("if-match", c)).into_iter().collect();
                send(app, &app.base, &app.token, method, &path, &headers, Some(body)).await
            }
        };
        // A save answers the card without the reader's own `watching`, and
        // the card's own tag: the read's, for a reader who does not watch it.
        let unwatched = app.call("DELETE", &format!("{path}/watch"), None).await;
        assert_eq!(unwatched.status, 200, "{:?}", unwatched.body);
        let without_watching = |mut v: Value| {
            assert_eq!(v.as_object_mut().unwrap().remove("watching"), Some(json!(false)));
            v
        };
        // Each save answers what the read answers now, tag included, and that
        // tag is the If-Match of the next save: one request per save.
        let mut cond = None;
        let bodies = [json!({"title": "B"}), json!({"description": "*new*"}), json!({"title": "B"})];
        for (i, body) in bodies.into_iter().enumerate() {
            for (query, html) in [("", false), ("?html=true", true)] {
                let saved = call("PATCH", format!("{path}{query}"), cond.clone(), body.clone()).await;
                assert_eq!(saved.status, 200, "save {i}{query}: {}", String::from_utf8_lossy(&saved.body));
                let read = get(&app, &format!("{path}{query}"), "").await;
                assert_eq!(saved.tag, read.tag, "save {i}{query}: the tag of the read");
                assert_eq!(saved.json(), without_watching(read.json()), "save {i}{query}: the read");
                assert_eq!(saved.json()["descriptionHtml"].is_string(), html, "save {i}{query}");
                cond = saved.tag;
            }
        }
        // A move too, and a refused html leaves the card as it was.
        let columns = app.call("GET", &format!("/api/columns?tenant={}", app.tenant), None).await.body;
        let done = columns[2]["id"].as_str().unwrap().to_string();
        let moved = call("PATCH", path.clone(), cond.clone(), json!({"columnId": done})).await;
        assert_eq!(moved.tag, get(&app, &path, "").await.tag, "a move's tag");
        // A label or an assignee put or taken off answers the card's tag too.
        let label = app.call("POST", "/api/labels", Some(json!({"tenantId": app.tenant, "name": "L"}))).await.body;
        let me = app.call("GET", "/api/me", None).await.body["id"].as_str().unwrap().to_string();
        for (method, mark) in [("PUT", format!("labels/{}", id(&label))), ("PUT", format!("assignees/{me}")),
                               ("DELETE", format!("labels/{}", id(&label))), ("DELETE", format!("assignees/{me}"))] {
            let r = send(&app, &app.base, &app.token, method, &format!("{path}/{mark}"), &[], None).await;
            assert_eq!(r.status, 200, "{method} {mark}");
            let read = get(&app, &path, "").await;
            assert_eq!((r.json(), r.tag), (without_watching(read.json()), read.tag), "{method} {mark}: the read's card and tag");
        }
        let refused = call("PATCH", format!("{path}?html=maybe"), None, json!({"title": "C"})).await;
        assert_eq!(refused.status, 422);
        assert_eq!(get(&app, &path, "").await.json()["title"], "B", "nothing changed");

        // Comments: a new one and an edit answer the thread's tag.
        let mut cond: Option<String> = None;
        for (i, query) in ["", "?html=true", "?html=true", ""].into_iter().enumerate() {
            let posted = call("POST", format!("{thread}{query}"), None, json!({"content": format!("*c{i}*")})).await;
            assert_eq!(posted.status, 201, "{}", String::from_utf8_lossy(&posted.body));
            let read = get(&app, &format!("{thread}{query}"), "").await;
            assert_eq!(posted.tag, read.tag, "POST {i}{query}: the thread's tag");
            let listed = read.json().as_array().unwrap().last().cloned().unwrap();
            assert_eq!(posted.json(), listed, "POST {i}{query}: the comment as the thread shows it");
            if let Some(cond) = &cond {
                assert_eq!(get(&app, &format!("{thread}{query}"), cond).await.status, 200, "the earlier tag is stale");
            }
            let comment = format!("/api/comments/{}", id(&posted.json()));
            let edited = call("PATCH", format!("{comment}{query}"), posted.tag.clone(), json!({"content": format!("c{i}!")})).await;
            assert_eq!(edited.status, 200, "the POST's tag is the next If-Match: {}", String::from_utf8_lossy(&edited.body));
            let read = get(&app, &format!("{thread}{query}"), "").await;
            assert_eq!(edited.tag, read.tag, "PATCH {i}{query}: the thread's tag");
            assert_eq!(get(&app, &format!("{thread}{query}"), edited.tag.as_deref().unwrap()).await.status, 304);
            cond = edited.tag;
        }
        let before = get(&app, &thread, "").await.json().as_array().unwrap().len();
        let refused = call("POST", format!("{thread}?html=1"), None, json!({"content": "x"})).await;
        assert_eq!(refused.status, 422);
        assert_eq!(get(&app, &thread, "").await.json().as_array().unwrap().len(), before, "nothing added");
    }
}
