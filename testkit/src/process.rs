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
    let stdout = child.stdout.take().expect("stdout");
    let mut lines = BufReader::new(stdout).lines();
    let mut seen = Vec::new();
    let base = tokio::time::timeout(Duration::from_secs(60), async {
        while let Some(line) = lines.next_line().await.expect("read stdout") {
            seen.push(line.clone());
            if let Some(addr) = line.strip_prefix("board-server listening on ") {
                return addr.to_string();
            }
        }
        let log = std::fs::read_to_string(log_path(db)).unwrap_or_default();
        panic!("board-server exited before listening: {seen:?}\n{log}");
    })
    .await
    .expect("board-server did not start in time");
    // Keep draining stdout so the server never blocks on a full pipe.
    tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    ServerProcess {
        child,
        base,
        lines: seen,
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
