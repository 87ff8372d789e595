//! A card's kept counts (`commentCount`, `attachmentCount`, `checklist`)
//! under racing writes (used by `tests/e2e/counts.rs` in-process and by
//! `board-server/tests/server.rs` across two server processes).

use std::sync::Arc;

use serde_json::{json, Value};

use crate::App;

/// A one-pixel PNG, an image a comment accepts.
fn png() -> Vec<u8> {
    let mut v = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x01\0\0\0\x01\x08\x06\0\0\0".to_vec();
    v.extend_from_slice(&[0x1f, 0x15, 0xc4, 0x89]);
    v
}

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

/// What one card holds before the race: comments (the first half with an
/// image each), its own attachments, checklist items (every other one done).
struct Made {
    card: String,
    comments: Vec<String>,
    attachments: Vec<String>,
    items: Vec<(String, bool)>,
}

/// Gives a new card `title` 8 comments (4 with an image), 4 attachments and
/// 8 checklist items (4 done).
async fn made(app: &App, title: &str) -> Made {
    let card = id(&app.card(title).await);
    let mut comments = Vec::new();
    for n in 0..8 {
        let images = match n < 4 {
            true => vec![upload(app, &app.base, &card, "comments/uploads").await],
            false => vec![],
        };
        let body = json!({"content": format!("before {n}"), "attachmentIds": images});
        let r = app
            .call("POST", &format!("/api/cards/{card}/comments"), Some(body))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        comments.push(id(&r.body));
    }
    let mut attachments = Vec::new();
    for _ in 0..4 {
        attachments.push(upload(app, &app.base, &card, "attachments").await);
    }
    let mut items = Vec::new();
    for n in 0..8 {
        let path = format!("/api/cards/{card}/checklist");
        let r = app
            .call("POST", &path, Some(json!({"text": format!("step {n}")})))
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let item = id(&r.body);
        if n % 2 == 0 {
            check(app, &app.base, &item, true).await;
        }
        items.push((item, n % 2 == 0));
    }
    Made {
        card,
        comments,
        attachments,
        items,
    }
}

/// Uploads one PNG to `/api/cards/{card}/{what}` through `base`: its id.
async fn upload(app: &App, base: &str, card: &str, what: &str) -> String {
    let path = format!("/api/cards/{card}/{what}");
    let r = app
        .upload_at(base, &app.token, &path, &[("files", "i.png", png())])
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    id(&r.body[0])
}

/// Checks (or unchecks) a checklist item through `base`.
async fn check(app: &App, base: &str, item: &str, done: bool) {
    let path = format!("/api/checklist/{item}");
    let r = app
        .call_at(
            base,
            &app.token,
            "PATCH",
            &path,
            Some(json!({ "done": done })),
        )
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
}

/// Sends `method path` through `base` and requires a 2xx: the answer's body.
async fn ok(app: &App, base: &str, method: &str, path: &str, body: Option<Value>) -> Value {
    let r = app.call_at(base, &app.token, method, path, body).await;
    assert!(
        (200..300).contains(&r.status),
        "{method} {path}: {:?}",
        r.body
    );
    r.body
}

/// `GET /api/cards/{card}{what}`, required to answer 200.
async fn get(app: &App, card: &str, what: &str) -> Value {
    let path = format!("/api/cards/{card}{what}");
    ok(app, &app.base, "GET", &path, None).await
}

/// One racer on card `m`: a comment with an image, a comment deleted (the
/// first four with their image), an attachment uploaded and one deleted, an
/// item checked or unchecked, an item added and (every other racer) removed.
async fn racer(app: Arc<App>, base: String, m: Arc<Made>, r: usize) {
    let card = &m.card;
    let image = upload(&app, &base, card, "comments/uploads").await;
    let body = json!({"content": format!("racer {r}"), "attachmentIds": [image]});
    ok(
        &app,
        &base,
        "POST",
        &format!("/api/cards/{card}/comments"),
        Some(body),
    )
    .await;
    let comment = &m.comments[r / 2];
    ok(
        &app,
        &base,
        "DELETE",
        &format!("/api/comments/{comment}"),
        None,
    )
    .await;
    upload(&app, &base, card, "attachments").await;
    if let Some(a) = m.attachments.get(r / 2) {
        ok(
            &app,
            &base,
            "DELETE",
            &format!("/api/attachments/{a}"),
            None,
        )
        .await;
    }
    let (item, done) = &m.items[r / 2];
    check(&app, &base, item, !done).await;
    let path = format!("/api/cards/{card}/checklist");
    let added = ok(
        &app,
        &base,
        "POST",
        &path,
        Some(json!({"text": format!("racer {r}")})),
    )
    .await;
    if r % 4 < 2 {
        check(&app, &base, &id(&added), true).await;
    } else {
        ok(
            &app,
            &base,
            "DELETE",
            &format!("/api/checklist/{}", id(&added)),
            None,
        )
        .await;
    }
}

/// Two cards, each with comments, attachments and checklist items; then 16
/// racers at once (8 a card), spread over the servers at `bases`, add and
/// delete comments (with images), attachments and items and check items.
/// Every card's kept counts then equal a recount of its rows
/// (`Admin::check_counts`), and its payload says what its lists hold.
pub async fn race_count_changes(app: Arc<App>, bases: &[String]) {
    let cards = [
        Arc::new(made(&app, "Counted A").await),
        Arc::new(made(&app, "Counted B").await),
    ];
    let mut tasks = Vec::new();
    for r in 0..16 {
        let (app, base) = (app.clone(), bases[r % bases.len()].clone());
        let m = cards[r % 2].clone();
        tasks.push(tokio::spawn(racer(app, base, m, r)));
    }
    for t in tasks {
        t.await.expect("a racer");
    }
    let board = app.board().await;
    let mismatches = board.admin().check_counts().await.expect("check");
    board.close().await;
    assert_eq!(mismatches, vec![], "kept counts differ from a recount");
    for m in &cards {
        let card = get(&app, &m.card, "").await;
        let thread = get(&app, &m.card, "/comments").await;
        let thread = thread.as_array().expect("comments");
        let images: usize = thread
            .iter()
            .map(|c| c["attachments"].as_array().map_or(0, Vec::len))
            .sum();
        let own = get(&app, &m.card, "/attachments").await;
        let own = own.as_array().expect("attachments").len();
        let items = get(&app, &m.card, "/checklist").await;
        let items = items.as_array().expect("items");
        let done = items.iter().filter(|i| i["done"] == true).count();
        // 8 + 8 racers' - 8 deleted comments; 4 + 8 - 4 attachments, 4 + 8 - 4
        // images (the deleted comments took theirs); 8 + 4 items, 4 + 4 done.
        assert_eq!(thread.len(), 8, "{card}");
        assert_eq!((own, images), (8, 8), "{card}");
        assert_eq!((items.len(), done), (12, 8), "{card}");
        assert_eq!(card["commentCount"], thread.len(), "{card}");
        assert_eq!(card["attachmentCount"], own + images, "{card}");
        assert_eq!(
            card["checklist"],
            json!({"done": done, "total": items.len()}),
            "{card}"
        );
    }
}
