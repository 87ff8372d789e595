//! Moving in from Trello (api.md §28): `POST /api/imports/trello` with exports
//! built in Trello's shape (`testkit::trello`): what becomes what, a newer
//! export adding only what is new, refusals that leave every table as it was,
//! the dry run, and the role checked before the file is read.

use serde_json::{json, Value};
use testkit::trello::TrelloBoard;
use testkit::{self as common, on_both_backends, App};

use crate::uploads::pool;

const PATH: &str = "/api/imports/trello";

/// Posts `file` for the workspace `ws` with `token`, and the other fields.
async fn import(
    app: &App,
    token: &str,
    ws: &str,
    file: Vec<u8>,
    extra: &[(&str, &str)],
) -> common::Res {
    let mut parts = vec![("tenantId", "", ws.as_bytes().to_vec())];
    for (k, v) in extra {
        parts.push((k, "", v.as_bytes().to_vec()));
    }
    parts.push(("file", "board.json", file));
    app.upload(token, PATH, &parts).await
}

/// Rows of every table of the schema, by table.
async fn every_table(app: &App) -> Vec<(String, i64)> {
    let pool = pool(app).await;
    let mut out = Vec::new();
    for table in board_core::TABLES
        .iter()
        .chain(["card_counts", "card_commenters"].iter())
    {
        let sql = format!("SELECT COUNT(*) FROM {table}");
        let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
            .fetch_one(&pool)
            .await
            .unwrap();
        out.push((table.to_string(), n));
    }
    pool.close().await;
    out
}

/// One value of the test database.
async fn scalar(app: &App, sql: &str) -> i64 {
    let pool = pool(app).await;
    let n: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
        .fetch_one(&pool)
        .await
        .unwrap();
    pool.close().await;
    n
}

/// The id of the card titled `title`, archived or not.
async fn card_id(app: &App, title: &str) -> String {
    let pool = pool(app).await;
    let id: String = sqlx::query_scalar("SELECT id FROM cards WHERE title = $1")
        .bind(title)
        .fetch_one(&pool)
        .await
        .unwrap_or_else(|_| panic!("no card {title:?}"));
    pool.close().await;
    id
}

/// The board of the story: a list matching the first column by name, a
/// closed list, labels (one unnamed, one unused), three members (one mapped by
/// name, one by the form, one not at all), and cards with every kind of part.
struct Story {
    board: TrelloBoard,
    ann: String,
    carol: String,
    doing: String,
    first: String,
}

const LONG: &str =
    "A card whose name goes on and on well past the hundred characters a title holds, \
                    so that it must be cut at a word";
const UNICODE: &str = "Café ☕ — naïve 日本語 🚀";
const DESC: &str = "line one\r\n\ttabbed  \n\n**bold** ünïcödé";
const SAID: &str = "Hello **world** 👋\r\n  spaced  ";

fn story(first_column: &str) -> Story {
    let mut b = TrelloBoard::new("Product Roadmap 🗺");
    let ann = b.member("ann", "Ann Smith");
    let bob = b.member("bob", "Robert Jones");
    let carol = b.member("carol", "Carol Wu");
    let first = b.list(&format!("  {}  ", first_column.to_uppercase()), false);
    let doing = b.list("Doing ✨", false);
    let old = b.list("Old stuff", true);
    let bug = b.label("Bug", Some("red"));
    let green = b.label("", Some("green"));
    b.label("Unused", Some("blue_dark"));
    let a = b.card(&first, UNICODE, DESC, &ann);
    b.label_card(&a, &bug);
    b.label_card(&a, &green);
    for m in [&ann, &bob, &carol] {
        b.assign(&a, m);
    }
    b.set(&a, "due", json!("2026-05-01T12:00:00.000Z"));
    b.checklist(&a, "Before", &[("one", true), ("two", false)]);
    b.checklist(&a, "After", &[("three", false)]);
    b.attach(
        &a,
        "spec [v2].pdf",
        "https://trello.com/1/cards/x/attachments/y/download/spec.pdf",
    );
    b.comment(&a, &ann, SAID);
    b.comment(&a, &carol, "from carol");
    b.move_card(&a, &doing, &ann);
    b.card(&first, LONG, "", &bob);
    let closed = b.card(&doing, "Closed card", "", &ann);
    b.set(&closed, "closed", json!(true));
    let e = b.card(&old, "In a closed list", "", &ann);
    b.checklist(&e, "Only", &[("solo", false)]);
    Story {
        board: b,
        ann,
        carol,
        doing,
        first,
    }
}

on_both_backends! {
    async fn a_trello_board_comes_whole(backend) {
        let app = common::spawn_app(backend).await;
        let ws = app.tenant.clone();
        let first_column = app.columns().await[0]["name"].as_str().unwrap().to_string();
        app.account_in(&ws, "ann smith", "member").await;
        app.account_in(&ws, "bobby", "member").await;
        let bobby = app.operator().admin().find_account("bobby").await.unwrap().id.to_string();
        let s = story(&first_column);
        let members = json!({"bob": bobby}).to_string();
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[("members", &members)]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let b = &r.body;
        assert_eq!(b["board"], json!({"name": "Product Roadmap 🗺"}));
        assert_eq!(b["columns"], json!({"matched": 1, "created": 2}));
        assert_eq!(b["cards"], json!({"created": 4, "archived": 2, "skipped": 0}));
        assert_eq!(b["labels"], json!({"matched": 0, "created": 3}));
        assert_eq!((b["checklistItems"].as_i64(), b["comments"].as_i64()), (Some(4), Some(2)));
        assert_eq!((b["historyEntries"].as_i64(), b["attachmentLinks"].as_i64()), (Some(1), Some(1)));
        assert_eq!(b["unmappedMembers"], json!([{"id": s.carol, "username": "carol", "fullName": "Carol Wu"}]));
        assert_eq!(b["warnings"], json!([]));

        // Columns: the first list matched, the others new at the end, in order.
        let names: Vec<String> = app.columns().await.iter().map(|c| c["name"].as_str().unwrap().to_string()).collect();
        assert_eq!(names.iter().filter(|n| **n == first_column).count(), 1);
        assert_eq!(names[names.len() - 2..], ["Doing ✨".to_string(), "Old stuff".to_string()]);

        // The card in full.
        let a = card_id(&app, UNICODE).await;
        let card = app.call("GET", &format!("/api/cards/{a}"), None).await.body;
        assert!(card["description"].as_str().unwrap().starts_with(DESC), "{card:?}");
        assert!(card["description"].as_str().unwrap().ends_with(
            "\n\nAttachments:\n- [spec \\[v2\\].pdf](<https://trello.com/1/cards/x/attachments/y/download/spec.pdf>)\n"),
            "{card:?}");
        assert_eq!(card["dueAt"], "2026-05-01T12:00:00.000Z");
        assert_eq!(card["labelIds"].as_array().unwrap().len(), 2);
        assert_eq!(card["assigneeIds"].as_array().unwrap().len(), 2, "ann by name, bob by the form");
        let labels = app.call("GET", &format!("/api/labels?tenant={ws}"), None).await.body;
        let label_names: Vec<&str> = labels.as_array().unwrap().iter().map(|l| l["name"].as_str().unwrap()).collect();
        assert_eq!(label_names, ["Bug", "green", "Unused"]);
        assert_eq!(labels[2]["accent"], "blue");
        let items = app.call("GET", &format!("/api/cards/{a}/checklist"), None).await.body;
        let items: Vec<(String, bool)> = items.as_array().unwrap().iter()
            .map(|i| (i["text"].as_str().unwrap().to_string(), i["done"].as_bool().unwrap())).collect();
        assert_eq!(items, [("Before: one".to_string(), true), ("Before: two".into(), false), ("After: three".into(), false)]);

        // Comments: byte for byte with their dates; the unmapped author named.
        let comments = app.call("GET", &format!("/api/cards/{a}/comments"), None).await.body;
        let comments = comments.as_array().unwrap();
        assert_eq!(comments.len(), 2);
        assert_eq!(comments[0]["content"], SAID);
        let ann_account = app.operator().admin().find_account("ann smith").await.unwrap().id.to_string();
        assert_eq!(comments[0]["authorId"], ann_account.as_str());
        assert!(comments[0]["createdAt"].as_str().unwrap().starts_with("2024-03-01T"), "{comments:?}");
        let carol_said = comments[1]["content"].as_str().unwrap();
        assert!(carol_said.starts_with("*Carol Wu (@carol), on Trello, 2024-03-01T") && carol_said.ends_with(":*\n\nfrom carol"), "{carol_said:?}");
        assert_ne!(comments[1]["authorId"], ann_account.as_str());

        // History: created in the first list at its date, then the move.
        let history = app.call("GET", &format!("/api/cards/{a}/history"), None).await.body;
        let history = history.as_array().unwrap();
        assert_eq!(history.len(), 2, "{history:?}");
        assert_eq!((history[0]["fromName"].clone(), history[0]["toName"].as_str()), (Value::Null, Some(first_column.as_str())));
        assert_eq!((history[1]["fromName"].as_str(), history[1]["toName"].as_str()), (Some(first_column.as_str()), Some("Doing ✨")));
        assert!(history[1]["movedAt"].as_str().unwrap().starts_with("2024-03-01T"));
        assert_eq!(card["createdAt"], history[0]["movedAt"]);
        assert!(!s.doing.is_empty() && !s.first.is_empty() && !s.ann.is_empty());

        // A long name cut at a word, whole in the description; archived cards.
        let long_title: String = sqlx::query_scalar("SELECT title FROM cards WHERE title LIKE 'A card whose%'")
            .fetch_one(&pool(&app).await).await.unwrap();
        let kept = long_title.strip_suffix('…').expect("an ellipsis marks the cut");
        assert!(long_title.chars().count() <= 100 && LONG.starts_with(kept) && LONG[kept.len()..].starts_with(' '), "{long_title}");
        let long = app.call("GET", &format!("/api/cards/{}", card_id(&app, &long_title).await), None).await.body;
        assert!(long["description"].as_str().unwrap().starts_with(LONG));
        for title in ["Closed card", "In a closed list"] {
            let c = app.call("GET", &format!("/api/cards/{}", card_id(&app, title).await), None).await.body;
            assert!(c["archivedAt"].is_string(), "{title}: {c:?}");
        }
        let solo = app.call("GET", &format!("/api/cards/{}/checklist", card_id(&app, "In a closed list").await), None).await.body;
        assert_eq!(solo[0]["text"], "solo", "one checklist: no prefix");

        // One event for the whole import, none per card; the words are found.
        assert_eq!(scalar(&app, "SELECT COUNT(*) FROM events WHERE type = 'import.completed'").await, 1);
        assert_eq!(scalar(&app, "SELECT COUNT(*) FROM events WHERE type LIKE 'card.%' OR type LIKE 'comment.%'").await, 0);
        let found = app.call("GET", &format!("/api/search?tenant={ws}&q=carol"), None).await;
        assert_eq!(found.status, 200, "{:?}", found.body);
        assert!(found.body.to_string().contains(&a), "{:?}", found.body);
        let check = app.operator().admin().check_counts().await.unwrap();
        assert!(check.is_empty(), "{check:?}");
    }

    async fn a_newer_export_adds_only_what_is_new(backend) {
        let app = common::spawn_app(backend).await;
        let ws = app.tenant.clone();
        let first_column = app.columns().await[0]["name"].as_str().unwrap().to_string();
        let mut s = story(&first_column);
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let before = every_table(&app).await;

        // The same file again adds nothing.
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["cards"], json!({"created": 0, "archived": 0, "skipped": 4}));
        assert_eq!(r.body["columns"], json!({"matched": 3, "created": 0}));
        assert_eq!(r.body["labels"], json!({"matched": 3, "created": 0}));
        assert_eq!((r.body["comments"].as_i64(), r.body["checklistItems"].as_i64()), (Some(0), Some(0)));
        let after: Vec<_> = every_table(&app).await.into_iter().filter(|(t, _)| !t.starts_with("event")).collect();
        let before_: Vec<_> = before.iter().filter(|(t, _)| !t.starts_with("event")).cloned().collect();
        assert_eq!(after, before_);

        // A newer export: a new card and comments on an old and the new card.
        let a = s.board.to_value()["cards"][0]["id"].as_str().unwrap().to_string();
        let newer = s.board.card(&s.first, "Added later", "", &s.ann);
        s.board.comment(&a, &s.ann, "a second thought");
        s.board.comment(&newer, &s.ann, "on the new card");
        s.board.checklist(&newer, "New", &[("x", false)]);
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["cards"], json!({"created": 1, "archived": 0, "skipped": 4}));
        assert_eq!((r.body["comments"].as_i64(), r.body["checklistItems"].as_i64()), (Some(2), Some(1)));
        let old = card_id(&app, UNICODE).await;
        let comments = app.call("GET", &format!("/api/cards/{old}/comments"), None).await.body;
        let texts: Vec<&str> = comments.as_array().unwrap().iter().map(|c| c["content"].as_str().unwrap()).collect();
        assert_eq!(texts.len(), 3);
        assert!(texts[2].ends_with("a second thought"), "{texts:?}");
        assert_eq!(scalar(&app, "SELECT COUNT(*) FROM cards").await, 5);
        let check = app.operator().admin().check_counts().await.unwrap();
        assert!(check.is_empty(), "{check:?}");
    }

    async fn a_refused_import_leaves_every_table_as_it_was(backend) {
        let app = common::spawn_app(backend).await;
        let ws = app.tenant.clone();
        let first_column = app.columns().await[0]["name"].as_str().unwrap().to_string();
        let s = story(&first_column);
        let other = app.workspace("Elsewhere").await;
        app.account_in(&other, "stranger", "member").await;
        let stranger = app.operator().admin().find_account("stranger").await.unwrap().id.to_string();
        let before = every_table(&app).await;

        // Not an export: what is wrong is named.
        let mut bad = s.board.to_value();
        bad["cards"][1]["idList"] = json!("0000000000000000000000ff");
        bad["lists"][0].as_object_mut().unwrap().remove("name");
        let r = import(&app, &app.token, &ws, serde_json::to_vec(&bad).unwrap(), &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("NOT_A_TRELLO_EXPORT")), "{:?}", r.body);
        let message = r.body["message"].as_str().unwrap();
        assert!(message.contains("lists[0] lacks its name") && message.contains("cards[1]"), "{message}");
        for file in [b"{not json".to_vec(), br#"{"name": "x"}"#.to_vec(), br#"{"lists": [], "cards": [1]}"#.to_vec()] {
            let r = import(&app, &app.token, &ws, file, &[]).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("NOT_A_TRELLO_EXPORT")), "{:?}", r.body);
        }

        // A member mapped to an account outside the workspace, in a dry run too.
        let members = json!({"ann": stranger}).to_string();
        for extra in [vec![("members", members.as_str())], vec![("members", members.as_str()), ("dryRun", "true")]] {
            let r = import(&app, &app.token, &ws, s.board.to_bytes(), &extra).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("NOT_A_MEMBER")), "{:?}", r.body);
        }

        // Bad fields.
        for (k, v) in [("members", "[1]"), ("members", r#"{"ann": "not an id"}"#), ("dryRun", "maybe")] {
            let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[(k, v)]).await;
            assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")), "{k}={v}: {:?}", r.body);
        }
        assert_eq!(every_table(&app).await, before, "the refusals changed nothing");

        // Columns needed while column management is off.
        app.settings(json!({"tenantId": ws, "columnManagement": false})).await;
        let settled = every_table(&app).await;
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (403, Some("COLUMN_MANAGEMENT_DISABLED")), "{:?}", r.body);
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[("dryRun", "true")]).await;
        assert_eq!(r.status, 403, "a dry run refuses as the import would: {:?}", r.body);
        assert_eq!(every_table(&app).await, settled);
        app.settings(json!({"tenantId": ws, "columnManagement": true})).await;

        // A column's hard WIP limit holds: refused, nothing written.
        app.card("Already here").await;
        let first = app.columns().await[0]["id"].as_str().unwrap().to_string();
        let r = app.call("PATCH", &format!("/api/columns/{first}"), Some(json!({"wipLimit": 1}))).await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        app.settings(json!({"tenantId": ws, "wipLimits": "HARD"})).await;
        let settled = every_table(&app).await;
        let r = import(&app, &app.token, &ws, s.board.to_bytes(), &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("WIP_LIMIT")), "{:?}", r.body);
        assert_eq!(every_table(&app).await, settled);
        app.settings(json!({"tenantId": ws, "wipLimits": "SOFT"})).await;

        // A dry run answers what the import then does, and writes nothing.
        let settled = every_table(&app).await;
        let dry = import(&app, &app.token, &ws, s.board.to_bytes(), &[("dryRun", "true")]).await;
        assert_eq!(dry.status, 200, "{:?}", dry.body);
        assert_eq!(every_table(&app).await, settled, "a dry run writes nothing");
        let real = import(&app, &app.token, &ws, s.board.to_bytes(), &[]).await;
        assert_eq!(real.status, 201);
        assert_eq!(dry.body, real.body);
    }

    async fn only_an_admin_imports_and_the_role_comes_before_the_file(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_MAX_IMPORT_BYTES", "4000")]).await;
        let ws = app.tenant.clone();
        let member = app.account_in(&ws, "mia", "member").await;
        let viewer = app.account_in(&ws, "vic", "viewer").await;
        let garbage = b"this is not json at all".to_vec();
        let big = TrelloBoard::new(&"x".repeat(5000)).to_bytes();
        for token in [&member, &viewer] {
            let r = import(&app, token, &ws, garbage.clone(), &[]).await;
            assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")), "{:?}", r.body);
            // The role before the size too, the file before or after the fields.
            let r = import(&app, token, &ws, big.clone(), &[]).await;
            assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")), "{:?}", r.body);
            let parts = vec![("file", "board.json", big.clone()), ("tenantId", "", ws.as_bytes().to_vec())];
            let r = app.upload(token, PATH, &parts).await;
            assert_eq!((r.status, r.body["error"].as_str()), (403, Some("FORBIDDEN")), "{:?}", r.body);
        }
        let r = import(&app, "", &ws, garbage.clone(), &[]).await;
        assert_eq!(r.status, 401);
        let r = import(&app, &app.token, &ws, garbage, &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("NOT_A_TRELLO_EXPORT")));
        let r = import(&app, &app.token, &ws, big.clone(), &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (413, Some("FILE_TOO_LARGE")), "{:?}", r.body);
        let r = app.upload(&app.token, PATH, &[("file", "board.json", big), ("tenantId", "", ws.as_bytes().to_vec())]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (413, Some("FILE_TOO_LARGE")), "{:?}", r.body);
        let r = app.upload(&app.token, PATH, &[("tenantId", "", ws.as_bytes().to_vec())]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (400, Some("NO_FILE")));
        let r = import(&app, &app.token, "nope", b"{}".to_vec(), &[]).await;
        assert_eq!((r.status, r.body["error"].as_str()), (422, Some("VALIDATION_FAILED")));
    }
}

on_both_backends! {
    // An import fits in what the workspace already has: a label matched by
    // name without case, cards after the column's own in Trello's order, the
    // card's creation date from its `createCard` action, a project, a long
    // checklist cut with a warning, and flow metrics from the first day.
    async fn an_import_fits_in_what_the_workspace_has(backend) {
        let app = common::spawn_app(backend).await;
        let ws = app.tenant.clone();
        let project = app.project(&ws, "Imported").await;
        let r = app.call("POST", "/api/labels", Some(json!({"tenantId": ws, "name": "BUG"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let r = app.call("POST", "/api/cards", Some(json!({"tenantId": ws, "projectId": project, "title": "Here first"}))).await;
        assert_eq!(r.status, 201, "{:?}", r.body);

        let mut b = TrelloBoard::new("Fitting in");
        let ann = b.member("ann", "Ann Smith");
        let todo = b.list("To do", false);
        let done = b.list("Done", false);
        let bug = b.label("bug", Some("red"));
        let (last, second, first) = (b.card(&todo, "Last", "", &ann), b.card(&todo, "Second", "", &ann), b.card(&todo, "First", "", &ann));
        b.set(&last, "pos", json!(90_000.5));
        b.set(&first, "pos", json!(1.25));
        b.label_card(&first, &bug);
        let long: Vec<String> = (1..=501).map(|i| format!("item {i}")).collect();
        let long: Vec<(&str, bool)> = long.iter().map(|t| (t.as_str(), false)).collect();
        b.checklist(&first, "Long", &long);
        b.move_card(&second, &done, &ann);
        let file = b.to_value();
        let created_at = file["actions"].as_array().unwrap().iter()
            .find(|a| a["type"] == "createCard" && a["data"]["card"]["id"] == first.as_str())
            .map(|a| a["date"].as_str().unwrap().to_string()).unwrap();

        let r = import(&app, &app.token, &ws, b.to_bytes(), &[("projectId", &project)]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        assert_eq!(r.body["labels"], json!({"matched": 1, "created": 0}));
        assert_eq!(r.body["checklistItems"], 500);
        let warnings = r.body["warnings"].to_string();
        assert!(warnings.contains("at most 500 items: 1 items") && warnings.contains("item 501"), "{warnings}");

        let board = app.call("GET", &format!("/api/board?tenant={ws}&project={project}"), None).await.body;
        let column = |name: &str| -> Vec<String> {
            let c = board["columns"].as_array().unwrap().iter().find(|c| c["name"] == name).unwrap();
            c["cards"].as_array().unwrap().iter().map(|c| c["title"].as_str().unwrap().to_string()).collect()
        };
        assert_eq!(column("To do"), ["Here first", "First", "Last"], "{board}");
        assert_eq!(column("Done"), ["Second"]);
        let first = app.call("GET", &format!("/api/cards/{}", card_id(&app, "First").await), None).await.body;
        assert_eq!(first["createdAt"], created_at.as_str());
        assert_eq!(first["projectId"], project.as_str());
        assert_eq!(first["labelIds"].as_array().unwrap().len(), 1);

        let flow = app.call("GET", &format!("/api/flow?tenant={ws}&project={project}&since=2024-02-20&until=2024-03-10"), None).await;
        assert_eq!(flow.status, 200, "{:?}", flow.body);
        let done: i64 = flow.body["throughput"].as_array().unwrap().iter().map(|d| d["done"].as_i64().unwrap()).sum();
        assert_eq!(done, 1, "{:?}", flow.body);
        assert_eq!(flow.body["leadTime"]["count"], 1, "{:?}", flow.body);
        let check = app.operator().admin().check_counts().await.unwrap();
        assert!(check.is_empty(), "{check:?}");
    }
}

on_both_backends! {
    // One import is one event on the stream and one webhook delivery, not
    // one per card (api.md §28).
    async fn an_import_is_one_event_and_one_webhook_delivery(backend) {
        let app = common::spawn_app_with(backend, &[("BOARD_WEBHOOK_ALLOW_PRIVATE", "true")]).await;
        let receiver = testkit::receiver::Receiver::start().await;
        let hook = json!({"tenantId": app.tenant, "url": receiver.url, "events": ["import.completed", "card.created"]});
        let r = app.call("POST", "/api/webhooks", Some(hook)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        let mut b = TrelloBoard::new("Three cards");
        let ann = b.member("ann", "Ann Smith");
        let list = b.list("To do", false);
        for title in ["one", "two", "three"] {
            b.card(&list, title, "", &ann);
        }
        let r = import(&app, &app.token, &app.tenant, b.to_bytes(), &[]).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        receiver.wait_for(std::time::Duration::from_secs(10), |s| !s.is_empty()).await;
        tokio::time::sleep(board_core::WEBHOOK_FLUSH * 3).await;
        let hits = receiver.hits();
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].event, "import.completed");
        let data: Value = serde_json::from_str(&hits[0].body).unwrap();
        assert_eq!(data["tenantId"], app.tenant.as_str());
        assert_eq!(data["subject"]["summary"]["cards"]["created"], 3, "{data}");
    }
}

on_both_backends! {
    // Imports of one file racing each other bring its cards once: the ids an
    // import remembers are read under the lock that its writes hold.
    async fn racing_imports_of_one_file_bring_each_card_once(backend) {
        let app = common::spawn_app(backend).await;
        let mut b = TrelloBoard::new("Raced");
        let ann = b.member("ann", "Ann Smith");
        let list = b.list("Raced list", false);
        for i in 0..12 {
            let card = b.card(&list, &format!("card {i}"), "", &ann);
            b.comment(&card, &ann, "said once");
        }
        let file = b.to_bytes();
        let run = || import(&app, &app.token, &app.tenant, file.clone(), &[]);
        let (a, b, c, d) = tokio::join!(run(), run(), run(), run());
        let answers = [a, b, c, d];
        let mut created = 0;
        for r in &answers {
            assert_eq!(r.status, 201, "{:?}", r.body);
            created += r.body["cards"]["created"].as_i64().unwrap();
        }
        assert_eq!(created, 12, "{answers:?}");
        assert_eq!(scalar(&app, "SELECT COUNT(*) FROM cards WHERE title LIKE 'card %'").await, 12);
        assert_eq!(scalar(&app, "SELECT COUNT(*) FROM comments").await, 12);
        let columns = scalar(&app, "SELECT COUNT(*) FROM columns WHERE name = 'Raced list'").await;
        assert_eq!(columns, 1);
    }
}
