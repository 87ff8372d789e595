//! Test harness: a fresh database per test (a SQLite temp file, or a new
//! PostgreSQL database when `BOARD_TEST_POSTGRES_URL` is set), the real
//! `board-server` binary on port 0, the real `board` CLI, and an HTTP client.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Once;
use std::time::Duration;

use serde_json::Value;
use sqlx::{Connection, Executor, PgConnection};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// The PostgreSQL server tests may create databases on, if any.
pub fn postgres_url() -> Option<String> {
    std::env::var("BOARD_TEST_POSTGRES_URL")
        .ok()
        .filter(|s| !s.is_empty())
}

/// Expands each test body into `NAME::sqlite` and `NAME::postgres`; the
/// PostgreSQL variant is `#[ignore]`d when `BOARD_TEST_POSTGRES_URL` was not set
/// at build time (see `build.rs`), so the summary reports it as ignored.
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($backend:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn body($backend: common::Backend) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn sqlite() {
                    body(common::Backend::Sqlite).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[cfg_attr(not(board_test_postgres), ignore = "BOARD_TEST_POSTGRES_URL is not set")]
                async fn postgres() {
                    body(common::Backend::Postgres).await
                }
            }
        )*
    };
}

/// A scratch folder removed on drop.
pub struct TempDir(PathBuf);

impl TempDir {
    pub fn new() -> TempDir {
        static N: AtomicU32 = AtomicU32::new(0);
        let dir = std::env::temp_dir().join(format!(
            "board-test-{}-{}-{}",
            std::process::id(),
            N.fetch_add(1, Ordering::Relaxed),
            &cuid2::create_id()[..8]
        ));
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// A fresh, empty database and a files folder; dropped with the test.
pub struct TestDb {
    pub url: String,
    pub dir: TempDir,
    pg_name: Option<(String, String)>,
}

impl TestDb {
    pub async fn new(backend: Backend) -> TestDb {
        let dir = TempDir::new();
        match backend {
            Backend::Sqlite => TestDb {
                url: format!("sqlite://{}/board.db", dir.path().display()),
                dir,
                pg_name: None,
            },
            Backend::Postgres => {
                let admin = postgres_url().expect("BOARD_TEST_POSTGRES_URL");
                let name = format!("board_test_{}", cuid2::create_id());
                let mut conn = PgConnection::connect(&admin)
                    .await
                    .expect("connect to BOARD_TEST_POSTGRES_URL");
                conn.execute(sqlx::AssertSqlSafe(format!("CREATE DATABASE {name}")))
                    .await
                    .expect("create test database");
                conn.close().await.ok();
                TestDb {
                    url: replace_database(&admin, &name),
                    dir,
                    pg_name: Some((admin, name)),
                }
            }
        }
    }

    pub fn files_dir(&self) -> PathBuf {
        self.dir.path().join("files")
    }
}

/// `postgres://u@h:p/db?x` with `db` replaced by `name`.
pub fn replace_database(url: &str, name: &str) -> String {
    let (base, query) = match url.split_once('?') {
        Some((b, q)) => (b, format!("?{q}")),
        None => (url, String::new()),
    };
    let scheme_end = base.find("://").map(|i| i + 3).unwrap_or(0);
    let host_end = base[scheme_end..]
        .find('/')
        .map(|i| i + scheme_end)
        .unwrap_or(base.len());
    format!("{}/{name}{query}", &base[..host_end])
}

impl Drop for TestDb {
    fn drop(&mut self) {
        if let Some((admin, name)) = self.pg_name.take() {
            // Drop runs outside async: use a thread with its own runtime.
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("runtime");
                rt.block_on(async {
                    if let Ok(mut conn) = PgConnection::connect(&admin).await {
                        let sql = format!("DROP DATABASE IF EXISTS {name} WITH (FORCE)");
                        conn.execute(sqlx::AssertSqlSafe(sql)).await.ok();
                    }
                });
            })
            .join()
            .ok();
        }
    }
}

/// Path of a workspace binary, built once per test process.
pub fn bin(name: &str) -> PathBuf {
    static BUILD: Once = Once::new();
    BUILD.call_once(|| {
        let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
        // The same targets `cargo test --workspace` builds, so the features of
        // every dependency match and only the binaries are linked.
        let status = std::process::Command::new(cargo)
            .args(["build", "--quiet", "--workspace", "--all-targets"])
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .status()
            .expect("run cargo build");
        assert!(status.success(), "building the binaries failed");
    });
    let exe = std::env::current_exe().expect("current exe");
    let profile_dir = exe
        .parent()
        .and_then(Path::parent)
        .expect("target/<profile>");
    let path = profile_dir.join(name);
    assert!(path.exists(), "{} is missing", path.display());
    path
}

/// A running `board-server` on its own fresh database.
pub struct App {
    pub base: String,
    /// The token the first run printed (account `admin`, ADMIN in `Default`).
    pub token: String,
    /// The `Default` workspace the first run created.
    pub tenant: String,
    pub stdout_lines: Vec<String>,
    pub http: reqwest::Client,
    pub child: Child,
    pub db: TestDb,
}

/// Starts `board-server` on `db` (port 0) and waits for it to listen.
pub async fn start_server(db: &TestDb, extra_env: &[(&str, &str)]) -> (Child, String, Vec<String>) {
    let mut cmd = Command::new(bin("board-server"));
    cmd.env("BOARD_DATABASE_URL", &db.url)
        .env("BOARD_FILES_DIR", db.files_dir())
        .env("BOARD_LISTEN", "127.0.0.1:0")
        .env("BOARD_LOG", "warn")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(db.dir.path().join("server.log"))
                .expect("log file"),
        ))
        .kill_on_drop(true);
    for (k, v) in extra_env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn board-server");
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = Vec::new();
    let addr = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.expect("read stdout") {
            seen.push(line.clone());
            if let Some(addr) = line.strip_prefix("board-server listening on ") {
                return addr.to_string();
            }
        }
        let log = std::fs::read_to_string(db.dir.path().join("server.log")).unwrap_or_default();
        panic!("board-server exited before listening: {seen:?}\n{log}");
    })
    .await
    .expect("board-server did not start in time");
    // Keep draining stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    (child, addr, seen)
}

/// The token and tenant id a first run printed.
pub fn first_run(lines: &[String]) -> Option<(String, String)> {
    let token = lines
        .iter()
        .find_map(|l| l.strip_prefix("Bearer token (shown once): "))?;
    let tenant = lines.iter().find_map(|l| {
        let rest = &l[l.find("(tenant ")? + 8..];
        Some(rest[..rest.find(')')?].to_string())
    })?;
    Some((token.to_string(), tenant))
}

/// A fresh database and a server on it, bootstrapped.
pub async fn spawn_app(backend: Backend) -> App {
    spawn_app_with(backend, &[]).await
}

/// [`spawn_app`] with more environment for the server (`BOARD_…` settings).
pub async fn spawn_app_with(backend: Backend, env: &[(&str, &str)]) -> App {
    let db = TestDb::new(backend).await;
    let (child, base, lines) = start_server(&db, env).await;
    let (token, tenant) = first_run(&lines).expect("first run prints a token");
    App {
        base,
        token,
        tenant,
        stdout_lines: lines,
        http: reqwest::Client::new(),
        child,
        db,
    }
}

/// A response: status and JSON body (`Value::Null` when the body is not JSON).
#[derive(Debug)]
pub struct Res {
    pub status: u16,
    pub body: Value,
}

impl App {
    /// Sends a request with the admin token.
    pub async fn call(&self, method: &str, path: &str, body: Option<Value>) -> Res {
        self.call_as(&self.token, method, path, body).await
    }

    /// Sends a request with `token` as bearer (empty: no credential).
    pub async fn call_as(&self, token: &str, method: &str, path: &str, body: Option<Value>) -> Res {
        self.call_at(&self.base, token, method, path, body).await
    }

    /// Sends a request to another server `base` (e.g. a second server on the
    /// same database) with `token` as bearer.
    pub async fn call_at(
        &self,
        base: &str,
        token: &str,
        method: &str,
        path: &str,
        body: Option<Value>,
    ) -> Res {
        let mut req = self.http.request(
            reqwest::Method::from_bytes(method.as_bytes()).expect("method"),
            format!("{base}{path}"),
        );
        if !token.is_empty() {
            req = req.bearer_auth(token);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        read(req.send().await.expect("request")).await
    }

    /// Sends a raw request (custom headers and body bytes).
    pub async fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Res {
        let mut req = self.http.request(
            reqwest::Method::from_bytes(method.as_bytes()).expect("method"),
            format!("{}{path}", self.base),
        );
        for (k, v) in headers {
            req = req.header(*k, *v);
        }
        read(req.body(body.to_string()).send().await.expect("request")).await
    }

    /// Runs the `board` CLI on this app's database.
    pub async fn cli(&self, args: &[&str]) -> Cli {
        cli(&self.db, args).await
    }

    /// Creates a workspace, an account with `role` in it, and a token for it.
    pub async fn account_in(&self, workspace: &str, name: &str, role: &str) -> String {
        let out = self.cli(&["--json", "account", "create", name]).await.ok();
        let id = out["id"].as_str().expect("account id").to_string();
        self.cli(&[
            "member",
            "add",
            "--workspace",
            workspace,
            "--account",
            &id,
            "--role",
            role,
        ])
        .await
        .ok();
        let t = self
            .cli(&["--json", "token", "create", "--account", &id])
            .await
            .ok();
        t["token"].as_str().expect("token").to_string()
    }

    /// Creates a workspace through the CLI and returns its id.
    pub async fn workspace(&self, name: &str) -> String {
        let out = self
            .cli(&["--json", "workspace", "create", name])
            .await
            .ok();
        out["id"].as_str().expect("workspace id").to_string()
    }

    /// The `Default` workspace's columns (To do, Doing, Done).
    pub async fn columns(&self) -> Vec<Value> {
        let r = self
            .call("GET", &format!("/api/columns?tenant={}", self.tenant), None)
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        r.body.as_array().expect("array").clone()
    }

    /// Creates a card in `Default` and returns it.
    pub async fn card(&self, title: &str) -> Value {
        let r = self
            .call(
                "POST",
                "/api/cards",
                Some(serde_json::json!({"tenantId": self.tenant, "title": title})),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        r.body
    }

    /// Opens the app's database through board-core, for checking its state.
    pub async fn board(&self) -> board_core::Board {
        let mut o = board_core::Options::new(&self.db.url);
        o.files_dir = self.db.files_dir();
        o.max_connections = 2;
        board_core::Board::open_with(o).await.expect("open board")
    }
}

async fn read(res: reqwest::Response) -> Res {
    let status = res.status().as_u16();
    let bytes = res.bytes().await.expect("body");
    Res {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}

/// The outcome of one CLI run.
#[derive(Debug)]
pub struct Cli {
    pub success: bool,
    pub stdout: String,
    pub stderr: String,
}

impl Cli {
    /// Asserts success and parses stdout as JSON (`Null` when it is not JSON).
    pub fn ok(self) -> Value {
        assert!(self.success, "board failed: {}", self.stderr);
        serde_json::from_str(&self.stdout).unwrap_or(Value::Null)
    }
}

/// Runs the `board` CLI on `db`.
pub async fn cli(db: &TestDb, args: &[&str]) -> Cli {
    let out = Command::new(bin("board"))
        .args(args)
        .env("BOARD_DATABASE_URL", &db.url)
        .env("BOARD_FILES_DIR", db.files_dir())
        .stdin(Stdio::null())
        .output()
        .await
        .expect("run board");
    Cli {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}
