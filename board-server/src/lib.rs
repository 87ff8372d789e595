//! board-server: the HTTP contract of the board service over `board-core`.
//!
//! Thin by design: each handler parses the request, calls one core operation and
//! maps its typed error to a status (see `ARCHITECTURE.md`).

pub mod auth;
pub mod config;
pub mod error;
pub mod metrics;
pub mod observe;
pub mod routes;

use std::sync::Arc;

use board_core::{Board, Options};
use tokio::net::TcpListener;
use warp::Filter;

pub use config::Config;

/// Opens the board, runs the first-run bootstrap, binds, and serves until
/// SIGINT or SIGTERM; requests in flight finish before it returns.
pub async fn run(config: Config) -> anyhow::Result<()> {
    let mut options = Options::new(&config.database_url);
    options.files_dir = config.files_dir.clone();
    let board = Board::open_with(options).await?;
    if let Some(first) = board.bootstrap().await? {
        println!(
            "First run: created workspace \"{}\" (tenant {}) and account \"{}\" (ADMIN).",
            first.workspace.name, first.workspace.id, first.account.name
        );
        println!("Bearer token (shown once): {}", first.token.token);
    }
    let listener = TcpListener::bind(config.listen).await?;
    let addr = listener.local_addr()?;
    let metrics = Arc::new(metrics::Metrics::default());
    let app = Arc::new(routes::App {
        board: board.clone(),
        config,
        metrics: metrics.clone(),
    });
    let routes = observe::wrap(routes::all(app).recover(error::recover), metrics);
    println!("board-server listening on http://{addr}");
    tracing::info!(%addr, backend = ?board.backend(), "listening");
    warp::serve(routes)
        .incoming(listener)
        .graceful(shutdown_signal())
        .run()
        .await;
    board.close().await;
    tracing::info!("stopped");
    Ok(())
}

async fn shutdown_signal() {
    let ctrl_c = async {
        tokio::signal::ctrl_c().await.ok();
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => {},
        _ = term => {},
    }
    tracing::info!("shutting down: finishing requests in flight");
}
