//! Live events under load, against a release `board-server` (see BENCHMARKS.md):
//!
//! ```text
//! cargo build --release -p board-server --example events_bench
//! ./target/release/examples/events_bench [BASELINE_SERVER] [postgres://…/EMPTY_DB]
//! ```
//!
//! 1. opens 1,000 event streams on one workspace and reads the server's
//!    memory (VmRSS) before and after: the memory per idle stream;
//! 2. makes 20 changes one after another (each `POST /api/cards`) and times
//!    each event's arrival on every stream from just before the request:
//!    20,000 deliveries, p50/p99/max;
//! 3. `POST /api/cards/[id]/comments` at 32 connections (500 to warm up,
//!    then 6,000 timed) on this server (each one writes an event), and on
//!    `BASELINE_SERVER`, a server built without the outbox, each on a fresh
//!    database, in A/B rounds (5, or `--rounds N`); prints each round's
//!    requests/s, the medians and the ratio. The comments go to one card
//!    (every request queues on its lock), or spread over `--cards N`.
//!
//! With a PostgreSQL URL (an empty database), the runs use it instead of a
//! SQLite file; each server run starts by emptying it (DROP SCHEMA public).
//!
//! `--webhook` (api.md §18) runs instead: 10,000 comments with one active
//! webhook to a receiver in this process (`testkit::receiver`), timed from
//! the first `POST` to the 10,000th delivery; then comment `POST`s at 32
//! connections on this server with one active webhook and on this server
//! without any, each on a fresh database, in A/B rounds (no baseline
//! binary: the reference is the same build). `--webhook-events TYPES`
//! (comma-separated) gives the webhook of the A/B rounds that filter, e.g.
//! `card.moved`: the worker then reads every comment event and sends none,
//! which tells the outbox reading from the HTTP round trips.

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;

const STREAMS: usize = 1_000;
const CHANGES: usize = 20;
const CONNECTIONS: usize = 32;
const POSTS: usize = 6_000;
/// Requests sent before the timed ones, so each server is measured warm.
const WARM_UP: usize = 500;
/// A/B rounds of the throughput comparison.
const ROUNDS: usize = 5;

/// A running server: its process, address, first-run token and workspace.
struct Server {
    child: tokio::process::Child,
    base: String,
    token: String,
    tenant: String,
    _dir: TempDir,
}

struct TempDir(std::path::PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

async fn start(exe: &std::path::Path, postgres: Option<&str>) -> Server {
    assert!(exe.exists(), "{} is missing: build it first", exe.display());
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "board-events-bench-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let url = match postgres {
        Some(url) => {
            let status = std::process::Command::new("psql")
                .args([
                    url,
                    "-qc",
                    "DROP SCHEMA public CASCADE; CREATE SCHEMA public",
                ])
                .status()
                .expect("psql");
            assert!(status.success(), "emptying {url} failed");
            url.to_string()
        }
        None => format!("sqlite://{}/board.db", dir.display()),
    };
    let mut child = tokio::process::Command::new(exe)
        .env("BOARD_DATABASE_URL", url)
        .env("BOARD_FILES_DIR", dir.join("files"))
        .env("BOARD_LISTEN", "127.0.0.1:0")
        .env("BOARD_LOG", "warn")
        .env("BOARD_MAX_EVENT_STREAMS", (2 * STREAMS).to_string())
        .env("BOARD_WEBHOOK_ALLOW_PRIVATE", "true")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start board-server");
    let testkit::process::FirstRun {
        base,
        token,
        tenant,
    } = testkit::process::read_first_run(&mut child).await;
    Server {
        child,
        base,
        token,
        tenant,
        _dir: TempDir(dir),
    }
}

/// The process's resident memory in KiB.
fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    sorted[((sorted.len() - 1) as f64 * p).round() as usize]
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1000.0)
}

/// Arrival times per change index, filled by every stream.
type Arrivals = Arc<Mutex<Vec<Vec<Instant>>>>;

/// Opens one stream and records, for each event whose card title is
/// `bench-N`, the instant it arrived.
async fn follow(
    http: reqwest::Client,
    s: Arc<(String, String, String)>,
    arrivals: Arrivals,
    opened: Arc<AtomicUsize>,
) {
    let (base, token, tenant) = (&s.0, &s.1, &s.2);
    let mut res = http
        .get(format!("{base}/api/events?tenant={tenant}"))
        .bearer_auth(token)
        .send()
        .await
        .expect("open a stream");
    assert_eq!(res.status().as_u16(), 200);
    opened.fetch_add(1, Ordering::Relaxed);
    let mut buf = String::new();
    while let Ok(Some(chunk)) = res.chunk().await {
        let at = Instant::now();
        buf.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buf.find("\n\n") {
            let block: String = buf.drain(..end + 2).collect();
            if let Some(i) = block
                .find("\"title\":\"bench-")
                .and_then(|i| block[i + 15..].split('"').next()?.parse::<usize>().ok())
            {
                arrivals.lock().unwrap()[i].push(at);
            }
        }
    }
}

async fn post_comments(server: &Server, cards: usize) -> f64 {
    let (http, urls) = comment_urls(server, cards).await;
    let token = Arc::new(server.token.clone());
    fire(&http, &urls, &token, WARM_UP).await;
    let started = Instant::now();
    fire(&http, &urls, &token, POSTS).await;
    POSTS as f64 / started.elapsed().as_secs_f64()
}

/// A client for 32 connections, and the comments URLs of `cards` new cards.
async fn comment_urls(server: &Server, cards: usize) -> (reqwest::Client, Arc<Vec<String>>) {
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .unwrap();
    let mut urls = Vec::new();
    for i in 0..cards {
        let card = testkit::request(
            &http,
            &server.base,
            &server.token,
            "POST",
            "/api/cards",
            Some(json!({"tenantId": server.tenant, "title": format!("Load {i}")})),
        )
        .await;
        assert_eq!(card.status, 201, "{:?}", card.body);
        urls.push(format!(
            "{}/api/cards/{}/comments",
            server.base,
            card.body["id"].as_str().unwrap()
        ));
    }
    (http, Arc::new(urls))
}

/// Sends `count` comment `POST`s over 32 connections, connection `i` to
/// `urls[i % urls.len()]` (one card: every request queues on its lock).
async fn fire(http: &reqwest::Client, urls: &Arc<Vec<String>>, token: &Arc<String>, count: usize) {
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::new();
    for i in 0..CONNECTIONS {
        let (http, token, next) = (http.clone(), token.clone(), next.clone());
        let url = urls[i % urls.len()].clone();
        tasks.push(tokio::spawn(async move {
            while next.fetch_add(1, Ordering::Relaxed) < count {
                let r = http
                    .post(url.as_str())
                    .bearer_auth(token.as_str())
                    .json(&json!({"content": "a comment of a load run"}))
                    .send()
                    .await
                    .unwrap();
                assert_eq!(r.status().as_u16(), 201);
            }
        }));
    }
    for t in tasks {
        t.await.unwrap();
    }
}

#[tokio::main]
async fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = root.join("target/release/board-server");
    let mut args = std::env::args().skip(1);
    let (mut baseline, mut postgres, mut posts_only) = (None, None, false);
    let (mut rounds, mut cards, mut webhook) = (ROUNDS, 1, false);
    let mut filter: Option<Vec<String>> = None;
    while let Some(a) = args.next() {
        if a == "--webhook" {
            webhook = true;
        } else if a == "--webhook-events" {
            webhook = true;
            filter = args
                .next()
                .map(|t| t.split(',').map(str::to_string).collect());
        } else if a == "--cards" {
            cards = count(args.next(), "--cards N: how many cards the comments go to");
        } else if a == "--rounds" {
            rounds = count(args.next(), "--rounds N: a number of A/B rounds");
        } else if a == "--posts-only" {
            posts_only = true;
        } else if a.starts_with("postgres") {
            postgres = Some(a);
        } else {
            baseline = Some(std::path::PathBuf::from(a));
        }
    }
    let pg = postgres.as_deref();
    println!(
        "backend: {}",
        if pg.is_some() { "PostgreSQL" } else { "SQLite" }
    );

    if webhook {
        return webhooks(&exe, pg, rounds, cards, filter).await;
    }
    if !posts_only {
        streams_and_delivery(&exe, pg).await;
    }

    // 3: comment throughput with the outbox, against the baseline.
    let Some(baseline) = baseline else {
        println!("no BASELINE_SERVER given: comment throughput with the outbox only");
        let server = start(&exe, pg).await;
        println!(
            "comments POST, 32 connections: {:.0} req/s",
            post_comments(&server, cards).await
        );
        return;
    };
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let server = start(&exe, pg).await;
        with.push(post_comments(&server, cards).await);
        drop(server);
        let server = start(&baseline, pg).await;
        without.push(post_comments(&server, cards).await);
        drop(server);
    }
    compare(
        ("with the outbox", "without"),
        &mut with,
        &mut without,
        cards,
    );
}

/// Subscribes a receiver in this process to the server's workspace.
async fn subscribe(server: &Server, events: Option<&[String]>) -> testkit::receiver::Receiver {
    let receiver = testkit::receiver::Receiver::start().await;
    let r = testkit::request(
        &reqwest::Client::new(),
        &server.base,
        &server.token,
        "POST",
        "/api/webhooks",
        Some(match events {
            Some(types) => json!({"tenantId": server.tenant, "url": receiver.url, "events": types}),
            None => json!({"tenantId": server.tenant, "url": receiver.url}),
        }),
    )
    .await;
    assert_eq!(r.status, 201, "{:?}", r.body);
    receiver
}

/// `--webhook`: 10,000 events to a local receiver, then comment throughput
/// with one active webhook against none, in A/B rounds.
async fn webhooks(
    exe: &std::path::Path,
    pg: Option<&str>,
    rounds: usize,
    cards: usize,
    filter: Option<Vec<String>>,
) {
    const EVENTS: usize = 10_000;
    let server = start(exe, pg).await;
    let (http, urls) = comment_urls(&server, 1).await;
    let receiver = subscribe(&server, None).await;
    let started = Instant::now();
    fire(&http, &urls, &Arc::new(server.token.clone()), EVENTS).await;
    let written = started.elapsed();
    let got = receiver
        .wait_for(Duration::from_secs(120), |s| s.len() >= EVENTS)
        .await;
    let delivered = started.elapsed();
    let mut sorted = got.clone();
    sorted.sort();
    println!(
        "{EVENTS} comments written in {:.1} s; {} events delivered (in seq order: {}) \
         {:.1} s after the first POST",
        written.as_secs_f64(),
        got.len(),
        got == sorted,
        delivered.as_secs_f64()
    );
    drop(server);
    let (mut with, mut without) = (Vec::new(), Vec::new());
    for _ in 0..rounds {
        let server = start(exe, pg).await;
        let receiver = subscribe(&server, filter.as_deref()).await;
        with.push(post_comments(&server, cards).await);
        println!(
            "  with a webhook: {} events delivered",
            receiver.accepted().len()
        );
        drop(server);
        let server = start(exe, pg).await;
        without.push(post_comments(&server, cards).await);
        drop(server);
    }
    compare(
        ("one active webhook", "none"),
        &mut with,
        &mut without,
        cards,
    );
}

/// Prints the A/B rounds of comment throughput, their medians and the ratio.
fn compare(names: (&str, &str), with: &mut [f64], without: &mut [f64], cards: usize) {
    let rounds = with.len();
    let rounded = |v: &[f64]| v.iter().map(|v| v.round()).collect::<Vec<_>>();
    let (with_all, without_all) = (rounded(with), rounded(without));
    let (a, b) = (median(with), median(without));
    println!(
        "comments POST, 32 connections, {cards} card(s), {POSTS} requests, {rounds} A/B rounds: \
         {} median {a:.0} req/s {with_all:?}, {} median {b:.0} req/s {without_all:?}: \
         {:.1} % slower",
        names.0,
        names.1,
        (1.0 - a / b) * 100.0
    );
}

/// The number after a flag; panics with `usage` when it is missing or not one.
fn count(value: Option<String>, usage: &str) -> usize {
    value
        .and_then(|n| n.parse().ok())
        .filter(|n| *n > 0)
        .expect(usage)
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2.0
    }
}

/// 1 and 2: streams, memory, delivery.
async fn streams_and_delivery(exe: &std::path::Path, pg: Option<&str>) {
    let server = start(exe, pg).await;
    let pid = server.child.id().unwrap();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let shared = Arc::new((
        server.base.clone(),
        server.token.clone(),
        server.tenant.clone(),
    ));
    // One request first, so the memory before counts a warm server.
    http.get(format!("{}/healthz", server.base))
        .send()
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let before = rss_kib(pid);
    let arrivals: Arrivals = Arc::new(Mutex::new(vec![Vec::new(); CHANGES]));
    let opened = Arc::new(AtomicUsize::new(0));
    let mut streams = Vec::new();
    for _ in 0..STREAMS {
        streams.push(tokio::spawn(follow(
            http.clone(),
            shared.clone(),
            arrivals.clone(),
            opened.clone(),
        )));
    }
    while opened.load(Ordering::Relaxed) < STREAMS {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(1)).await;
    let after = rss_kib(pid);
    println!(
        "{STREAMS} idle streams: server RSS {before} KiB -> {after} KiB, {:.1} KiB per stream",
        (after.saturating_sub(before)) as f64 / STREAMS as f64
    );

    let poster = reqwest::Client::new();
    let mut delays = Vec::new();
    let mut missing = 0;
    for i in 0..CHANGES {
        let sent = Instant::now();
        let r = poster
            .post(format!("{}/api/cards", server.base))
            .bearer_auth(&server.token)
            .json(&json!({"tenantId": server.tenant, "title": format!("bench-{i}")}))
            .send()
            .await
            .unwrap();
        assert_eq!(r.status().as_u16(), 201);
        let deadline = Instant::now() + Duration::from_secs(5);
        while arrivals.lock().unwrap()[i].len() < STREAMS && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        let got = arrivals.lock().unwrap()[i].clone();
        missing += STREAMS - got.len();
        delays.extend(got.iter().map(|at| at.duration_since(sent)));
    }
    delays.sort();
    println!(
        "{CHANGES} changes x {STREAMS} streams: {} deliveries ({missing} missing), p50 {}, p99 {}, max {}",
        delays.len(),
        ms(percentile(&delays, 0.5)),
        ms(percentile(&delays, 0.99)),
        ms(*delays.last().unwrap_or(&Duration::ZERO))
    );
    for s in streams {
        s.abort();
    }
    drop(server);
}
