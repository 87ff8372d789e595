//! `POST /api/markdown` (api.md §24): the preview of text being typed is
//! what the saved text will show.

use serde_json::json;
use testkit::{self as common, on_both_backends};

on_both_backends! {
    async fn a_preview_renders_as_the_saved_text_will_show(backend) {
        let app = common::spawn_app(backend).await;
        let text = "**Goal** <script>alert(1)</script> www.example.org\n\n- [ ] step";
        let preview = app.call("POST", "/api/markdown", Some(json!({"text": text}))).await;
        assert_eq!(preview.status, 200, "{:?}", preview.body);
        let body = json!({"tenantId": app.tenant, "title": "Doc", "description": text});
        let card = app.call("POST", "/api/cards", Some(body)).await.body;
        let path = format!("/api/cards/{}?html=true", card["id"].as_str().unwrap());
        let saved = app.call("GET", &path, None).await.body;
        assert_eq!(preview.body, json!({"html": saved["descriptionHtml"]}));
        let html = preview.body["html"].as_str().unwrap();
        assert!(html.contains("<strong>Goal</strong>") && !html.contains("<script"), "{html}");
        let empty = app.call("POST", "/api/markdown", Some(json!({"text": ""}))).await;
        assert_eq!(empty.body, json!({"html": ""}));
    }

    async fn a_preview_needs_a_credential_and_text_a_description_takes(backend) {
        let app = common::spawn_app(backend).await;
        let anonymous = app.call_as("", "POST", "/api/markdown", Some(json!({"text": "x"}))).await;
        assert_eq!(anonymous.status, 401);
        for body in [json!({}), json!({"text": 1}), json!({"text": "x".repeat(100_001)})] {
            let r = app.call("POST", "/api/markdown", Some(body)).await;
            assert_eq!(r.status, 422, "{:?}", r.body);
            assert!(r.body["details"]["fieldErrors"]["text"].is_array(), "{:?}", r.body);
        }
    }
}
