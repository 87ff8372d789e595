//! Sign-in under load (api.md §23), every figure beside a reference
//! measured in the same run:
//!
//! ```text
//! cargo build --release -p board-server
//! cargo run --release --example signin                         # SQLite
//! cargo run --release --example signin -- postgres://…/EMPTY_DB # PostgreSQL
//! ```
//!
//! 1. `POST /api/session` with the right password at 8 connections, beside
//!    one Argon2id hash computed here with the server's parameters;
//! 2. `GET /api/board` (50 cards) at 8 connections, alone;
//! 3. the same while 64 clients send wrong passwords as fast as they can,
//!    each request from an address of its own (`X-Forwarded-For` with
//!    `--trust-proxy`), so the throttle never answers for the hashers: every
//!    one of them is a hash to compute, or a 503 `BUSY` after 5 s.
//!
//! Prints req/s, p50, p99, the slowest request and the failures, and what
//! the flood got back.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use argon2::password_hash::PasswordHasher;
use serde_json::json;
use testkit::bench::Run;

const CONNECTIONS: usize = 8;
const SIGN_INS: usize = 200;
const BOARD_READS: usize = 4_000;
const FLOOD: usize = 64;
const PASSWORD: &str = "correct horse battery staple";

/// Runs `total` calls of `call(i)` from `CONNECTIONS` tasks.
async fn load<F, Fut>(total: usize, call: F) -> Run
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    testkit::bench::load(CONNECTIONS, total, call).await
}

/// An address of its own for request `i`.
fn address(i: usize) -> String {
    format!("10.{}.{}.{}", (i >> 16) & 255, (i >> 8) & 255, i & 255)
}

/// One Argon2id hash with the server's parameters (19 MiB, 2 passes, 1 lane).
fn one_hash() -> Duration {
    let params = argon2::Params::new(19 * 1024, 2, 1, None).unwrap();
    let argon = argon2::Argon2::new(argon2::Algorithm::Argon2id, argon2::Version::V0x13, params);
    let mut best = Duration::MAX;
    for _ in 0..5 {
        let t = Instant::now();
        argon.hash_password(PASSWORD.as_bytes()).unwrap();
        best = best.min(t.elapsed());
    }
    best
}

#[tokio::main]
async fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = root.join("target/release/board-server");
    assert!(
        exe.exists(),
        "{} is missing: cargo build --release -p board-server",
        exe.display()
    );
    let dir = std::env::temp_dir().join(format!("board-signin-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let url = std::env::args()
        .nth(1)
        .unwrap_or_else(|| format!("sqlite://{}/board.db", dir.display()));
    let mut server = tokio::process::Command::new(&exe)
        .env("BOARD_DATABASE_URL", &url)
        .env("BOARD_FILES_DIR", dir.join("files"))
        .env("BOARD_LISTEN", "127.0.0.1:0")
        .env("BOARD_LOG", "warn")
        .env("BOARD_TRUST_PROXY", "true")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("start board-server");
    let lines = testkit::process::read_until(&mut server, "board-server listening on ")
        .await
        .expect("listening");
    let first = testkit::process::first_run(&lines).expect("first run");
    let (token, tenant) = (first.0, first.1);
    let base = lines
        .iter()
        .find_map(|l| l.split("listening on ").nth(1))
        .unwrap()
        .trim()
        .to_string();
    let code = lines
        .iter()
        .find_map(|l| l.split_once("/reset#").map(|(_, c)| c.trim().to_string()))
        .expect("the first run's reset link");
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(FLOOD + CONNECTIONS)
        .build()
        .unwrap();
    let r = http
        .post(format!("{base}/api/password-reset"))
        .json(&json!({"code": code, "password": PASSWORD}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200, "the reset link sets admin's password");
    for i in 0..50 {
        let body = json!({"tenantId": tenant, "title": format!("card {i}")});
        let r = http
            .post(format!("{base}/api/cards"))
            .bearer_auth(&token)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 201);
    }
    println!("database: {url}");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("cores: {cores}");

    // 1. Sign-ins, beside one hash.
    let hash = one_hash();
    let base = Arc::new(base);
    let sign_ins = {
        let (http, base) = (http.clone(), base.clone());
        load(SIGN_INS, move |i| {
            let (http, base) = (http.clone(), base.clone());
            async move {
                let r = http
                    .post(format!("{base}/api/session"))
                    .header("x-forwarded-for", address(i))
                    .json(&json!({"name": "admin", "password": PASSWORD}))
                    .send()
                    .await;
                r.is_ok_and(|r| r.status() == 200)
            }
        })
        .await
    };
    println!("{}", sign_ins.line("POST /api/session (right password)"));
    println!(
        "  one Argon2id hash here: {:.2} ms; sign-in p50 / hash = {:.2}",
        hash.as_secs_f64() * 1e3,
        sign_ins.pick(0.5).as_secs_f64() / hash.as_secs_f64()
    );

    // 2. The board, alone.
    let board =
        |http: reqwest::Client, base: Arc<String>, token: Arc<String>, tenant: Arc<String>| {
            load(BOARD_READS, move |_| {
                let (http, base, token, tenant) =
                    (http.clone(), base.clone(), token.clone(), tenant.clone());
                async move {
                    let r = http
                        .get(format!("{base}/api/board?tenant={tenant}"))
                        .bearer_auth(token.as_str())
                        .send()
                        .await;
                    match r {
                        Ok(r) if r.status() == 200 => r.bytes().await.is_ok(),
                        _ => false,
                    }
                }
            })
        };
    let (token, tenant) = (Arc::new(token), Arc::new(tenant));
    let alone = board(http.clone(), base.clone(), token.clone(), tenant.clone()).await;
    println!("{}", alone.line("GET /api/board, alone"));

    // 3. The board while 64 clients flood wrong passwords.
    let stop = Arc::new(AtomicBool::new(false));
    let answers = Arc::new(Mutex::new(BTreeMap::<u16, usize>::new()));
    let next = Arc::new(AtomicUsize::new(1_000_000));
    let mut flood = Vec::new();
    for _ in 0..FLOOD {
        let (http, base, stop, answers, next) = (
            http.clone(),
            base.clone(),
            stop.clone(),
            answers.clone(),
            next.clone(),
        );
        flood.push(tokio::spawn(async move {
            while !stop.load(Ordering::Relaxed) {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let r = http
                    .post(format!("{base}/api/session"))
                    .header("x-forwarded-for", address(i))
                    .json(&json!({"name": "admin", "password": "wrong horse battery staple"}))
                    .send()
                    .await;
                let status = r.map_or(0, |r| r.status().as_u16());
                *answers.lock().unwrap().entry(status).or_default() += 1;
            }
        }));
    }
    tokio::time::sleep(Duration::from_secs(2)).await;
    let flooded = board(http.clone(), base.clone(), token.clone(), tenant.clone()).await;
    stop.store(true, Ordering::Relaxed);
    for f in flood {
        f.await.unwrap();
    }
    println!("{}", flooded.line("GET /api/board, 64 clients flooding"));
    println!(
        "  p99 flooded / alone = {:.2}; the flood got {:?} (status: answers)",
        flooded.pick(0.99).as_secs_f64() / alone.pick(0.99).as_secs_f64(),
        answers.lock().unwrap()
    );
}
