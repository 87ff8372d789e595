//! The server process: graceful shutdown, several servers on one database.

mod common;

use std::time::Duration;

use common::{start_server, Backend, TestDb};

on_both_backends! {
    async fn sigterm_stops_the_server_with_exit_0(backend) {
        let app = common::spawn_app(backend).await;
        let mut app = app;
        let pid = app.child.id().expect("pid").to_string();
        let status = std::process::Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(status.success());
        let exit = tokio::time::timeout(Duration::from_secs(30), app.child.wait())
            .await
            .expect("server stops after SIGTERM")
            .unwrap();
        assert!(exit.success(), "{exit:?}");
    }
}

/// Several `board-server` processes started together on one empty PostgreSQL
/// database: exactly one bootstraps.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_first_starts_bootstrap_once_on_postgres() {
    if common::postgres_url().is_none() {
        eprintln!("skipped: BOARD_TEST_POSTGRES_URL is not set");
        return;
    }
    let db = TestDb::new(Backend::Postgres).await;
    let (a, b, c, d) = tokio::join!(
        start_server(&db, &[]),
        start_server(&db, &[]),
        start_server(&db, &[]),
        start_server(&db, &[])
    );
    let servers = [a, b, c, d];
    let tokens = servers
        .iter()
        .filter(|(_, _, lines)| common::first_run(lines).is_some())
        .count();
    assert_eq!(tokens, 1, "exactly one server bootstraps");
    let ws = common::cli(&db, &["--json", "workspace", "list"])
        .await
        .ok();
    assert_eq!(ws.as_array().unwrap().len(), 1);
}
