//! api.md §21, text: names refuse control characters and names of only
//! invisible characters (422, nothing stored); comments keep line breaks and
//! tabs and refuse every other control character.

use serde_json::json;
use testkit::{self as common, on_both_backends};

use crate::uploads::{id, rows_in};

/// Names a terminal or a list would show wrongly or not at all.
const BAD_NAMES: &[&str] = &[
    "ctl\u{1}\u{1b}[31mred",
    "tab\tin",
    "line\nbreak",
    "del\u{7f}",
    "c1\u{85}",
    "\u{200b}",
    " \u{feff}\u{2060} ",
];

on_both_backends! {
    async fn names_with_control_or_only_invisible_characters_are_422(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let card = id(&app.card("Kept").await);
        let column = app.columns().await[0]["id"].as_str().unwrap().to_string();
        let (cards, columns) = (rows_in(&app, "cards").await, rows_in(&app, "columns").await);
        let events = rows_in(&app, "events").await;
        for bad in BAD_NAMES {
            for (method, path, body, field) in [
                ("POST", "/api/cards".to_string(), json!({"tenantId": t, "title": bad}), "title"),
                ("PATCH", format!("/api/cards/{card}"), json!({"title": bad}), "title"),
                ("POST", "/api/columns".to_string(), json!({"tenantId": t, "name": bad}), "name"),
                ("PATCH", format!("/api/columns/{column}"), json!({"name": bad}), "name"),
            ] {
                let r = app.call(method, &path, Some(body)).await;
                assert_eq!(r.status, 422, "{method} {path} {bad:?}: {:?}", r.body);
                assert_eq!(r.body["error"], "VALIDATION_FAILED");
                let message = r.body["details"]["fieldErrors"][field][0].as_str().unwrap();
                assert!(message.contains("control") || message.contains("visible"), "{message}");
            }
        }
        assert_eq!(rows_in(&app, "cards").await, cards, "no card");
        assert_eq!(rows_in(&app, "columns").await, columns, "no column");
        assert_eq!(rows_in(&app, "events").await, events, "no event");
        let r = app.call("GET", &format!("/api/cards/{card}"), None).await;
        assert_eq!(r.body["title"], "Kept");
        // Invisible characters inside a visible name are fine.
        let r = app.call("POST", "/api/cards", Some(json!({"tenantId": t, "title": "zero\u{200b}width"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
    }

    async fn comments_keep_line_breaks_and_tabs_only(backend) {
        let app = common::spawn_app(backend).await;
        let card = id(&app.card("Talk").await);
        let path = format!("/api/cards/{card}/comments");
        let ok = "line one\r\n\tindented\n";
        let r = app.call("POST", &path, Some(json!({"content": ok}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["content"], ok, "kept byte for byte");
        let comment = id(&r.body);
        let comments = rows_in(&app, "comments").await;
        for bad in ["bell\u{7}", "esc \u{1b}[31mred", "vt\u{b}", "c1\u{9b}"] {
            let r = app.call("POST", &path, Some(json!({"content": bad}))).await;
            assert_eq!(r.status, 422, "{bad:?}: {:?}", r.body);
            assert!(r.body["details"]["fieldErrors"]["content"][0].as_str().unwrap().contains("control"));
            let r = app.call("PATCH", &format!("/api/comments/{comment}"), Some(json!({"content": bad}))).await;
            assert_eq!(r.status, 422, "{bad:?}: {:?}", r.body);
        }
        assert_eq!(rows_in(&app, "comments").await, comments);
        let r = app.call("GET", &path, None).await;
        assert_eq!(r.body[0]["content"], ok, "unchanged");
    }

    async fn big_reads_give_text_back_byte_for_byte(backend) {
        // The thread, the board and the history read thousands of rows at
        // once (on SQLite as one JSON text: `store::big_read`).
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let odd = "\"quoted\" back\\slash \\u0041 é 😀 </script> zero\u{200b}width {\"a\":[1]}";
        let card = id(&app.card(odd).await);
        let path = format!("/api/cards/{card}/comments");
        let contents = [format!("{odd}\r\n\tline"), "null".to_string(), "1e400".to_string()];
        for c in &contents {
            let r = app.call("POST", &path, Some(json!({"content": c}))).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
        }
        let r = app.call("GET", &path, None).await;
        let got: Vec<&str> = r.body.as_array().unwrap().iter().map(|c| c["content"].as_str().unwrap()).collect();
        assert_eq!(got, contents, "the thread, in order");
        let r = app.call("POST", "/api/columns", Some(json!({"tenantId": t, "name": odd}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let column = id(&r.body);
        let r = app.call("PATCH", &format!("/api/cards/{card}"), Some(json!({"columnId": column}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = app.call("GET", &format!("/api/cards/{card}/history"), None).await;
        assert_eq!(r.body[1]["toName"], odd, "{:?}", r.body);
        assert!(r.body[0]["fromName"].is_null());
        let r = app.call("GET", &format!("/api/board?tenant={t}"), None).await;
        let cards: Vec<&serde_json::Value> =
            r.body["columns"].as_array().unwrap().iter().flat_map(|c| c["cards"].as_array().unwrap()).collect();
        assert_eq!(cards.len(), 1, "{:?}", r.body);
        assert_eq!(cards[0]["title"], odd);
        assert!(cards[0]["position"].is_i64());
        assert!(cards[0]["projectId"].is_null());
    }
}
