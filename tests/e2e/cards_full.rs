//! Cards in full (api.md §24): description and due time, the workspace's
//! labels, a card's labels and assignees one at a time, its counts, and the
//! board's tag following them.

use std::sync::Arc;

use serde_json::{json, Value};
use testkit::{self as common, on_both_backends};
use tokio::sync::Barrier;

fn id(v: &Value) -> String {
    v["id"].as_str().expect("id").to_string()
}

fn ids(v: &Value) -> Vec<String> {
    v.as_array()
        .expect("array")
        .iter()
        .map(|x| x.as_str().unwrap().to_string())
        .collect()
}

async fn label(app: &common::App, name: &str) -> String {
    let r = app
        .call(
            "POST",
            "/api/labels",
            Some(json!({"tenantId": app.tenant, "name": name})),
        )
        .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    id(&r.body)
}

/// The account id of the member of `ws` whose name or role is `who`.
async fn member_id(app: &common::App, ws: &str, who: &str) -> String {
    let r = app
        .call("GET", &format!("/api/members?tenant={ws}"), None)
        .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let found = r
        .body
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["name"] == who || m["role"] == who);
    found.expect(who)["accountId"].as_str().unwrap().to_string()
}

on_both_backends! {
    async fn description_and_due_time_are_kept_and_checked(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("Plain").await;
        assert_eq!(card["description"], "");
        assert_eq!(card["dueAt"], Value::Null);
        assert_eq!(card["labelIds"], json!([]));
        assert_eq!(card["assigneeIds"], json!([]));
        assert_eq!(card["checklist"], json!({"done": 0, "total": 0}));
        assert_eq!((card["commentCount"].as_i64(), card["attachmentCount"].as_i64()), (Some(0), Some(0)));

        let text = "  # Plan\n\n- [ ] ship\r\n\ttabbed  ";
        let body = json!({"tenantId": app.tenant, "title": "Full", "description": text,
                          "dueAt": "2026-12-01T10:00:00+02:00"});
        let r = app.call("POST", "/api/cards", Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["description"], text, "byte for byte");
        assert_eq!(r.body["dueAt"], "2026-12-01T08:00:00.000Z", "kept as UTC");
        let path = format!("/api/cards/{}", id(&r.body));

        let r = app.call("PATCH", &path, Some(json!({"dueAt": null, "description": "new"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((r.body["dueAt"].clone(), r.body["description"].clone()), (Value::Null, json!("new")));
        let mut got = app.call("GET", &path, None).await;
        got.body.as_object_mut().unwrap().remove("watching");
        assert_eq!(got.body, r.body);

        // Refused, and nothing changes.
        for (body, field) in [
            (json!({"dueAt": "tomorrow"}), "dueAt"),
            (json!({"dueAt": 5}), "dueAt"),
            (json!({"description": "a\u{7}b"}), "description"),
            (json!({"description": "x".repeat(100_001)}), "description"),
            (json!({"description": null}), "description"),
        ] {
            let r = app.call("PATCH", &path, Some(body.clone())).await;
            assert_eq!(r.status, 422, "{body}");
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{:?}", r.body);
        }
        let mut after = app.call("GET", &path, None).await.body;
        after.as_object_mut().unwrap().remove("watching");
        assert_eq!(after, got.body);
        let r = app.call("PATCH", &path, Some(json!({"description": "x".repeat(100_000)}))).await;
        assert_eq!(r.status, 200);

        // A move with a new due time does both.
        let cols = app.columns().await;
        let body = json!({"columnId": id(&cols[1]), "dueAt": "2027-01-01"});
        let r = app.call("PATCH", &path, Some(body)).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!(r.body["columnId"], id(&cols[1]).as_str());
        assert_eq!(r.body["dueAt"], "2027-01-01T00:00:00.000Z");
        let board = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await;
        let on_board = &board.body["columns"][1]["cards"][0];
        let mut card = app.call("GET", &path, None).await.body;
        card.as_object_mut().unwrap().remove("watching");
        assert_eq!(on_board, &card, "the board's card is the card");
    }

    async fn labels_are_a_workspace_list_in_order(backend) {
        let app = common::spawn_app(backend).await;
        let bug = label(&app, "Bug").await;
        let ux = label(&app, "UX").await;
        let r = app.call("POST", "/api/labels", Some(json!({"tenantId": app.tenant, "name": " bug "}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (409, Some("NAME_TAKEN")), "{:?}", r.body);
        let r = app.call("POST", "/api/labels", Some(json!({"tenantId": app.tenant, "name": "x", "color": "mauve"}))).await;
        assert_eq!(r.status, 422);
        let list = app.call("GET", &format!("/api/labels?tenant={}", app.tenant), None).await;
        assert_eq!(list.status, 200);
        let names: Vec<&str> = list.body.as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
        assert_eq!(names, ["Bug", "UX"]);
        assert_eq!(list.body[0]["accent"], "slate", "default colour");
        assert_eq!(list.body[0]["tenantId"], app.tenant.as_str());

        // A card's labels follow the label order, whatever order they were put in.
        let card = app.card("Labelled").await;
        let path = format!("/api/cards/{}", id(&card));
        let r = app.call("PUT", &format!("{path}/labels/{ux}"), None).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let r = app.call("PUT", &format!("{path}/labels/{bug}"), None).await;
        assert_eq!(ids(&r.body["labelIds"]), [bug.clone(), ux.clone()]);
        let r = app.call("PATCH", &format!("/api/labels/{ux}"), Some(json!({"beforeId": bug, "color": "red", "name": "Design"}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((r.body["accent"].as_str(), r.body["name"].as_str()), (Some("red"), Some("Design")));
        let got = app.call("GET", &path, None).await;
        assert_eq!(ids(&got.body["labelIds"]), [ux.clone(), bug.clone()], "the new label order");
        let r = app.call("PATCH", &format!("/api/labels/{ux}"), Some(json!({"name": "BUG"}))).await;
        assert_eq!(r.status, 409);
        let r = app.call("PATCH", &format!("/api/labels/{ux}"), Some(json!({"afterId": ux}))).await;
        assert_eq!(r.status, 422, "not another label");

        // A deletion takes the label off every card.
        let r = app.call("DELETE", &format!("/api/labels/{bug}"), None).await;
        assert_eq!(r.status, 200);
        let got = app.call("GET", &path, None).await;
        assert_eq!(ids(&got.body["labelIds"]), [ux.as_str()]);
        assert_eq!(app.call("DELETE", &format!("/api/labels/{bug}"), None).await.status, 404);

        // A viewer reads them; it does not write them.
        let viewer = app.account_in(&app.tenant, "Vera", "viewer").await;
        let list = app.call_as(&viewer, "GET", &format!("/api/labels?tenant={}", app.tenant), None).await;
        assert_eq!(list.status, 200);
        let r = app.call_as(&viewer, "PUT", &format!("{path}/labels/{ux}"), None).await;
        assert_eq!(r.status, 403);
        let r = app.call_as(&viewer, "POST", "/api/labels", Some(json!({"tenantId": app.tenant, "name": "V"}))).await;
        assert_eq!(r.status, 403);
    }

    async fn labels_and_assignees_change_one_at_a_time(backend) {
        let app = common::spawn_app(backend).await;
        let bug = label(&app, "Bug").await;
        let card = app.card("Marked").await;
        let path = format!("/api/cards/{}", id(&card));
        let put = app.call("PUT", &format!("{path}/labels/{bug}"), None).await;
        assert_eq!(put.status, 200);
        let again = app.call("PUT", &format!("{path}/labels/{bug}"), None).await;
        assert_eq!((again.status, &again.body), (200, &put.body), "a second PUT changes nothing");
        let del = app.call("DELETE", &format!("{path}/labels/{bug}"), None).await;
        assert_eq!((del.status, del.body["labelIds"].clone()), (200, json!([])));
        let again = app.call("DELETE", &format!("{path}/labels/{bug}"), None).await;
        assert_eq!((again.status, &again.body), (200, &del.body));

        // Another workspace's label, an account that is no member.
        let other = app.workspace("Other").await;
        let me = member_id(&app, &app.tenant, "ADMIN").await;
        app.member(&other, &me, "admin").await;
        let r = app.call("POST", "/api/labels", Some(json!({"tenantId": other, "name": "Far"}))).await;
        assert_eq!(r.status, 201);
        let far = id(&r.body);
        let r = app.call("PUT", &format!("{path}/labels/{far}"), None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("INVALID_LABEL")), "{:?}", r.body);
        app.account_in(&other, "Stranger", "member").await;
        let stranger_id = member_id(&app, &other, "Stranger").await;
        let r = app.call("PUT", &format!("{path}/assignees/{stranger_id}"), None).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("NOT_A_MEMBER")), "{:?}", r.body);
        assert_eq!(app.call("PUT", &format!("{path}/labels/nope"), None).await.status, 404);

        // Assignees keep the order they were assigned in.
        app.account_in(&app.tenant, "Vic", "viewer").await;
        let vic = member_id(&app, &app.tenant, "Vic").await;
        let r = app.call("PUT", &format!("{path}/assignees/{vic}"), None).await;
        assert_eq!(r.status, 200, "a viewer may be assigned: {:?}", r.body);
        let r = app.call("PUT", &format!("{path}/assignees/{me}"), None).await;
        assert_eq!(ids(&r.body["assigneeIds"]), [vic.clone(), me.clone()]);
        let r = app.call("DELETE", &format!("{path}/assignees/{vic}"), None).await;
        assert_eq!(ids(&r.body["assigneeIds"]), [me.as_str()]);
        // Removing a member unassigns it from every card of the workspace.
        let r = app.call("PUT", &format!("{path}/assignees/{vic}"), None).await;
        assert_eq!(ids(&r.body["assigneeIds"]), [me.clone(), vic.clone()]);
        let ws = board_core::WorkspaceId::parse(&app.tenant).unwrap();
        let account = board_core::AccountId::parse(&vic).unwrap();
        app.operator().admin().remove_member(&ws, &account).await.unwrap();
        let got = app.call("GET", &path, None).await;
        assert_eq!(ids(&got.body["assigneeIds"]), [me.as_str()]);
        let r = app.call("PUT", &format!("{path}/assignees/{vic}"), None).await;
        assert_eq!(r.status, 422, "no longer a member");
        app.member(&app.tenant, &vic, "viewer").await;

        // A new card with both, in one request.
        let body = json!({"tenantId": app.tenant, "title": "Both", "labelIds": [bug], "assigneeIds": [vic, me]});
        let r = app.call("POST", "/api/cards", Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(ids(&r.body["labelIds"]), [bug.as_str()]);
        assert_eq!(ids(&r.body["assigneeIds"]), [vic.clone(), me.clone()]);
        let before = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await;
        let body = json!({"tenantId": app.tenant, "title": "Refused", "labelIds": [far]});
        let r = app.call("POST", "/api/cards", Some(body)).await;
        assert_eq!(r.status, 422, "{:?}", r.body);
        let after = app.call("GET", &format!("/api/board?tenant={}", app.tenant), None).await;
        assert_eq!(before.body, after.body, "a refused card leaves no row");
    }

    async fn counts_and_the_board_tag_follow_every_change(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("Counted").await;
        let path = format!("/api/cards/{}", id(&card));
        let board = format!("/api/board?tenant={}", app.tenant);
        let tag = |app: &common::App| {
            let board = board.clone();
            let app_base = app.base.clone();
            let token = app.token.clone();
            async move {
                let r = reqwest::Client::new().get(format!("{app_base}{board}")).bearer_auth(token).send().await.unwrap();
                r.headers()["etag"].to_str().unwrap().to_string()
            }
        };
        let t0 = tag(&app).await;
        let r = app.call("POST", &format!("{path}/comments"), Some(json!({"content": "hi"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let got = app.call("GET", &path, None).await;
        assert_eq!(got.body["commentCount"], 1);
        let t1 = tag(&app).await;
        assert_ne!(t0, t1, "a new comment changes the board");
        let bug = label(&app, "Bug").await;
        let t2 = tag(&app).await;
        assert_eq!(app.call("PUT", &format!("{path}/labels/{bug}"), None).await.status, 200);
        let t3 = tag(&app).await;
        assert_ne!(t2, t3, "a label put on a card changes the board");
        let r = app.call("PATCH", &format!("/api/labels/{bug}"), Some(json!({"name": "Defect"}))).await;
        assert_eq!(r.status, 200);
        let board_now = app.call("GET", &board, None).await;
        assert_eq!(board_now.body["columns"][0]["cards"][0]["commentCount"], 1);
        assert_eq!(ids(&board_now.body["columns"][0]["cards"][0]["labelIds"]), [bug]);
    }

    // api.md §24: two people labelling at once lose nothing. Each label is a
    // row of its own (`card_labels`), so no write reads the card's labels to
    // decide what to write: 16 clients over two server processes, each adding
    // its own label, and every label stays.
    async fn racing_labels_over_two_servers_all_stay(backend) {
        let app = Arc::new(common::spawn_app(backend).await);
        let second = app.second_server().await;
        let card = app.card("Raced").await;
        let path = format!("/api/cards/{}", id(&card));
        let mut labels = Vec::new();
        for i in 0..16 {
            labels.push(label(&app, &format!("L{i:02}")).await);
        }
        let barrier = Arc::new(Barrier::new(labels.len()));
        let mut tasks = Vec::new();
        for (i, l) in labels.iter().enumerate() {
            let (app, barrier, path, l) = (app.clone(), barrier.clone(), path.clone(), l.clone());
            let base = if i % 2 == 0 { app.base.clone() } else { second.base.clone() };
            tasks.push(tokio::spawn(async move {
                barrier.wait().await;
                app.call_at(&base, &app.token, "PUT", &format!("{path}/labels/{l}"), None).await
            }));
        }
        for t in tasks {
            let r = t.await.unwrap();
            assert_eq!(r.status, 200, "{:?}", r.body);
        }
        let got = app.call("GET", &path, None).await;
        assert_eq!(ids(&got.body["labelIds"]), labels, "every label stays, in label order");
    }
}

/// `METHOD path` with one header (none when `name` is empty): status, tag and body.
async fn with_header(
    app: &common::App,
    method: &str,
    path: &str,
    header: (&str, &str),
    body: Option<Value>,
) -> (u16, String, Value) {
    let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
    let mut req = app
        .http
        .request(method, format!("{}{path}", app.base))
        .bearer_auth(&app.token);
    if !header.0.is_empty() {
        req = req.header(header.0, header.1);
    }
    if let Some(b) = body {
        req = req.json(&b);
    }
    let res = req.send().await.expect("request");
    let status = res.status().as_u16();
    let tag = res
        .headers()
        .get("etag")
        .map_or(String::new(), |v| v.to_str().unwrap().to_string());
    (status, tag, res.json().await.unwrap_or(Value::Null))
}

on_both_backends! {
    async fn the_description_renders_safely_on_request(backend) {
        let app = common::spawn_app(backend).await;
        let text = "**Goal** <script>alert(1)</script>\n\n[x](javascript:alert(1)) \
                    ![p](https://tracker.example/p.gif)\n\n- [ ] step";
        let body = json!({"tenantId": app.tenant, "title": "Doc", "description": text});
        let card = app.call("POST", "/api/cards", Some(body)).await.body;
        let path = format!("/api/cards/{}", id(&card));
        let (status, plain_tag, plain) = with_header(&app, "GET", &path, ("", ""), None).await;
        assert_eq!(status, 200);
        assert!(plain.get("descriptionHtml").is_none(), "{plain}");
        let (status, html_tag, rendered) = with_header(&app, "GET", &format!("{path}?html=true"), ("", ""), None).await;
        assert_eq!(status, 200);
        assert_ne!(plain_tag, html_tag, "two representations, two tags");
        assert_eq!(rendered["description"], text, "the stored text, byte for byte");
        let html = rendered["descriptionHtml"].as_str().expect("descriptionHtml").to_ascii_lowercase();
        assert!(html.contains("<strong>goal</strong>"), "{html}");
        assert!(!html.contains("<script") && !html.contains("javascript:"), "{html}");
        assert!(!html.contains("<img"), "a foreign image is a link: {html}");
        assert!(html.contains("disabled"), "task lists are disabled checkboxes: {html}");
        let (status, _, _) = with_header(&app, "GET", &format!("{path}?html=true"), ("if-none-match", &html_tag), None).await;
        assert_eq!(status, 304);
        let r = app.call("GET", &format!("{path}?html=maybe"), None).await;
        assert_eq!(r.status, 422);
        // Either tag lets a PATCH through; a stale one does not.
        let (status, _, _) = with_header(&app, "PATCH", &path, ("if-match", &html_tag), Some(json!({"dueAt": "2027-01-01"}))).await;
        assert_eq!(status, 200);
        let (status, _, _) = with_header(&app, "PATCH", &path, ("if-match", &plain_tag), Some(json!({"dueAt": null}))).await;
        assert_eq!(status, 412);
    }

    async fn a_checklist_keeps_its_order_who_checked_and_its_limit(backend) {
        let app = common::spawn_app(backend).await;
        let card = app.card("Steps").await;
        let path = format!("/api/cards/{}", id(&card));
        let list = format!("{path}/checklist");
        let mut items = Vec::new();
        for text in ["one", "two", "three"] {
            let r = app.call("POST", &list, Some(json!({"text": format!("  {text} ")}))).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            assert_eq!(r.body["text"], text, "trimmed");
            assert_eq!((r.body["done"].clone(), r.body["doneBy"].clone()), (json!(false), Value::Null));
            items.push(id(&r.body));
        }
        let r = app.call("POST", &list, Some(json!({"text": "zero", "beforeId": items[0]}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let zero = id(&r.body);
        let (_, tag, got) = with_header(&app, "GET", &list, ("", ""), None).await;
        let texts: Vec<&str> = got.as_array().unwrap().iter().map(|i| i["text"].as_str().unwrap()).collect();
        assert_eq!(texts, ["zero", "one", "two", "three"]);

        // Checked under the list's tag: who and when; a stale tag changes nothing.
        let item = format!("/api/checklist/{}", items[1]);
        let (status, _, done) = with_header(&app, "PATCH", &item, ("if-match", &tag), Some(json!({"done": true}))).await;
        assert_eq!(status, 200, "{done}");
        assert_eq!(done["done"], true);
        assert!(done["doneBy"].is_string() && done["doneAt"].is_string(), "{done}");
        let (status, _, _) = with_header(&app, "PATCH", &item, ("if-match", &tag), Some(json!({"text": "late"}))).await;
        assert_eq!(status, 412);
        let got = app.call("GET", &path, None).await.body;
        assert_eq!(got["checklist"], json!({"done": 1, "total": 4}));
        let r = app.call("PATCH", &item, Some(json!({"done": false, "afterId": items[2]}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        assert_eq!((r.body["doneBy"].clone(), r.body["doneAt"].clone()), (Value::Null, Value::Null));
        let got = app.call("GET", &list, None).await.body;
        let texts: Vec<&str> = got.as_array().unwrap().iter().map(|i| i["text"].as_str().unwrap()).collect();
        assert_eq!(texts, ["zero", "one", "three", "two"]);
        for bad in [json!({"text": " "}), json!({"done": "yes"}), json!({"afterId": items[1]})] {
            let r = app.call("PATCH", &item, Some(bad.clone())).await;
            assert_eq!(r.status, 422, "{bad}");
        }
        assert_eq!(app.call("DELETE", &format!("/api/checklist/{zero}"), None).await.status, 200);
        assert_eq!(app.call("DELETE", &format!("/api/checklist/{zero}"), None).await.status, 404);
        let got = app.call("GET", &path, None).await.body;
        assert_eq!(got["checklist"], json!({"done": 0, "total": 3}));

        // At most 500 items.
        for i in 3..500 {
            let r = app.call("POST", &list, Some(json!({"text": format!("item {i}")}))).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
        }
        let r = app.call("POST", &list, Some(json!({"text": "one too many"}))).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("TOO_MANY_ITEMS")), "{:?}", r.body);
        let got = app.call("GET", &path, None).await.body;
        assert_eq!(got["checklist"]["total"], 500);
    }
}

/// The time `ms` milliseconds from now, as the contract writes it.
fn from_now(ms: i64) -> String {
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    board_core::Timestamp::from_millis(now + ms).to_string()
}

fn titles(page: &Value) -> Vec<String> {
    page["cards"]
        .as_array()
        .expect("cards")
        .iter()
        .map(|c| c["title"].as_str().unwrap().to_string())
        .collect()
}

on_both_backends! {
    async fn my_cards_filter_by_assignee_label_and_due(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let me = member_id(&app, &t, "ADMIN").await;
        let bug = label(&app, "Bug").await;
        const DAY: i64 = 86_400_000;
        let now_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis() as i64;
        let end_of_today = (now_ms / DAY + 1) * DAY - 1;
        let soon = (end_of_today - now_ms).min(60_000);
        let make = |title: &'static str, due: Option<String>, labels: Vec<String>, assignees: Vec<String>| {
            let body = json!({"tenantId": t, "title": title, "dueAt": due, "labelIds": labels, "assigneeIds": assignees});
            let app = &app;
            async move {
                let r = app.call("POST", "/api/cards", Some(body)).await;
                assert_eq!(r.status, 201, "{:?}", r.body);
                id(&r.body)
            }
        };
        make("D none", None, vec![], vec![]).await;
        make("C in 3 days", Some(from_now(3 * DAY)), vec![], vec![me.clone()]).await;
        make("B today", Some(from_now(soon)), vec![bug.clone()], vec![]).await;
        make("A yesterday", Some(from_now(-DAY)), vec![], vec![me.clone()]).await;
        let list = |q: String| {
            let app = &app;
            async move {
                let r = app.call("GET", &format!("/api/cards?{q}"), None).await;
                assert_eq!(r.status, 200, "{q}: {:?}", r.body);
                r.body
            }
        };
        assert_eq!(titles(&list(format!("tenant={t}")).await), ["A yesterday", "B today", "C in 3 days", "D none"],
                   "by due time, none last");
        assert_eq!(titles(&list(format!("tenant={t}&assignee=me")).await), ["A yesterday", "C in 3 days"]);
        assert_eq!(titles(&list(format!("tenant={t}&assignee={me}")).await), ["A yesterday", "C in 3 days"]);
        assert_eq!(titles(&list(format!("tenant={t}&label={bug}")).await), ["B today"]);
        assert_eq!(titles(&list(format!("tenant={t}&due=overdue")).await), ["A yesterday"]);
        assert_eq!(titles(&list(format!("tenant={t}&due=today")).await), ["B today"]);
        assert_eq!(titles(&list(format!("tenant={t}&due=week&tz=UTC")).await), ["B today", "C in 3 days"]);
        assert_eq!(titles(&list(format!("tenant={t}&due=none")).await), ["D none"]);


        // assignee=me without tenant: every workspace the account reaches.
        let other = app.workspace("Other").await;
        app.member(&other, &me, "member").await;
        let body = json!({"tenantId": other, "title": "E elsewhere", "assigneeIds": [me]});
        assert_eq!(app.call("POST", "/api/cards", Some(body)).await.status, 201);
        assert_eq!(titles(&list("assignee=me".into()).await), ["A yesterday", "C in 3 days", "E elsewhere"]);

        // Pages of one card walk the whole list once.
        let mut seen = Vec::new();
        let mut cursor = String::new();
        loop {
            let page = list(format!("tenant={t}&limit=1{cursor}")).await;
            seen.extend(titles(&page));
            match page["nextCursor"].as_str() {
                Some(c) => cursor = format!("&cursor={c}"),
                None => break,
            }
        }
        assert_eq!(seen, ["A yesterday", "B today", "C in 3 days", "D none"]);

        // Archived cards, with a filter.
        let d = list(format!("tenant={t}&due=none")).await["cards"][0]["id"].as_str().unwrap().to_string();
        assert_eq!(app.call("POST", &format!("/api/cards/{d}/archive"), None).await.status, 200);
        assert_eq!(titles(&list(format!("tenant={t}&due=none&archived=true")).await), ["D none"]);
        assert!(titles(&list(format!("tenant={t}&due=none")).await).is_empty());

        // Days of a named zone: Etc/GMT-14 is UTC+14 all year, so its day is known here.
        let zone = label(&app, "Zone").await;
        const EAST: i64 = 14 * 3_600_000;
        let local_today = (now_ms + EAST).div_euclid(DAY) * DAY - EAST;
        let end_local_today = board_core::Timestamp::from_millis(local_today + DAY - 60_000).to_string();
        let local_tomorrow = board_core::Timestamp::from_millis(local_today + DAY + 60_000).to_string();
        make("Z1 late today, UTC+14", Some(end_local_today), vec![zone.clone()], vec![]).await;
        make("Z2 early tomorrow, UTC+14", Some(local_tomorrow), vec![zone.clone()], vec![]).await;
        let zoned = |due: &str| format!("tenant={t}&label={zone}&due={due}&tz=Etc/GMT-14");
        assert_eq!(titles(&list(zoned("today")).await), ["Z1 late today, UTC+14"]);
        assert_eq!(titles(&list(zoned("week")).await), ["Z1 late today, UTC+14", "Z2 early tomorrow, UTC+14"]);
        // Zone names are the IANA database's, ignoring case.
        assert_eq!(titles(&list(zoned("today").replace("Etc/GMT-14", "etc/gmt-14")).await), ["Z1 late today, UTC+14"]);

        for (q, field) in [
            (format!("tenant={t}&due=later"), "due"),
            (format!("tenant={t}&tz=Mars/Olympus_Mons"), "tz"),
            (format!("tenant={t}&assignee=you"), "assignee"),
            ("due=today".to_string(), "tenant"),
        ] {
            let r = app.call("GET", &format!("/api/cards?{q}"), None).await;
            assert_eq!(r.status, 422, "{q}: {:?}", r.body);
            assert!(r.body["details"]["fieldErrors"][field].is_array(), "{q}: {:?}", r.body);
        }
        let stranger_ws = app.workspace("Far").await;
        let stranger = app.account_in(&stranger_ws, "Sam", "member").await;
        let r = app.call_as(&stranger, "GET", &format!("/api/cards?tenant={t}&due=later"), None).await;
        assert_eq!(r.status, 403, "403 before 422: {:?}", r.body);
    }
}

on_both_backends! {
    async fn search_finds_descriptions_and_checklist_items(backend) {
        let app = common::spawn_app(backend).await;
        let t = app.tenant.clone();
        let body = json!({"tenantId": t, "title": "Release", "description": "Update the changelog first"});
        let card = app.call("POST", "/api/cards", Some(body)).await.body;
        let path = format!("/api/cards/{}", id(&card));
        let item = app.call("POST", &format!("{path}/checklist"), Some(json!({"text": "Tag the commit"}))).await.body;
        let search = |q: &'static str| {
            let app = &app;
            let t = t.clone();
            async move {
                let r = app.call("GET", &format!("/api/search?tenant={t}&q={q}"), None).await;
                assert_eq!(r.status, 200, "{q}: {:?}", r.body);
                r.body["results"].as_array().unwrap().clone()
            }
        };
        let found = search("changelog").await;
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0]["matches"][0]["field"], "description");
        assert!(found[0]["matches"][0]["snippet"].as_str().unwrap().contains("changelog"));
        let found = search("tag%20comm").await;
        assert_eq!(found[0]["matches"][0]["field"], "checklist", "{found:?}");
        assert_eq!(found[0]["matches"][0]["itemId"], item["id"]);

        // Edited and removed text is no longer found.
        let r = app.call("PATCH", &path, Some(json!({"description": "Nothing here"}))).await;
        assert_eq!(r.status, 200);
        assert!(search("changelog").await.is_empty());
        let r = app.call("PATCH", &format!("/api/checklist/{}", id(&item)), Some(json!({"text": "Push it"}))).await;
        assert_eq!(r.status, 200);
        assert!(search("tag").await.is_empty());
        assert_eq!(search("push").await.len(), 1);
        assert_eq!(app.call("DELETE", &format!("/api/checklist/{}", id(&item)), None).await.status, 200);
        assert!(search("push").await.is_empty());
        // A deleted card takes its description's words along.
        assert_eq!(search("nothing").await.len(), 1);
        assert_eq!(app.call("DELETE", &path, None).await.status, 200);
        assert!(search("nothing").await.is_empty());
    }
}
