//! The binaries as processes, for the tests whose subject is a process: the
//! first run printing its token, signals, the request log, several server
//! processes on one database, and the `board` CLI. The binary's path comes
//! from the test (`env!("CARGO_BIN_EXE_board-server")` or
//! `env!("CARGO_BIN_EXE_board")`), which cargo builds before the tests run.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

use crate::TestDb;

/// A `board-server` process started by [`start_server`].
pub struct ServerProcess {
    pub child: Child,
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// What it printed on standard output up to "listening".
    pub lines: Vec<String>,
}

/// Starts the `board-server` binary `bin` on `db` (port 0) with more
/// environment `env`, and waits for it to listen. Its standard error (the
/// log) goes to `server.log` in the test's folder.
pub async fn start_server(bin: &str, db: &TestDb, env: &[(&str, &str)]) -> ServerProcess {
    let mut cmd = Command::new(bin);
    cmd.env("BOARD_DATABASE_URL", &db.url)
        .env("BOARD_FILES_DIR", db.files_dir())
        .env("BOARD_LISTEN", "127.0.0.1:0")
        .env("BOARD_LOG", "warn")
        .env_remove("BOARD_SMTP_URL")
        .env_remove("BOARD_MAIL_FROM")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(log_path(db))
                .expect("log file"),
        ))
        .kill_on_drop(true);
    files_url(&mut cmd, db);
    for (k, v) in env {
        cmd.env(k, v);
    }
    let mut child = cmd.spawn().expect("spawn board-server");
    let seen = tokio::time::timeout(Duration::from_secs(60), read_until(&mut child, LISTENING))
        .await
        .expect("board-server did not start in time")
        .unwrap_or_else(|seen| {
            let log = std::fs::read_to_string(log_path(db)).unwrap_or_default();
            panic!("board-server exited before listening: {seen:?}\n{log}");
        });
    ServerProcess {
        child,
        base: listening_on(&seen).expect("the listening line"),
        lines: seen,
    }
}

/// The line `board-server` prints once it listens, before its base URL.
const LISTENING: &str = "board-server listening on ";

/// Reads the piped standard output of `child` up to the line starting with
/// `until` (returned last), then drains the rest in the background so the
/// process never blocks on a full pipe. `Err` holds the lines read when the
/// output ended first.
pub async fn read_until(child: &mut Child, until: &str) -> Result<Vec<String>, Vec<String>> {
    let stdout = child.stdout.take().expect("stdout is piped");
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = Vec::new();
    while let Some(line) = lines.next_line().await.expect("read stdout") {
        let done = line.starts_with(until);
        seen.push(line);
        if done {
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            return Ok(seen);
        }
    }
    Err(seen)
}

/// The base URL (`http://127.0.0.1:PORT`) a `board-server` printed.
fn listening_on(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .find_map(|l| l.strip_prefix(LISTENING))
        .map(str::to_string)
}

/// What the first run of a `board-server` process printed.
#[derive(Debug, Clone)]
pub struct FirstRun {
    /// `http://127.0.0.1:PORT`
    pub base: String,
    /// The admin's bearer token.
    pub token: String,
    /// The id of the workspace `Default`.
    pub tenant: String,
}

/// Waits for a `board-server` process started on a fresh database, its
/// standard output piped, to listen, and reads what its first run printed
/// (the rest of its output is drained in the background). Panics when it
/// exits first or prints no first run.
pub async fn read_first_run(child: &mut Child) -> FirstRun {
    let lines = read_until(child, LISTENING)
        .await
        .unwrap_or_else(|seen| panic!("board-server exited before listening: {seen:?}"));
    let (token, tenant) =
        first_run(&lines).unwrap_or_else(|| panic!("no first-run token in {lines:?}"));
    FirstRun {
        base: listening_on(&lines).expect("the listening line"),
        token,
        tenant,
    }
}

/// Where [`start_server`] writes the server's log.
pub fn log_path(db: &TestDb) -> std::path::PathBuf {
    db.dir.path().join("server.log")
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

/// Runs the `board` binary `bin` on `db`.
pub async fn cli(bin: impl AsRef<Path>, db: &TestDb, args: &[&str]) -> Cli {
    let mut cmd = Command::new(bin.as_ref());
    cmd.args(args)
        .env("BOARD_DATABASE_URL", &db.url)
        .env("BOARD_FILES_DIR", db.files_dir())
        .env_remove("BOARD_SMTP_URL")
        .env_remove("BOARD_MAIL_FROM")
        .env_remove("BOARD_PUBLIC_URL")
        .stdin(Stdio::null());
    files_url(&mut cmd, db);
    let out = cmd.output().await.expect("run board");
    Cli {
        success: out.status.success(),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// `BOARD_FILES_URL` for a test on the object store; never inherited otherwise.
fn files_url(cmd: &mut Command, db: &TestDb) {
    match &db.files_url {
        Some(url) => cmd.env("BOARD_FILES_URL", url),
        None => cmd.env_remove("BOARD_FILES_URL"),
    };
}
