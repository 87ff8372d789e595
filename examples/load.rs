//! Load figures for comments and uploads against a release `board-server` on a
//! fresh SQLite database:
//!
//! ```text
//! cargo build --release -p board-server
//! cargo run --release --example load
//! ```
//!
//! 1. eight concurrent 10 MiB uploads, then the server's peak RSS (VmHWM);
//! 2. `POST /api/cards/[id]/comments` at 32 connections (1,000 requests, which
//!    leaves the card with 1,000 comments);
//! 3. `GET /api/cards/[id]/comments` of that card at 32 connections;
//! 4. with `BOARD_TEST_S3_URL=s3://BUCKET` (and the `AWS_…` variables of the
//!    server holding it) set: the eight uploads again, against a fresh server
//!    with `--files-url` in that bucket, with its own peak RSS.
//!
//! Prints requests/s and p50/p99 latencies. Bounded request counts; no assertion.

use std::process::Stdio;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Semaphore;

const CONNECTIONS: usize = 32;
const POSTS: usize = 1_000;
const GETS: usize = 1_000;
const UPLOADS: usize = 8;
const UPLOAD_BYTES: usize = 10 * 1024 * 1024;

#[tokio::main]
async fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let exe = root.join("target/release/board-server");
    assert!(
        exe.exists(),
        "run `cargo build --release -p board-server` first"
    );
    let dir = std::env::temp_dir().join(format!("board-load-{}", std::process::id()));
    let (mut child, server) = start(&exe, &dir, None).await;
    let Server {
        pid, base, token, ..
    } = server.clone();
    let http = reqwest::Client::builder()
        .pool_max_idle_per_host(CONNECTIONS)
        .build()
        .unwrap();
    let card = uploads(&http, &server, "local folder").await;

    // 2. Comment POSTs at 32 connections.
    let post = run(&http, POSTS, |http| {
        let (base, token, card) = (base.clone(), token.clone(), card.clone());
        async move {
            http.post(format!("{base}/api/cards/{card}/comments"))
                .bearer_auth(&token)
                .json(&json!({"content": "A comment with **Markdown** and some text to store. ✓"}))
                .send()
                .await
                .map(|r| r.status().as_u16())
                .unwrap_or(0)
        }
    })
    .await;
    post.print("POST /api/cards/[id]/comments", 201);

    // 3. GET of the 1,000-comment card at 32 connections.
    let all: Value = http
        .get(format!("{base}/api/cards/{card}/comments"))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let count = all.as_array().map_or(0, Vec::len);
    let bytes = serde_json::to_vec(&all).unwrap().len();
    println!(
        "the card has {count} comments ({} KiB of JSON)",
        bytes >> 10
    );
    assert_eq!(count, POSTS);
    let get = run(&http, GETS, |http| {
        let (base, token, card) = (base.clone(), token.clone(), card.clone());
        async move {
            match http
                .get(format!("{base}/api/cards/{card}/comments"))
                .bearer_auth(&token)
                .send()
                .await
            {
                Ok(r) => {
                    let status = r.status().as_u16();
                    // The body is read whole; its count was checked once before.
                    r.bytes().await.map(|_| status).unwrap_or(0)
                }
                Err(_) => 0,
            }
        }
    })
    .await;
    get.print("GET /api/cards/[id]/comments (1,000 comments)", 200);
    println!(
        "peak RSS at the end (VmHWM): {}",
        status_field(pid, "VmHWM")
    );
    child.kill().await.ok();

    // 4. The same uploads to the object store, on a fresh server.
    if let Ok(bucket) = std::env::var("BOARD_TEST_S3_URL") {
        let url = format!(
            "{}/load-{}",
            bucket.trim_end_matches('/'),
            std::process::id()
        );
        let dir = dir.join("s3");
        std::fs::create_dir_all(&dir).unwrap();
        let (mut child, server) = start(&exe, &dir, Some(&url)).await;
        uploads(&http, &server, &url).await;
        child.kill().await.ok();
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[derive(Clone)]
struct Server {
    pid: u32,
    base: String,
    token: String,
    tenant: String,
}

/// Starts the release server on a fresh SQLite database in `dir`, its files in
/// `dir/files` or in the bucket `files_url`; waits for it to listen.
async fn start(
    exe: &std::path::Path,
    dir: &std::path::Path,
    files_url: Option<&str>,
) -> (tokio::process::Child, Server) {
    std::fs::create_dir_all(dir).unwrap();
    let mut cmd = tokio::process::Command::new(exe);
    cmd.env(
        "BOARD_DATABASE_URL",
        format!("sqlite://{}/board.db", dir.display()),
    )
    .env("BOARD_FILES_DIR", dir.join("files"))
    .env("BOARD_LISTEN", "127.0.0.1:0")
    .env("BOARD_LOG", "warn")
    .env_remove("BOARD_FILES_URL")
    .stdout(Stdio::piped())
    .stderr(Stdio::inherit())
    .kill_on_drop(true);
    if let Some(url) = files_url {
        cmd.env("BOARD_FILES_URL", url);
    }
    let mut child = cmd.spawn().expect("start board-server");
    let pid = child.id().expect("pid");
    let testkit::process::FirstRun {
        base,
        token,
        tenant,
    } = testkit::process::read_first_run(&mut child).await;
    let server = Server {
        pid,
        base,
        token,
        tenant,
    };
    (child, server)
}

/// Eight concurrent 10 MiB uploads to a new card; prints the time and the
/// server's peak RSS; returns the card.
async fn uploads(http: &reqwest::Client, server: &Server, store: &str) -> String {
    let Server {
        pid,
        base,
        token,
        tenant,
    } = server.clone();
    let created: Value = http
        .post(format!("{base}/api/cards"))
        .bearer_auth(&token)
        .json(&json!({"tenantId": tenant, "title": "Load"}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let card = created["id"].as_str().expect("card").to_string();
    println!("server pid {pid}, base {base}, card {card}");
    println!("rss before: {}", status_field(pid, "VmRSS"));

    // 1. Eight concurrent 10 MiB uploads.
    let mut body = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
    body.resize(UPLOAD_BYTES, 0);
    let body = Arc::new(body);
    let start = Instant::now();
    let mut tasks = Vec::new();
    for i in 0..UPLOADS {
        let (http, base, token, card, body) = (
            http.clone(),
            base.clone(),
            token.clone(),
            card.clone(),
            body.clone(),
        );
        tasks.push(tokio::spawn(async move {
            let part =
                reqwest::multipart::Part::bytes(body.to_vec()).file_name(format!("big-{i}.png"));
            let form = reqwest::multipart::Form::new().part("files", part);
            let res = http
                .post(format!("{base}/api/cards/{card}/attachments"))
                .bearer_auth(&token)
                .multipart(form)
                .send()
                .await
                .unwrap();
            res.status().as_u16()
        }));
    }
    let mut statuses = Vec::new();
    for t in tasks {
        statuses.push(t.await.unwrap());
    }
    println!(
        "uploads to {store}: {UPLOADS} x {} MiB concurrently in {:.2} s, statuses {statuses:?}",
        UPLOAD_BYTES >> 20,
        start.elapsed().as_secs_f64()
    );
    println!(
        "peak RSS after uploads (VmHWM): {}",
        status_field(pid, "VmHWM")
    );

    card
}

struct Outcome {
    latencies: Vec<Duration>,
    statuses: Vec<u16>,
    elapsed: Duration,
}

impl Outcome {
    fn print(mut self, what: &str, ok: u16) {
        self.latencies.sort();
        let pct = |p: f64| {
            let i = ((self.latencies.len() as f64 * p).ceil() as usize).saturating_sub(1);
            self.latencies[i].as_secs_f64() * 1000.0
        };
        let good = self.statuses.iter().filter(|s| **s == ok).count();
        println!(
            "{what}: {} requests ({good} x {ok}) at {CONNECTIONS} connections in {:.2} s: {:.0} req/s, p50 {:.1} ms, p99 {:.1} ms",
            self.statuses.len(),
            self.elapsed.as_secs_f64(),
            self.statuses.len() as f64 / self.elapsed.as_secs_f64(),
            pct(0.50),
            pct(0.99)
        );
    }
}

async fn run<F, Fut>(http: &reqwest::Client, total: usize, make: F) -> Outcome
where
    F: Fn(reqwest::Client) -> Fut,
    Fut: std::future::Future<Output = u16> + Send + 'static,
{
    let gate = Arc::new(Semaphore::new(CONNECTIONS));
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(total);
    for _ in 0..total {
        let permit = gate.clone().acquire_owned().await.unwrap();
        let fut = make(http.clone());
        tasks.push(tokio::spawn(async move {
            let t = Instant::now();
            let status = fut.await;
            drop(permit);
            (t.elapsed(), status)
        }));
    }
    let mut out = Outcome {
        latencies: Vec::new(),
        statuses: Vec::new(),
        elapsed: Duration::ZERO,
    };
    for t in tasks {
        let (lat, status) = t.await.unwrap();
        out.latencies.push(lat);
        out.statuses.push(status);
    }
    out.elapsed = start.elapsed();
    out
}

fn status_field(pid: u32, field: &str) -> String {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with(field))
                .map(|l| l.split_whitespace().skip(1).collect::<Vec<_>>().join(" "))
        })
        .unwrap_or_else(|| "n/a".into())
}
