//! Webhooks across server processes (api.md §18): two `board-server`
//! processes on one database (a SQLite file, or PostgreSQL) deliver to one
//! webhook, and the receiver records that no two deliveries ever overlap and
//! that every event arrives, in order; then the server holding the lease is
//! killed (SIGKILL) and the other takes over once the lease expires.

use std::time::Duration;

use serde_json::json;
use testkit::process::{first_run, start_server, ServerProcess};
use testkit::receiver::Receiver;
use testkit::{on_both_backends, TestDb};

/// The `board-server` binary cargo built for these tests.
const SERVER: &str = env!("CARGO_BIN_EXE_board-server");

const ENV: &[(&str, &str)] = &[
    ("BOARD_WEBHOOK_ALLOW_PRIVATE", "true"),
    ("BOARD_WEBHOOK_LEASE", "3s"),
];

async fn post_cards(
    http: &reqwest::Client,
    servers: &[&ServerProcess],
    token: &str,
    tenant: &str,
    from: usize,
    n: usize,
) {
    let mut tasks = Vec::new();
    for i in from..from + n {
        let base = servers[i % servers.len()].base.clone();
        let (http, token, tenant) = (http.clone(), token.to_string(), tenant.to_string());
        tasks.push(tokio::spawn(async move {
            let body = json!({"tenantId": tenant, "title": format!("card {i}")});
            let r = testkit::request(&http, &base, &token, "POST", "/api/cards", Some(body)).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

/// The seqs in the order they first arrived: must be increasing.
fn first_arrivals(got: &[i64]) -> Vec<i64> {
    let mut seen = std::collections::BTreeSet::new();
    got.iter().copied().filter(|s| seen.insert(*s)).collect()
}

on_both_backends! {
async fn two_servers_never_deliver_to_one_webhook_at_once_and_a_dead_ones_lease_expires(backend) {
    let db = TestDb::new(backend).await;
    let mut a = start_server(SERVER, &db, ENV).await;
    let (token, tenant) = first_run(&a.lines).expect("first run");
    let b = start_server(SERVER, &db, ENV).await;
    let http = reqwest::Client::new();
    let receiver = Receiver::start().await;
    // A slow receiver widens the window in which a second server would overlap.
    receiver.set_delay(Duration::from_millis(15));
    let body = json!({"tenantId": tenant, "url": receiver.url, "events": ["card.created"]});
    let r = testkit::request(&http, &a.base, &token, "POST", "/api/webhooks", Some(body)).await;
    assert_eq!(r.status, 201, "{:?}", r.body);

    post_cards(&http, &[&a, &b], &token, &tenant, 0, 60).await;
    let got = receiver
        .wait_for(Duration::from_secs(30), |s| first_arrivals(s).len() >= 60)
        .await;
    let firsts = first_arrivals(&got);
    assert_eq!(firsts.len(), 60, "every event: {got:?}");
    let mut sorted = firsts.clone();
    sorted.sort();
    assert_eq!(firsts, sorted, "in seq order");
    assert_eq!(receiver.overlaps(), 0, "two deliveries overlapped");
    assert_eq!(got, firsts, "no repeat while both servers live");

    // The holder dies mid-stream (whichever it is, the other must carry on
    // once the lease has expired): kill A, write through B.
    post_cards(&http, &[&a, &b], &token, &tenant, 60, 20).await;
    a.child.kill().await.unwrap();
    post_cards(&http, &[&b], &token, &tenant, 80, 20).await;
    let got = receiver
        .wait_for(Duration::from_secs(30), |s| first_arrivals(s).len() >= 100)
        .await;
    let firsts = first_arrivals(&got);
    assert_eq!(firsts.len(), 100, "every event after the kill: {got:?}");
    let mut sorted = firsts.clone();
    sorted.sort();
    assert_eq!(
        firsts, sorted,
        "in seq order (a repeat after the takeover is allowed)"
    );
    assert_eq!(receiver.overlaps(), 0, "two deliveries overlapped");
    drop(b);
}
}
