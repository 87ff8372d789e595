//! Due reminders across server processes (api.md §26): two `board-server`
//! processes on one database both look for cards whose due time entered
//! the window, every second; each due date is told once, never twice.

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use board_core::{Board, Name, Options, Role, Timestamp};
use serde_json::{json, Value};
use testkit::process::{first_run, start_server};
use testkit::{on_both_backends, TestDb};

/// The `board-server` binary cargo built for these tests.
const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

/// `hours` from now, as the API writes times.
fn in_hours(hours: i64) -> String {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_millis() as i64;
    Timestamp::from_millis(now + hours * 3_600_000).to_string()
}

/// The kinds of `token`'s notifications, per card.
async fn due_told(http: &reqwest::Client, base: &str, token: &str) -> Vec<String> {
    let r = testkit::request(
        http,
        base,
        token,
        "GET",
        "/api/notifications?limit=100",
        None,
    )
    .await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let mut cards: Vec<String> = r.body["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|n| n["kind"] == "due_soon")
        .map(|n| n["card"]["id"].as_str().unwrap().to_string())
        .collect();
    cards.sort();
    cards
}

on_both_backends! {
async fn two_servers_tell_each_due_date_once(backend) {
    let db = TestDb::new(backend).await;
    let env = [("BOARD_DUE_SCAN", "1s")];
    let a = start_server(SERVER, &db, &env).await;
    let (token, tenant) = first_run(&a.lines).expect("first run");
    let b = start_server(SERVER, &db, &env).await;
    let http = reqwest::Client::new();
    let mut options = Options::new(&db.url);
    options.files_dir = db.files_dir();
    let board = Board::open_with(options).await.unwrap();
    let ws = board.admin().find_workspace(&tenant).await.unwrap();
    let ann = board.admin().create_account(&Name::parse("ann").unwrap()).await.unwrap();
    board.admin().add_member(&ws.id, &ann.id, Role::Member).await.unwrap();
    let ann_token = board.admin().create_token(&ann.id, None).await.unwrap().token;
    // Eight cards due within the window (24 h), through either server.
    let mut cards = Vec::new();
    for i in 0..8 {
        let base = if i % 2 == 0 { &a.base } else { &b.base };
        let body = json!({"tenantId": tenant, "title": format!("due {i}"), "dueAt": in_hours(2), "assigneeIds": [ann.id.as_str()]});
        let r = testkit::request(&http, base, &token, "POST", "/api/cards", Some(body)).await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        cards.push(r.body["id"].as_str().unwrap().to_string());
    }
    cards.sort();
    let began = std::time::Instant::now();
    while due_told(&http, &a.base, &ann_token).await.len() < cards.len() {
        assert!(began.elapsed() < Duration::from_secs(20), "not every card was told");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    // Both servers have scanned several times since: still once each.
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(due_told(&http, &b.base, &ann_token).await, cards);
    // A new due date is told again, once.
    let r = testkit::request(&http, &b.base, &token, "PATCH", &format!("/api/cards/{}", cards[0]), Some(json!({"dueAt": in_hours(3)}))).await;
    assert_eq!(r.status, 200, "{:?}", r.body);
    let began = std::time::Instant::now();
    while due_told(&http, &a.base, &ann_token).await.len() < cards.len() + 1 {
        assert!(began.elapsed() < Duration::from_secs(20), "the new due date was not told");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    let told: Vec<Value> = due_told(&http, &a.base, &ann_token).await.into_iter().map(Value::from).collect();
    assert_eq!(told.len(), cards.len() + 1, "{told:?}");
    assert_eq!(told.iter().filter(|c| **c == cards[0].as_str()).count(), 2);
    board.close().await;
    drop((a, b));
}
}
