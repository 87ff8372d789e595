//! Comments over HTTP: byte-for-byte Markdown, chronological order, binding,
//! replacing and deleting images (files too), schema and domain failures, and
//! the order of access checks.

use crate::uploads::{id, png, upload};
use serde_json::{json, Value};
use testkit::{self as common, on_every_store};

const MARKDOWN: &str = "# Título ✓ 日本語  \n\ntrailing spaces   \n<div onclick=\"x()\">html <b>inside</b></div>\n\t- item\r\n  ";

on_every_store! {
    async fn markdown_round_trips_byte_for_byte_in_order(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Talk").await);
        let path = format!("/api/cards/{card}/comments");
        let first = app.call("POST", &path, Some(json!({"content": MARKDOWN}))).await;
        assert_eq!(first.status, 201, "{:?}", first.body);
        assert_eq!(first.body["content"].as_str().unwrap().as_bytes(), MARKDOWN.as_bytes());
        assert_eq!(first.body["cardId"], card.as_str());
        assert_eq!(first.body["attachments"], json!([]));
        assert_eq!(first.body["createdAt"], first.body["updatedAt"]);
        for n in 2..=3 {
            let r = app.call("POST", &path, Some(json!({"content": format!("comment {n}")}))).await;
            assert_eq!(r.status, 201);
        }
        let list = app.call("GET", &path, None).await;
        assert_eq!(list.status, 200);
        let items = list.body.as_array().unwrap();
        let contents: Vec<&str> = items.iter().map(|c| c["content"].as_str().unwrap()).collect();
        assert_eq!(contents, vec![MARKDOWN, "comment 2", "comment 3"], "chronological");
        assert_eq!(items[0], first.body);

        let one = format!("/api/comments/{}", id(&first.body));
        let edited = app.call("PATCH", &one, Some(json!({"content": "  edited  "}))).await;
        assert_eq!(edited.status, 200, "{:?}", edited.body);
        assert_eq!(edited.body["content"], "  edited  ", "no trimming");
        assert!(edited.body["updatedAt"].as_str() > first.body["updatedAt"].as_str());
        assert_eq!(edited.body["createdAt"], first.body["createdAt"]);

        let del = app.call("DELETE", &one, None).await;
        assert_eq!(del.status, 200);
        assert_eq!(del.body, json!({"deleted": true}));
        assert_eq!(app.call("DELETE", &one, None).await.status, 404);
        assert_eq!(app.call("PATCH", &one, Some(json!({"content": "x"}))).await.status, 404);
        let list = app.call("GET", &path, None).await;
        assert_eq!(list.body.as_array().unwrap().len(), 2);
    }

    async fn images_bind_replace_and_go_with_their_comment(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Pictures").await);
        let other = id(&app.card("Elsewhere").await);
        let up = upload(&app, &app.token, &format!("/api/cards/{card}/comments/uploads"),
            &[("files", "a.png", png()), ("files", "b.png", png())]).await;
        assert_eq!(up.status, 201, "{:?}", up.body);
        let (a, b) = (id(&up.body[0]), id(&up.body[1]));
        assert_eq!(up.body[0]["scope"], "COMMENT");
        assert_eq!(up.body[0]["commentId"], Value::Null, "loose");
        let a_file = up.body[0]["storedName"].as_str().unwrap().to_string();
        let b_file = up.body[1]["storedName"].as_str().unwrap().to_string();
        assert_eq!(app.db.stored_files().await.len(), 2);

        let path = format!("/api/cards/{card}/comments");
        let c = app.call("POST", &path, Some(json!({"content": "see ![a](x)", "attachmentIds": [a]}))).await;
        assert_eq!(c.status, 201, "{:?}", c.body);
        let comment = id(&c.body);
        assert_eq!(c.body["attachments"].as_array().unwrap().len(), 1);
        assert_eq!(c.body["attachments"][0]["id"], a.as_str());
        assert_eq!(c.body["attachments"][0]["commentId"], comment.as_str());
        assert_eq!(c.body["attachments"][0]["url"], format!("/api/files/{a_file}"));
        let list = app.call("GET", &path, None).await;
        assert_eq!(list.body[0]["attachments"][0]["id"], a.as_str());

        // A bound image, a card attachment, another card's upload, an unknown id: 422, nothing bound.
        let card_file = upload(&app, &app.token, &format!("/api/cards/{card}/attachments"), &[("files", "c.png", png())]).await;
        assert_eq!(card_file.status, 201);
        let foreign = upload(&app, &app.token, &format!("/api/cards/{other}/comments/uploads"), &[("files", "f.png", png())]).await;
        for bad in [a.clone(), id(&card_file.body[0]), id(&foreign.body[0]), cuid2::create_id()] {
            let r = app.call("POST", &path, Some(json!({"content": "x", "attachmentIds": [b, bad]}))).await;
            assert_eq!(r.status, 422, "{:?}", r.body);
            assert_eq!(r.body["error"], "INVALID_ATTACHMENT");
        }
        let list = app.call("GET", &path, None).await;
        assert_eq!(list.body.as_array().unwrap().len(), 1, "refused comments were rolled back");

        // Absent attachmentIds: unchanged.
        let one = format!("/api/comments/{comment}");
        let r = app.call("PATCH", &one, Some(json!({"content": "text only"}))).await;
        assert_eq!(r.status, 200);
        assert_eq!(r.body["attachments"][0]["id"], a.as_str());
        // A refused PATCH changes nothing (b stays loose, content unchanged).
        let r = app.call("PATCH", &one, Some(json!({"content": "nope", "attachmentIds": [b, id(&foreign.body[0])]}))).await;
        assert_eq!(r.body["error"], "INVALID_ATTACHMENT");
        let list = app.call("GET", &path, None).await;
        assert_eq!(list.body[0]["content"], "text only");
        // Replace: b bound, a deleted with its file.
        let r = app.call("PATCH", &one, Some(json!({"content": "now b", "attachmentIds": [b]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let ids: Vec<&str> = r.body["attachments"].as_array().unwrap().iter().map(|x| x["id"].as_str().unwrap()).collect();
        assert_eq!(ids, vec![b.as_str()]);
        assert!(!app.db.stored_files().await.contains(&a_file), "the dropped image's file is gone");
        assert_eq!(app.call("GET", &format!("/api/files/{a_file}"), None).await.status, 404);
        assert!(app.db.stored_files().await.contains(&b_file));
        // Delete: its image and file go with it.
        assert_eq!(app.call("DELETE", &one, None).await.status, 200);
        assert!(!app.db.stored_files().await.contains(&b_file));
        assert_eq!(app.call("GET", &format!("/api/files/{b_file}"), None).await.status, 404);
        // An empty list unbinds everything: covered by replace; the card file and the foreign upload remain.
        assert_eq!(app.db.stored_files().await.len(), 2);
        assert_eq!(crate::uploads::attachment_rows(&app).await, 2);
    }

    async fn schema_failures_are_422(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Strict").await);
        let path = format!("/api/cards/{card}/comments");
        let cases = [
            (json!({}), "content"),
            (json!({"content": ""}), "content"),
            (json!({"content": " \n\t "}), "content"),
            (json!({"content": 5}), "content"),
            (json!({"content": "x".repeat(50_001)}), "content"),
            (json!({"content": "ok", "attachmentIds": "a"}), "attachmentIds"),
            (json!({"content": "ok", "attachmentIds": [1]}), "attachmentIds"),
            (json!({"content": "ok", "attachmentIds": ["not-a-cuid"]}), "attachmentIds"),
        ];
        for (body, field) in cases {
            let r = app.call("POST", &path, Some(body.clone())).await;
            assert_eq!(r.status, 422, "{body}");
            assert_eq!(r.body["error"], "VALIDATION_FAILED");
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{body} {:?}", r.body);
        }
        let long = app.call("POST", &path, Some(json!({"content": "é".repeat(50_000)}))).await;
        assert_eq!(long.status, 201, "50,000 characters are fine");
        let unknown = app.call("POST", &path, Some(json!({"content": "x", "author": "me"}))).await;
        assert_eq!(unknown.status, 422);
        assert_eq!(unknown.body["details"]["formErrors"].as_array().unwrap().len(), 1);
        let raw = app.raw("POST", &path, &[("authorization", &format!("Bearer {}", app.token)), ("content-type", "application/json")], "{nope").await;
        assert_eq!(raw.status, 422);
        let one = format!("/api/comments/{}", id(&long.body));
        let r = app.call("PATCH", &one, Some(json!({"content": "   "}))).await;
        assert_eq!(r.status, 422);
        let r = app.call("PATCH", &one, Some(json!({"attachmentIds": []}))).await;
        assert_eq!(r.status, 422, "content is required on PATCH");
    }

    async fn access_checks_in_contract_order(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Guarded").await);
        let viewer = app.account_in(&app.tenant, "vera", "viewer").await;
        let member = app.account_in(&app.tenant, "mo", "member").await;
        let other_ws = app.workspace("Other").await;
        let outsider = app.account_in(&other_ws, "olga", "admin").await;
        let path = format!("/api/cards/{card}/comments");
        let c = app.call_as(&member, "POST", &path, Some(json!({"content": "by a member"}))).await;
        assert_eq!(c.status, 201);
        let one = format!("/api/comments/{}", id(&c.body));
        let uploads_path = format!("{path}/uploads");
        let missing = format!("/api/cards/{}/comments", cuid2::create_id());
        let missing_one = format!("/api/comments/{}", cuid2::create_id());

        // 401 first, even for unknown resources.
        for (m, p) in [("GET", &path), ("POST", &path), ("PATCH", &one), ("DELETE", &one), ("GET", &missing)] {
            let r = app.call_as("", m, p, Some(json!({"content": "x"}))).await;
            assert_eq!(r.status, 401, "{m} {p}");
        }
        assert_eq!(upload(&app, "", &uploads_path, &[("files", "a.png", png())]).await.status, 401);
        // 404 before 403: an outsider asking for an unknown card or comment, malformed ids too.
        for (m, p) in [("GET", missing.as_str()), ("POST", missing.as_str()), ("PATCH", missing_one.as_str()),
                       ("DELETE", missing_one.as_str()), ("GET", "/api/cards/nope/comments"), ("DELETE", "/api/comments/nope")] {
            let r = app.call_as(&outsider, m, p, Some(json!({"content": "x"}))).await;
            assert_eq!(r.status, 404, "{m} {p}");
            assert_eq!(r.body["error"], "NOT_FOUND");
        }
        assert_eq!(upload(&app, &outsider, &format!("/api/cards/{}/comments/uploads", cuid2::create_id()), &[]).await.status, 404);
        // The outsider: 403 everywhere, reads included.
        for (m, p) in [("GET", &path), ("POST", &path), ("PATCH", &one), ("DELETE", &one)] {
            let r = app.call_as(&outsider, m, p, Some(json!({"content": "x"}))).await;
            assert_eq!(r.status, 403, "{m} {p}");
            assert_eq!(r.body["error"], "FORBIDDEN");
        }
        assert_eq!(upload(&app, &outsider, &uploads_path, &[("files", "a.png", png())]).await.status, 403);
        // The viewer reads, and cannot write; 403 comes before the schema check.
        assert_eq!(app.call_as(&viewer, "GET", &path, None).await.status, 200);
        for (m, p) in [("POST", &path), ("PATCH", &one), ("DELETE", &one)] {
            let r = app.call_as(&viewer, m, p, Some(json!({"bad": true}))).await;
            assert_eq!(r.status, 403, "{m} {p}");
        }
        let r = upload(&app, &viewer, &uploads_path, &[("files", "a.png", png())]).await;
        assert_eq!(r.status, 403);
        assert_eq!(r.body["error"], "FORBIDDEN");
        assert!(app.db.stored_files().await.is_empty(), "refused uploads store nothing");
        // The member writes.
        assert_eq!(app.call_as(&member, "PATCH", &one, Some(json!({"content": "y"}))).await.status, 200);
        assert_eq!(app.call_as(&member, "DELETE", &one, None).await.status, 200);
    }

    async fn comment_uploads_take_images_only(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Images").await);
        let path = format!("/api/cards/{card}/comments/uploads");
        let ok = upload(&app, &app.token, &path, &[("files", "a.gif", crate::uploads::gif()), ("file", "b", crate::uploads::jpeg())]).await;
        assert_eq!(ok.status, 201, "{:?}", ok.body);
        assert_eq!(ok.body[0]["mimeType"], "image/gif");
        assert_eq!(ok.body[1]["mimeType"], "image/jpeg");
        let before = app.db.stored_files().await;
        for bad in [crate::uploads::pdf(), b"just text".to_vec(), crate::uploads::svg()] {
            let r = upload(&app, &app.token, &path, &[("files", "x.png", png()), ("files", "y.png", bad)]).await;
            assert_eq!(r.status, 415, "{:?}", r.body);
            assert_eq!(r.body["error"], "UNSUPPORTED_FORMAT");
            assert_eq!(
                r.body["message"],
                "the content of \"y.png\" is not an accepted format: \
                 comment uploads take image/png, image/jpeg, image/gif, image/webp"
            );
        }
        assert_eq!(app.db.stored_files().await, before, "no file left");
        assert_eq!(crate::uploads::attachment_rows(&app).await, 2, "no row left");
        let none = upload(&app, &app.token, &path, &[]).await;
        assert_eq!(none.status, 400);
        assert_eq!(none.body["error"], "NO_FILE");
        // Comment images are not card attachments.
        let list = app.call("GET", &format!("/api/cards/{card}/attachments"), None).await;
        assert_eq!(list.body, json!([]));
    }

    // A plain comment takes no lock (its BEGIN goes with its commit): the
    // card's foreign key keeps the card until the comment commits, and a card
    // deleted after the comment's reach is a 404, never a 500 or a comment
    // (or an index row, or an event) left behind.
    async fn comments_racing_their_cards_deletion_land_or_are_404(backend) {
        let app = std::sync::Arc::new(common::spawn_app(backend).await);
        for round in 0..8 {
            let card = id(&app.card(&format!("Doomed {round}")).await);
            let path = format!("/api/cards/{card}/comments");
            let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(25));
            let mut tasks = Vec::new();
            for n in 0..24 {
                let (app, path, barrier) = (app.clone(), path.clone(), barrier.clone());
                tasks.push(tokio::spawn(async move {
                    barrier.wait().await;
                    app.call("POST", &path, Some(json!({"content": format!("zyzzyva{round} {n}")}))).await
                }));
            }
            barrier.wait().await;
            tokio::time::sleep(std::time::Duration::from_millis(round * 2)).await;
            let gone = app.call("DELETE", &format!("/api/cards/{card}"), None).await;
            assert_eq!(gone.status, 200, "{:?}", gone.body);
            for t in tasks {
                let r = t.await.unwrap();
                assert!(r.status == 201 || r.status == 404, "round {round}: {} {:?}", r.status, r.body);
                if r.status == 404 {
                    assert_eq!(r.body["error"], "NOT_FOUND", "{:?}", r.body);
                }
            }
            assert_eq!(app.call("GET", &path, None).await.status, 404);
            let found = app.call("GET", &format!("/api/search?tenant={}&q=zyzzyva{round}", app.tenant), None).await;
            assert_eq!(found.status, 200, "{:?}", found.body);
            assert_eq!(found.body["results"], json!([]), "no index row outlives its card");
            // The index keeps no foreign key (migration 0017): the deletion
            // removes the words of every comment that committed before it.
            let left = crate::history::raw_sql(&app, "DELETE FROM search_terms WHERE card_id = $1", &[card.as_str()]).await;
            assert_eq!(left, 0, "round {round}: no word of the card's comments is left");
        }
    }

    async fn racing_comments_on_one_card_all_land_in_order(backend) {
        let app = std::sync::Arc::new(common::spawn_app(backend).await);
        let card = id(&app.card("Busy").await);
        let path = format!("/api/cards/{card}/comments");
        let mut tasks = Vec::new();
        for n in 0..24 {
            let (app, path) = (app.clone(), path.clone());
            tasks.push(tokio::spawn(async move {
                app.call("POST", &path, Some(json!({"content": format!("racer {n}")}))).await
            }));
        }
        for t in tasks {
            let r = t.await.unwrap();
            assert_eq!(r.status, 201, "{:?}", r.body);
        }
        let list = app.call("GET", &path, None).await;
        let items = list.body.as_array().unwrap();
        assert_eq!(items.len(), 24);
        let created: Vec<&str> = items.iter().map(|c| c["createdAt"].as_str().unwrap()).collect();
        let mut sorted = created.clone();
        sorted.sort();
        assert_eq!(created, sorted, "listed in the order they were written");
    }
}

/// `GET path` with `If-None-Match` (none when empty): status, tag and body.
async fn get_tagged(app: &common::App, path: &str, if_none_match: &str) -> (u16, String, Value) {
    let mut req = app
        .http
        .get(format!("{}{path}", app.base))
        .bearer_auth(&app.token);
    if !if_none_match.is_empty() {
        req = req.header("if-none-match", if_none_match);
    }
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let tag = res
        .headers()
        .get("etag")
        .map_or(String::new(), |v| v.to_str().unwrap().to_string());
    (status, tag, res.json().await.unwrap_or(Value::Null))
}

testkit::on_both_backends! {
    async fn html_on_request_is_safe_and_tagged_apart(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Render").await);
        let path = format!("/api/cards/{card}/comments");
        let content = "**bold** <script>alert(1)</script><img src=x onerror=alert(1)>\n\n\
                       [x](javascript:alert(1)) ![pixel](https://tracker.example/p.gif)\n\n- [x] done";
        let c = app.call("POST", &path, Some(json!({"content": content}))).await;
        assert_eq!(c.status, 201, "{:?}", c.body);
        assert!(c.body.get("contentHtml").is_none(), "no HTML unless asked: {:?}", c.body);

        let (status, plain_tag, plain) = get_tagged(&app, &path, "").await;
        assert_eq!(status, 200);
        assert!(plain[0].get("contentHtml").is_none(), "{plain}");
        let (status, html_tag, rendered) = get_tagged(&app, &format!("{path}?html=true"), "").await;
        assert_eq!(status, 200);
        assert_ne!(html_tag, plain_tag, "two representations, two tags");
        assert_eq!(rendered[0]["content"], content, "the stored text, byte for byte");
        let html = rendered[0]["contentHtml"].as_str().expect("contentHtml").to_ascii_lowercase();
        assert!(html.contains("<strong>bold</strong>"), "{html}");
        // The raw <img> of another source is gone: it loads nothing.
        for bad in ["<script", "onerror", "javascript:", "src="] {
            assert!(!html.contains(bad), "{bad} in {html}");
        }
        assert!(html.contains("href=\"https://tracker.example/p.gif\""), "a foreign image is a link: {html}");
        assert!(html.contains("rel=\"noopener noreferrer nofollow\""), "{html}");
        assert!(html.contains("disabled"), "{html}");
        assert_eq!(get_tagged(&app, &path, "").await.2, plain, "the Markdown read is as before");

        // Each representation answers 304 to its own tag only.
        assert_eq!(get_tagged(&app, &format!("{path}?html=true"), &html_tag).await.0, 304);
        assert_eq!(get_tagged(&app, &format!("{path}?html=true"), &plain_tag).await.0, 200);
        assert_eq!(get_tagged(&app, &path, &html_tag).await.0, 200);
        assert_eq!(get_tagged(&app, &format!("{path}?html=false"), &plain_tag).await.0, 304);

        // An edit may name either tag in If-Match; a stale one is 412.
        let one = format!("/api/comments/{}", id(&c.body));
        let edit = |tag: String, text: &str| {
            let req = app.http.patch(format!("{}{one}", app.base)).bearer_auth(&app.token)
                .header("if-match", tag).json(&json!({"content": text}));
            async move { req.send().await.expect("request").status().as_u16() }
        };
        assert_eq!(edit(html_tag.clone(), "*one*").await, 200);
        assert_eq!(edit(html_tag, "stale").await, 412);
        let (_, fresh, rendered) = get_tagged(&app, &format!("{path}?html=true"), "").await;
        assert_eq!(rendered[0]["contentHtml"], "<p><em>one</em></p>\n");
        let (_, plain_now, _) = get_tagged(&app, &path, "").await;
        assert_eq!(edit(plain_now, "two").await, 200);
        assert_eq!(edit(fresh, "stale").await, 412);

        let r = app.call("GET", &format!("{path}?html=maybe"), None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")), "{:?}", r.body);
        assert!(r.body["details"]["fieldErrors"]["html"].is_array(), "{:?}", r.body);
    }
}
