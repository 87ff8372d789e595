//! 503 `UNAVAILABLE` with `Retry-After` when the database cannot be reached
//! (api.md §12): the server talks to PostgreSQL through a TCP proxy that the
//! test cuts and restores.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::json;
use testkit as common;
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// A TCP proxy to `target`. While cut, it drops every connection it carries
/// and resets every new one, as a database restart or a broken network does.
struct Proxy {
    addr: String,
    up: Arc<AtomicBool>,
    links: Arc<Mutex<Vec<JoinHandle<()>>>>,
    accept: JoinHandle<()>,
}

impl Proxy {
    async fn start(target: String) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let addr = listener.local_addr().expect("addr").to_string();
        let up = Arc::new(AtomicBool::new(true));
        let links: Arc<Mutex<Vec<JoinHandle<()>>>> = Arc::default();
        let (up2, links2) = (up.clone(), links.clone());
        let accept = tokio::spawn(async move {
            while let Ok((mut client, _)) = listener.accept().await {
                if !up2.load(Ordering::SeqCst) {
                    drop(client);
                    continue;
                }
                let target = target.clone();
                links2.lock().unwrap().push(tokio::spawn(async move {
                    if let Ok(mut server) = TcpStream::connect(&target).await {
                        tokio::io::copy_bidirectional(&mut client, &mut server)
                            .await
                            .ok();
                    }
                }));
            }
        });
        Proxy {
            addr,
            up,
            links,
            accept,
        }
    }

    fn cut(&self) {
        self.up.store(false, Ordering::SeqCst);
        for link in self.links.lock().unwrap().drain(..) {
            link.abort();
        }
    }

    fn restore(&self) {
        self.up.store(true, Ordering::SeqCst);
    }
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.cut();
        self.accept.abort();
    }
}

/// `host:port` of a `postgres://user@host:port/db` URL.
fn authority(url: &str) -> &str {
    let rest = &url[url.find("://").expect("scheme") + 3..];
    let rest = &rest[rest.find('@').map_or(0, |i| i + 1)..];
    &rest[..rest.find('/').unwrap_or(rest.len())]
}

/// A server on a new PostgreSQL database, its connections through a [`Proxy`].
async fn behind_proxy() -> (common::TestDb, Proxy, common::Running) {
    let db = common::TestDb::new(common::Backend::Postgres).await;
    let target = authority(&db.url).to_string();
    let proxy = Proxy::start(target.clone()).await;
    let via_proxy = db.url.replacen(&target, &proxy.addr, 1);
    let server = common::start(common::config(&db, &[("BOARD_DATABASE_URL", &via_proxy)])).await;
    (db, proxy, server)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn a_lost_database_is_503_with_retry_after_and_comes_back() {
    let (_db, proxy, server) = behind_proxy().await;
    let first = server.first_run.as_ref().expect("first run");
    let (base, token) = (server.base.clone(), first.token.token.clone());
    let tenant = first.workspace.id.as_str().to_string();
    let http = reqwest::Client::new();
    let card = json!({"tenantId": tenant, "title": "t"});
    let get = |path: &str| http.get(format!("{base}{path}")).bearer_auth(&token).send();
    let post = || {
        http.post(format!("{base}/api/cards"))
            .bearer_auth(&token)
            .json(&card)
            .send()
    };
    let created: serde_json::Value = post().await.unwrap().json().await.unwrap();
    assert_eq!(get("/healthz").await.unwrap().status(), 200);
    // A stored file: while the database is away, its download is 503 too,
    // not 404 (api.md §21).
    let part = reqwest::multipart::Part::bytes(b"plain notes\n".to_vec()).file_name("n.txt");
    let uploaded: serde_json::Value = http
        .post(format!(
            "{base}/api/cards/{}/attachments",
            created["id"].as_str().unwrap()
        ))
        .bearer_auth(&token)
        .multipart(reqwest::multipart::Form::new().part("files", part))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let file = uploaded[0]["url"].as_str().expect("an upload").to_string();
    assert_eq!(get(&file).await.unwrap().status(), 200);

    proxy.cut();
    let started = Instant::now();
    for res in [
        get("/healthz").await.unwrap(),
        get(&format!("/api/columns?tenant={tenant}")).await.unwrap(),
        post().await.unwrap(),
        get(&file).await.unwrap(),
    ] {
        assert_eq!(res.status(), 503);
        let retry: u64 = res.headers()["retry-after"]
            .to_str()
            .unwrap()
            .parse()
            .unwrap();
        assert!(retry > 0);
        let body: serde_json::Value = res.json().await.unwrap();
        assert_eq!(body["error"], "UNAVAILABLE", "{body}");
    }
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "answered in {:?}",
        started.elapsed()
    );

    proxy.restore();
    let back = Instant::now();
    loop {
        if get("/healthz").await.unwrap().status() == 200 {
            break;
        }
        assert!(back.elapsed() < Duration::from_secs(30), "never came back");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(post().await.unwrap().status(), 201);
    let columns = get(&format!("/api/board?tenant={tenant}")).await.unwrap();
    let board: serde_json::Value = columns.json().await.unwrap();
    let cards: usize = board["columns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["cards"].as_array().unwrap().len())
        .sum();
    assert_eq!(cards, 2, "the refused create wrote nothing");
}

/// The pool hands out a connection without a ping only when it sat idle
/// under 5 s (`store::connect`). Connections that sat idle longer while the
/// database went and came back are tested first and replaced: no request
/// after such a quiet outage fails.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[cfg_attr(
    not(board_test_postgres),
    ignore = "BOARD_TEST_POSTGRES_URL is not set"
)]
async fn connections_broken_while_idle_are_replaced_before_use() {
    let (_db, proxy, server) = behind_proxy().await;
    let first = server.first_run.as_ref().expect("first run");
    let (base, token) = (server.base.clone(), first.token.token.clone());
    let columns = format!("{base}/api/columns?tenant={}", first.workspace.id.as_str());
    let http = reqwest::Client::new();
    // Several connections open and go back to the pool.
    let warm: Vec<_> = (0..8)
        .map(|_| {
            let request = http.get(&columns).bearer_auth(&token).send();
            tokio::spawn(async move { request.await.unwrap().status().as_u16() })
        })
        .collect();
    for answer in warm {
        assert_eq!(answer.await.unwrap(), 200);
    }
    // Every connection the proxy carries is dropped; new ones go through.
    proxy.cut();
    proxy.restore();
    tokio::time::sleep(Duration::from_secs(6)).await;
    for _ in 0..16 {
        let res = http.get(&columns).bearer_auth(&token).send().await.unwrap();
        assert_eq!(res.status(), 200, "{}", res.text().await.unwrap());
    }
}
