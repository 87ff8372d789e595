//! Test harness shared by the end-to-end tests of the three packages
//! (`tests/`, `board-server/tests/`, `board-cli/tests/`): a fresh database
//! per test (a SQLite temp file, or a new PostgreSQL database on the server
//! `BOARD_TEST_POSTGRES_URL` names), `board-server` started **in-process** on
//! port 0 ([`spawn_app`]), fixtures made through board-core as the operator
//! (what the `board` CLI would do, without a process), and an HTTP client.
//!
//! Tests whose subject is a process (the first run printing its token,
//! signals, the request log, several server processes, the CLI) use
//! [`process`], given the binary cargo built for the test
//! (`env!("CARGO_BIN_EXE_board-server")`, `env!("CARGO_BIN_EXE_board")`):
//! nothing here runs cargo.
//!
//! A crate rather than a shared `#[path]` module: it is compiled once for
//! every test binary of the workspace, and its dependencies (board-server,
//! reqwest, sqlx) are declared in one place.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use board_core::{Actor, Board, Bootstrap, Input, Name, Role, SettingsPatch};
use serde_json::{json, Value};
use sqlx::{Connection, Executor, PgConnection};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub mod bench;
pub mod counts;
pub mod mail;
pub mod order;
pub mod process;
pub mod receiver;
pub mod sse;
pub mod trello;
pub mod wip;

pub use board_server::Config;

/// Which database a test runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    Sqlite,
    Postgres,
}

/// Where a test's files live.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Files {
    /// A local folder (`--files-dir`).
    Local,
    /// A prefix of its own in the bucket `BOARD_TEST_S3_URL` names (`--files-url`).
    S3,
}

/// What a test runs on: a database and a file store. A bare [`Backend`] is
/// that database with local files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Target {
    pub db: Backend,
    pub files: Files,
}

impl From<Backend> for Target {
    fn from(db: Backend) -> Target {
        Target {
            db,
            files: Files::Local,
        }
    }
}

/// The bucket (`s3://BUCKET[/PREFIX]`) object-store tests may use, if any; the
/// endpoint and credentials are the process's `AWS_…` variables.
pub fn s3_url() -> Option<String> {
    std::env::var("BOARD_TEST_S3_URL")
        .ok()
        .filter(|s| !s.is_empty())
}

/// The PostgreSQL server tests may create databases on, if any.
pub fn postgres_url() -> Option<String> {
    std::env::var("BOARD_TEST_POSTGRES_URL")
        .ok()
        .filter(|s| !s.is_empty())
}

/// Expands each test body into `NAME::sqlite` and `NAME::postgres`; the
/// PostgreSQL variant is `#[ignore]`d when `BOARD_TEST_POSTGRES_URL` was not set
/// at build time, so the summary reports it as ignored. The `cfg` is the test
/// package's own: every package whose tests use this macro has the build script
/// that sets `board_test_postgres` (the root `build.rs`).
#[macro_export]
macro_rules! on_both_backends {
    ($(async fn $name:ident($backend:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn body($backend: $crate::Backend) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn sqlite() {
                    body($crate::Backend::Sqlite).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[cfg_attr(not(board_test_postgres), ignore = "BOARD_TEST_POSTGRES_URL is not set")]
                async fn postgres() {
                    body($crate::Backend::Postgres).await
                }
            }
        )*
    };
}

/// Expands each test body into four variants, one per database and file
/// store: `NAME::sqlite` and `NAME::postgres` on a local folder,
/// `NAME::s3_sqlite` and `NAME::s3_postgres` on the object store. The body
/// takes a [`Target`]. A variant whose database or store is not configured at
/// build time (`BOARD_TEST_POSTGRES_URL`, `BOARD_TEST_S3_URL`) is `#[ignore]`d,
/// so the summary reports it as ignored, never as passed.
#[macro_export]
macro_rules! on_every_store {
    ($(async fn $name:ident($target:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn body($target: $crate::Target) $body

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                async fn sqlite() {
                    body($crate::Backend::Sqlite.into()).await
                }

                #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
                #[cfg_attr(not(board_test_postgres), ignore = "BOARD_TEST_POSTGRES_URL is not set")]
                async fn postgres() {
                    body($crate::Backend::Postgres.into()).await
                }

                $crate::object_store_variants!();
            }
        )*
    };
}

/// Expands each test body about the object store itself into
/// `NAME::s3_sqlite` and `NAME::s3_postgres` (the body takes a [`Target`]),
/// ignored like [`on_every_store!`]'s when not configured.
#[macro_export]
macro_rules! on_the_object_store {
    ($(async fn $name:ident($target:ident) $body:block)*) => {
        $(
            mod $name {
                #[allow(unused_imports)]
                use super::*;

                async fn body($target: $crate::Target) $body

                $crate::object_store_variants!();
            }
        )*
    };
}

/// The two object-store variants of a test whose `body` takes a [`Target`]
/// (part of [`on_every_store!`] and [`on_the_object_store!`]).
#[doc(hidden)]
#[macro_export]
macro_rules! object_store_variants {
    () => {
        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        #[cfg_attr(not(board_test_s3), ignore = "BOARD_TEST_S3_URL is not set")]
        async fn s3_sqlite() {
            body($crate::Target {
                db: $crate::Backend::Sqlite,
                files: $crate::Files::S3,
            })
            .await
        }

        #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
        #[cfg_attr(
            not(all(board_test_s3, board_test_postgres)),
            ignore = "BOARD_TEST_S3_URL or BOARD_TEST_POSTGRES_URL is not set"
        )]
        async fn s3_postgres() {
            body($crate::Target {
                db: $crate::Backend::Postgres,
                files: $crate::Files::S3,
            })
            .await
        }
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

impl Default for TempDir {
    fn default() -> Self {
        TempDir::new()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        std::fs::remove_dir_all(&self.0).ok();
    }
}

/// A fresh, empty database and a files folder (or a fresh prefix of the test
/// bucket); dropped with the test.
pub struct TestDb {
    pub url: String,
    pub dir: TempDir,
    /// `s3://BUCKET/PREFIX` when the files are in the object store.
    pub files_url: Option<String>,
    pg_name: Option<(String, String)>,
}

impl TestDb {
    pub async fn new(target: impl Into<Target>) -> TestDb {
        let target = target.into();
        let dir = TempDir::new();
        let files_url = match target.files {
            Files::Local => None,
            Files::S3 => Some(format!(
                "{}/test-{}",
                s3_url().expect("BOARD_TEST_S3_URL").trim_end_matches('/'),
                cuid2::create_id()
            )),
        };
        match target.db {
            Backend::Sqlite => TestDb {
                url: format!("sqlite://{}/board.db", dir.path().display()),
                dir,
                files_url,
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
                    files_url,
                    pg_name: Some((admin, name)),
                }
            }
        }
    }

    pub fn files_dir(&self) -> PathBuf {
        self.dir.path().join("files")
    }

    /// Opens the database through board-core (migrating it, creating a
    /// missing SQLite file): what `board init` does.
    pub async fn open(&self) -> Board {
        let mut o = board_core::Options::new(&self.url);
        o.files_dir = self.files_dir();
        o.files_url = self.files_url.clone();
        o.max_connections = 2;
        Board::open_with(o).await.expect("open board")
    }

    /// Every name in the test's file store, sorted: in the folder, every entry;
    /// in the bucket, every object and open upload under the test's prefix
    /// (an open upload as `.tmp-NAME`, like a temporary file).
    pub async fn stored_files(&self) -> Vec<String> {
        use board_core::FileStore;
        let Some(url) = &self.files_url else {
            return files_in(&self.files_dir());
        };
        let store = board_core::S3Store::connect(url)
            .await
            .expect("the test bucket");
        let mut names: Vec<String> = store
            .list()
            .await
            .expect("list the test bucket")
            .into_iter()
            .map(|e| {
                if e.temporary {
                    format!(".tmp-{}", e.name)
                } else {
                    e.name
                }
            })
            .collect();
        names.sort();
        names
    }
}

/// Names in a folder, sorted (temporaries included); none when it is missing.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
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

/// The server configuration for `db` on `127.0.0.1:0`, with `env`'s
/// `BOARD_…` settings applied as the flags they stand for (`BOARD_ATTACHMENTS`
/// is `--attachments`). Parsed from arguments only: the environment of the test
/// process is never read (tests run in parallel threads of one process, so
/// none of them sets a variable), and a setting no flag has is refused.
pub fn config(db: &TestDb, env: &[(&str, &str)]) -> Config {
    use clap::{CommandFactory, FromArgMatches};
    let command = Config::command().mut_args(|a| a.env(None));
    let files_dir = db.files_dir().display().to_string();
    let mut settings: Vec<(String, String)> = vec![
        ("--database-url".into(), db.url.clone()),
        ("--files-dir".into(), files_dir),
        ("--listen".into(), "127.0.0.1:0".into()),
    ];
    if let Some(url) = &db.files_url {
        settings.push(("--files-url".into(), url.clone()));
    }
    for (name, value) in env {
        let flag = Config::command()
            .get_arguments()
            .find(|a| a.get_env().is_some_and(|e| e == *name))
            .and_then(|a| a.get_long().map(|l| format!("--{l}")))
            .unwrap_or_else(|| {
                panic!("{name} is not a server setting with a flag (a process-level one needs testkit::process)")
            });
        settings.retain(|(f, _)| *f != flag);
        settings.push((flag, value.to_string()));
    }
    let args = std::iter::once("board-server".to_string())
        .chain(settings.into_iter().map(|(f, v)| format!("{f}={v}")));
    let matches = command
        .try_get_matches_from(args)
        .unwrap_or_else(|e| panic!("server settings {env:?}: {e}"));
    Config::from_arg_matches(&matches).expect("config")
}

/// A `board-server` running in this process (on the test's runtime); it stops
/// when dropped.
pub struct Running {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// What the first-run bootstrap created, when it ran.
    pub first_run: Option<Bootstrap>,
    /// The first run's reset link for `admin`, when it ran.
    pub first_reset: Option<String>,
    /// The server's own board (the same pool and write queue), for fixtures.
    pub board: Board,
    shutdown: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

/// Builds (bind, open, sweep, bootstrap) and serves a server with `config`.
pub async fn start(config: Config) -> Running {
    let server = board_server::Server::build(config)
        .await
        .expect("board-server starts");
    let base = format!("http://{}", server.addr());
    let first_run = server.first_run().cloned();
    let first_reset = server.first_reset_link().map(str::to_string);
    let board = server.board().clone();
    let (tx, rx) = oneshot::channel::<()>();
    let task = tokio::spawn(server.serve(async {
        rx.await.ok();
    }));
    Running {
        base,
        first_run,
        first_reset,
        board,
        shutdown: Some(tx),
        task: Some(task),
    }
}

impl Running {
    /// Stops gracefully: requests in flight finish, the pool is closed.
    pub async fn stop(mut self) {
        if let Some(tx) = self.shutdown.take() {
            tx.send(()).ok();
        }
        if let Some(task) = self.task.take() {
            task.await
                .expect("server task")
                .expect("server stops cleanly");
        }
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            tx.send(()).ok();
        }
    }
}

/// A server running in this process on its own fresh database, bootstrapped.
pub struct App {
    pub base: String,
    /// The first run's token (account `admin`, ADMIN in `Default`).
    pub token: String,
    /// The `Default` workspace the first run created.
    pub tenant: String,
    /// The first run's reset link for `admin` (api.md §23).
    pub first_reset: String,
    pub http: reqwest::Client,
    /// The server (dropped before the database); `None` while stopped.
    server: Option<Running>,
    pub config: Config,
    pub db: TestDb,
}

/// A fresh database and a server on it, bootstrapped.
pub async fn spawn_app(target: impl Into<Target>) -> App {
    spawn_app_with(target, &[]).await
}

/// [`spawn_app`] with more server settings, named by their environment
/// variables (`BOARD_…`), applied as flags (see [`config`]).
pub async fn spawn_app_with(target: impl Into<Target>, env: &[(&str, &str)]) -> App {
    let db = TestDb::new(target).await;
    app_on(db, env).await
}

/// A server on `db` (empty: the first run bootstraps it).
pub async fn app_on(db: TestDb, env: &[(&str, &str)]) -> App {
    let config = config(&db, env);
    let server = start(config.clone()).await;
    let first = server.first_run.as_ref().expect("the first run bootstraps");
    App {
        base: server.base.clone(),
        token: first.token.token.clone(),
        tenant: first.workspace.id.as_str().to_string(),
        first_reset: server
            .first_reset
            .clone()
            .expect("the first run's reset link"),
        http: reqwest::Client::new(),
        server: Some(server),
        config,
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
        request(&self.http, base, token, method, path, body).await
    }

    /// POSTs a multipart form of `(field, file name, bytes)` parts with `token`
    /// (empty: no credential).
    pub async fn upload(&self, token: &str, path: &str, parts: &[(&str, &str, Vec<u8>)]) -> Res {
        self.upload_at(&self.base, token, path, parts).await
    }

    /// [`App::upload`] to another server `base` on the same database.
    pub async fn upload_at(
        &self,
        base: &str,
        token: &str,
        path: &str,
        parts: &[(&str, &str, Vec<u8>)],
    ) -> Res {
        let mut form = reqwest::multipart::Form::new();
        for (field, name, bytes) in parts {
            let part = reqwest::multipart::Part::bytes(bytes.clone()).file_name(name.to_string());
            form = form.part(field.to_string(), part);
        }
        let mut req = self.http.post(format!("{base}{path}")).multipart(form);
        if !token.is_empty() {
            req = req.bearer_auth(token);
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

    /// The server's board, for fixtures made as the operator (what the CLI does).
    pub fn operator(&self) -> &Board {
        &self.server.as_ref().expect("the server is running").board
    }

    /// Creates an account with `role` (`viewer`, `member`, `admin`) in
    /// `workspace` and returns a new token for it.
    pub async fn account_in(&self, workspace: &str, name: &str, role: &str) -> String {
        let board = self.operator();
        let account = board
            .admin()
            .create_account(&Name::parse(name).expect("name"))
            .await
            .expect("create account");
        self.member(workspace, account.id.as_str(), role).await;
        board
            .admin()
            .create_token(&account.id, None)
            .await
            .expect("create token")
            .token
    }

    /// Gives the account (id or name) `role` in `workspace` (id or name).
    pub async fn member(&self, workspace: &str, account: &str, role: &str) {
        let board = self.operator();
        let ws = board
            .admin()
            .find_workspace(workspace)
            .await
            .expect("workspace");
        let acc = board.admin().find_account(account).await.expect("account");
        let role = match role {
            "viewer" => Role::Viewer,
            "member" => Role::Member,
            "admin" => Role::Admin,
            other => panic!("role {other:?}"),
        };
        board
            .admin()
            .add_member(&ws.id, &acc.id, role)
            .await
            .expect("add member");
    }

    /// Creates a workspace and returns its id.
    pub async fn workspace(&self, name: &str) -> String {
        let ws = self
            .operator()
            .admin()
            .create_workspace(&Name::parse(name).expect("name"))
            .await
            .expect("create workspace");
        ws.id.as_str().to_string()
    }

    /// Creates a project of `workspace` (id or name) and returns its id.
    pub async fn project(&self, workspace: &str, name: &str) -> String {
        let board = self.operator();
        let ws = board
            .admin()
            .find_workspace(workspace)
            .await
            .expect("workspace");
        let p = board
            .admin()
            .create_project(&ws.id, &Name::parse(name).expect("name"))
            .await
            .expect("create project");
        p.id.as_str().to_string()
    }

    /// Changes settings as the operator: `patch` is a settings body
    /// (`{"tenantId": …, "columnScope": "PROJECT"}`); returns the settings.
    pub async fn settings(&self, patch: Value) -> Value {
        let s = self
            .operator()
            .update_settings(&Actor::Operator, Input::<SettingsPatch>::from_value(&patch))
            .await
            .expect("update settings");
        serde_json::to_value(s).expect("settings as JSON")
    }

    /// Creates a card as the operator in `workspace` (an id), whatever the
    /// admin reaches; returns it.
    pub async fn card_in(&self, workspace: &str, title: &str) -> Value {
        let input = Input::from_value(&json!({"tenantId": workspace, "title": title}));
        let card = self
            .operator()
            .create_card(&Actor::Operator, input)
            .await
            .expect("create card");
        serde_json::to_value(card).expect("card as JSON")
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
                Some(json!({"tenantId": self.tenant, "title": title})),
            )
            .await;
        assert_eq!(r.status, 201, "{:?}", r.body);
        r.body
    }

    /// Opens the app's database through board-core (a pool of its own), for
    /// checking its state.
    pub async fn board(&self) -> Board {
        self.db.open().await
    }

    /// Stops the server gracefully (requests in flight finish); [`App::start`]
    /// starts it again on the same database and settings.
    pub async fn stop(&mut self) {
        if let Some(server) = self.server.take() {
            server.stop().await;
        }
    }

    /// Starts the server again (a new port) after [`App::stop`].
    pub async fn start(&mut self) {
        let server = start(self.config.clone()).await;
        self.base = server.base.clone();
        self.server = Some(server);
    }

    /// Another server in this process on the same database: its own board,
    /// pool and write queue, so to the database it is another server.
    pub async fn second_server(&self) -> Running {
        start(self.config.clone()).await
    }
}

/// Sends a request to `base` with `token` as bearer (empty: no credential)
/// and a JSON body.
pub async fn request(
    http: &reqwest::Client,
    base: &str,
    token: &str,
    method: &str,
    path: &str,
    body: Option<Value>,
) -> Res {
    let mut req = http.request(
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

async fn read(res: reqwest::Response) -> Res {
    let status = res.status().as_u16();
    let bytes = res.bytes().await.expect("body");
    Res {
        status,
        body: serde_json::from_slice(&bytes).unwrap_or(Value::Null),
    }
}
