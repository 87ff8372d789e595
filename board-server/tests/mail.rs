//! E-mail across server processes (api.md §26): two `board-server`
//! processes on one database each claim due batches; every batch goes out
//! exactly once, through a real SMTP server (`.ci/smtp-server`), also when
//! that server was out of reach for a while (a relay in front of it).

use std::time::Duration;

use board_core::{Board, Name, Options, Role};
use serde_json::json;
use testkit::mail::{self, header, wait_for, Relay};
use testkit::process::{first_run, start_server};
use testkit::{on_both_backends_with_mail, TestDb};

/// The `board-server` binary cargo built for these tests.
const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

/// `n` people with verified addresses in the workspace of `tenant`, each
/// wanting mail at once: (account id, address).
async fn people(board: &Board, tenant: &str, base: &str, n: usize) -> Vec<(String, String)> {
    let http = reqwest::Client::new();
    let ws = board.admin().find_workspace(tenant).await.unwrap();
    let mut people = Vec::new();
    for i in 0..n {
        let account = board
            .admin()
            .create_account(&Name::parse(&format!("p{i}")).unwrap())
            .await
            .unwrap();
        board
            .admin()
            .add_member(&ws.id, &account.id, Role::Member)
            .await
            .unwrap();
        let to = mail::address(&format!("p{i}"));
        board
            .admin()
            .set_email(&account.id, &to, true)
            .await
            .unwrap();
        let own = board
            .admin()
            .create_token(&account.id, None)
            .await
            .unwrap()
            .token;
        let r = testkit::request(
            &http,
            base,
            &own,
            "PATCH",
            "/api/me/notifications",
            Some(json!({"batchMinutes": 0})),
        )
        .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        people.push((account.id.to_string(), to));
    }
    people
}

/// Assigns each of `people` to a card of their own, through the servers
/// of `bases` in turn, at the same time.
async fn assign_each(people: &[(String, String)], bases: [&str; 2], token: &str, tenant: &str) {
    let http = reqwest::Client::new();
    let mut tasks = Vec::new();
    for (i, (id, _)) in people.iter().enumerate() {
        let base = bases[i % 2].to_string();
        let (http, token, tenant, id) = (
            http.clone(),
            token.to_string(),
            tenant.to_string(),
            id.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let body =
                json!({"tenantId": tenant, "title": format!("card {i}"), "assigneeIds": [id]});
            let r = testkit::request(&http, &base, &token, "POST", "/api/cards", Some(body)).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

/// Waits for one message to each of `people`, then a while longer: both
/// servers scan every second, so a second send would have come by then.
/// Returns the Message-IDs.
async fn exactly_one_each(
    people: &[(String, String)],
    within: Duration,
) -> std::collections::BTreeSet<String> {
    let mut ids = std::collections::BTreeSet::new();
    for (_, to) in people {
        let got = wait_for(to, 1, within).await;
        ids.insert(header(&got[0], "Message-ID").unwrap().to_string());
    }
    tokio::time::sleep(Duration::from_secs(4)).await;
    for (_, to) in people {
        assert_eq!(
            mail::messages_to(to).len(),
            1,
            "exactly one message to {to}"
        );
    }
    assert_eq!(ids.len(), people.len(), "a Message-ID per batch");
    ids
}

fn env(smtp: &str) -> [(&str, &str); 4] {
    [
        ("BOARD_SMTP_URL", smtp),
        ("BOARD_MAIL_FROM", "board@example.test"),
        ("BOARD_PUBLIC_URL", "http://board.example.test"),
        ("BOARD_MAIL_SCAN", "1s"),
    ]
}

async fn open(db: &TestDb) -> Board {
    let mut options = Options::new(&db.url);
    options.files_dir = db.files_dir();
    Board::open_with(options).await.unwrap()
}

on_both_backends_with_mail! {
async fn two_servers_send_each_batch_exactly_once(backend) {
    let db = TestDb::new(backend).await;
    let smtp = mail::smtp_url().unwrap();
    let a = start_server(SERVER, &db, &env(&smtp)).await;
    let (token, tenant) = first_run(&a.lines).expect("first run");
    let b = start_server(SERVER, &db, &env(&smtp)).await;
    let board = open(&db).await;
    let people = people(&board, &tenant, &a.base, 12).await;
    assign_each(&people, [&a.base, &b.base], &token, &tenant).await;
    exactly_one_each(&people, Duration::from_secs(20)).await;
    let log = board.admin().mail_log(false, 100).await.unwrap();
    assert_eq!(log.iter().filter(|e| e.state == "sent").count(), people.len(), "{log:?}");
    assert!(log.iter().all(|e| e.attempts == 1), "{log:?}");
    board.close().await;
    drop((a, b));
}

// The SMTP server out of reach of both servers: every batch is kept for a
// retry; once it is back, each goes out once, whichever server retries it.
async fn two_servers_retry_while_smtp_is_down_then_send_once(backend) {
    let db = TestDb::new(backend).await;
    let relay = Relay::start(false).await;
    let a = start_server(SERVER, &db, &env(&relay.url)).await;
    let (token, tenant) = first_run(&a.lines).expect("first run");
    let b = start_server(SERVER, &db, &env(&relay.url)).await;
    let board = open(&db).await;
    let people = people(&board, &tenant, &a.base, 6).await;
    assign_each(&people, [&a.base, &b.base], &token, &tenant).await;
    let start = std::time::Instant::now();
    loop {
        let log = board.admin().mail_log(false, 100).await.unwrap();
        if log.len() == people.len() && log.iter().all(|e| e.state == "retry" && e.attempts >= 1) {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(20), "not all refused and kept: {log:?}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert!(people.iter().all(|(_, to)| mail::messages_to(to).is_empty()));
    relay.set_up(true);
    // The first retry comes within 30 s.
    exactly_one_each(&people, Duration::from_secs(40)).await;
    let log = board.admin().mail_log(false, 100).await.unwrap();
    assert_eq!(log.iter().filter(|e| e.state == "sent").count(), people.len(), "{log:?}");
    assert!(log.iter().all(|e| e.attempts >= 2), "{log:?}");
    board.close().await;
    drop((a, b));
}
}

on_both_backends_with_mail! {
// Claims forced to race: 24 batches due at once, no server sending them (it
// scans hourly), and eight claimers on two handles of the database claiming
// side by side until none is left. Each batch is claimed and sent once
// (PostgreSQL: the claim locks its rows, skips those locked, and checks
// again that each is still due; SQLite: one writer at a time).
async fn racing_claims_send_each_batch_once(backend) {
    let db = TestDb::new(backend).await;
    let smtp = mail::smtp_url().unwrap();
    let quiet = [("BOARD_SMTP_URL", smtp.as_str()), ("BOARD_MAIL_FROM", "board@example.test"),
        ("BOARD_PUBLIC_URL", "http://board.example.test"), ("BOARD_MAIL_SCAN", "1h")];
    let a = start_server(SERVER, &db, &quiet).await;
    let (token, tenant) = first_run(&a.lines).expect("first run");
    let board = open(&db).await;
    let people = people(&board, &tenant, &a.base, 24).await;
    assign_each(&people, [&a.base, &a.base], &token, &tenant).await;
    let handles = [mail_handle(&db, &smtp).await, mail_handle(&db, &smtp).await];
    let barrier = std::sync::Arc::new(tokio::sync::Barrier::new(8));
    let mut tasks = Vec::new();
    for i in 0..8 {
        let (handle, barrier) = (handles[i % 2].clone(), barrier.clone());
        tasks.push(tokio::spawn(async move {
            barrier.wait().await;
            let mut sent = 0;
            loop {
                let done = handle.admin().send_due_mail(Duration::from_secs(300)).await.unwrap();
                if done.is_empty() {
                    return sent;
                }
                sent += done.len();
            }
        }));
    }
    let mut claimed = 0;
    for t in tasks {
        claimed += t.await.unwrap();
    }
    assert_eq!(claimed, people.len(), "each batch claimed once");
    exactly_one_each(&people, Duration::from_secs(10)).await;
    let log = board.admin().mail_log(false, 100).await.unwrap();
    assert!(log.iter().all(|e| e.state == "sent" && e.attempts == 1), "{log:?}");
    for h in handles {
        h.close().await;
    }
    board.close().await;
    drop(a);
}
}

/// A handle of `db` that sends mail through `smtp`.
async fn mail_handle(db: &TestDb, smtp: &str) -> Board {
    let mut options = Options::new(&db.url);
    options.files_dir = db.files_dir();
    options.smtp_url = Some(smtp.to_string());
    options.mail_from = Some("board@example.test".into());
    options.public_url = Some("http://board.example.test".into());
    Board::open_with(options).await.unwrap()
}
