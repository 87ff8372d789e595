//! board-server: the HTTP contract of the board service over `board-core`.
//!
//! Thin by design: each handler parses the request, calls one core operation and
//! maps its typed error to a status (see `ARCHITECTURE.md`).

pub mod auth;
pub mod browser;
pub mod config;
mod conn;
pub mod error;
pub mod metrics;
pub mod observe;
pub mod openapi;
pub mod proxy;
pub mod routes;
pub mod ui;

use std::net::SocketAddr;
use std::sync::Arc;

use board_core::{Board, Bootstrap, Options};
use tokio::net::TcpListener;
use warp::Filter;

pub use config::Config;

/// Binds, opens the board, runs the first-run bootstrap (printing its token),
/// and serves until SIGINT or SIGTERM; requests in flight finish before it
/// returns.
pub async fn run(config: Config) -> anyhow::Result<()> {
    let server = Server::build(config).await?;
    if let Some(first) = server.first_run() {
        println!(
            "First run: created workspace \"{}\" (tenant {}) and account \"{}\" (ADMIN).",
            first.workspace.name, first.workspace.id, first.account.name
        );
        println!("Bearer token (shown once): {}", first.token.token);
        if let Some(link) = server.first_reset_link() {
            println!("Set admin's password (link valid 24 h, shown once): {link}");
        }
    }
    let shutdown = shutdown_signal();
    println!("board-server listening on http://{}", server.addr());
    server.serve(shutdown).await
}

/// A server that is listening and bootstrapped, not yet serving: the first
/// step of [`run`], which tests and embedders take on their own to learn the
/// address (port 0) and the first-run token before the first request.
#[derive(Debug)]
pub struct Server {
    listener: TcpListener,
    addr: SocketAddr,
    board: Board,
    config: Config,
    first_run: Option<Bootstrap>,
    /// The first run's reset link for `admin` (api.md §23).
    first_reset: Option<String>,
    /// The OpenID provider (api.md §27), when configured.
    sso: Option<Arc<board_core::Provider>>,
}

impl Server {
    /// Binds `config.listen` first (a server that cannot listen stops before it
    /// touches the database: no sweep, no first-run token printed and lost),
    /// then opens the board, sweeps it, and runs the first-run bootstrap.
    pub async fn build(config: Config) -> anyhow::Result<Server> {
        #[cfg(unix)]
        match conn::raise_open_files_limit() {
            Some(n) if (n as usize) < config.max_connections => tracing::warn!(
                open_files = n,
                max_connections = config.max_connections,
                "the open-files limit is below --max-connections: raise it (ulimit -n) \
                 or lower --max-connections"
            ),
            Some(n) => tracing::debug!(open_files = n, "open-files limit"),
            None => {}
        }
        board_core::check_retention(config.events_retention, config.activity_retention).map_err(
            |e| {
                anyhow::anyhow!(
                    "--activity-retention and --events-retention: {e} (defaults {} and {})",
                    config::ACTIVITY_RETENTION_DEFAULT,
                    config::EVENTS_RETENTION_DEFAULT
                )
            },
        )?;
        let listener = TcpListener::bind(config.listen).await.map_err(|e| {
            anyhow::anyhow!(
                "cannot listen on {}: {e}; choose another address with --listen or BOARD_LISTEN",
                config.listen
            )
        })?;
        let addr = listener.local_addr()?;
        let mut options = Options::new(&config.database_url);
        options.files_dir = config.files_dir.clone();
        // The bucket first: a server that cannot reach it stops before it
        // makes a database (or its folder) it would leave behind.
        if let Some(url) = &config.files_url {
            options.file_store = Some(std::sync::Arc::new(
                board_core::S3Store::connect(url).await?,
            ));
        }
        options.temp_grace = config.sweep_grace;
        options.webhook_allow_private = config.webhook_allow_private;
        options.smtp_url = config.smtp_url.clone();
        options.mail_from = config.mail_from.clone();
        options.public_url = Some(
            config
                .public_url
                .clone()
                .unwrap_or_else(|| format!("http://{addr}")),
        );
        options.max_attachment_bytes = config.max_attachment_bytes;
        options.max_files_per_request = config.max_files_per_request;
        options.attachments_enabled = config.attachments == config::Switch::On;
        // Single sign-on: one discovery now; a provider out of reach is
        // tried again in the background once the server serves.
        let sso = match config.sso() {
            Some(settings) => {
                let provider = board_core::Provider::new(settings)?;
                if let Err(e) = provider.discover().await {
                    tracing::warn!(issuer = ?provider.settings().issuer, error = %e,
                        "OpenID provider unreachable at start: retrying in the background");
                }
                Some(provider)
            }
            None => None,
        };
        let board = Board::open_with(options).await?;
        sweep(&board, config.events_retention, config.activity_retention).await;
        let first_run = board.admin().bootstrap().await?;
        let first_reset = match &first_run {
            Some(first) => {
                let url = config
                    .public_url
                    .clone()
                    .unwrap_or_else(|| format!("http://{addr}"));
                Some(board.admin().reset_link(&first.account.id, &url).await?)
            }
            None => None,
        };
        Ok(Server {
            listener,
            addr,
            board,
            config,
            first_run,
            first_reset,
            sso,
        })
    }

    /// The address it listens on (the port chosen when `listen` gave port 0).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// What the first-run bootstrap created (its token is shown only here),
    /// or `None` when the database was not empty.
    pub fn first_run(&self) -> Option<&Bootstrap> {
        self.first_run.as_ref()
    }

    /// The first run's one-time link that sets `admin`'s password (shown
    /// only here), or `None` when the database was not empty.
    pub fn first_reset_link(&self) -> Option<&str> {
        self.first_reset.as_deref()
    }

    /// The board it serves.
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// Serves until `shutdown` resolves; requests in flight then finish
    /// before it returns, and the pool is closed.
    pub async fn serve(
        self,
        shutdown: impl std::future::Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let Server {
            listener,
            addr,
            board,
            config,
            sso,
            ..
        } = self;
        let discovering = sso
            .as_ref()
            .filter(|p| !p.is_discovered())
            .map(|p| p.keep_discovering());
        let sweeper = tokio::spawn(sweep_hourly(
            board.clone(),
            config.events_retention,
            config.activity_retention,
        ));
        let window = std::time::Duration::from_secs(u64::from(config.due_reminder_hours) * 3600);
        let reminders = tokio::spawn(remind_due(board.clone(), window, config.due_scan));
        let webhooks = board.deliver_webhooks(board_core::WebhookSettings {
            timeout: config.webhook_timeout,
            give_up: config.webhook_give_up,
            lease: config.webhook_lease,
            scan: config.webhook_scan,
            allow_private: config.webhook_allow_private,
            ..board_core::WebhookSettings::default()
        })?;
        let mail = board.send_mail(board_core::MailSettings {
            scan: config.mail_scan,
            ..board_core::MailSettings::default()
        });
        let metrics = Arc::new(metrics::Metrics::default());
        // Open event streams end when shutdown starts, so that graceful
        // shutdown does not wait for them forever.
        let (closing, closing_rx) = tokio::sync::watch::channel(false);
        let app = Arc::new(routes::App {
            board: board.clone(),
            closing: closing_rx,
            streams: Arc::new(tokio::sync::Semaphore::new(config.max_event_streams)),
            config,
            metrics: metrics.clone(),
            sso,
        });
        let origins = app.config.allowed_origins.clone();
        let app_config = app.config.clone();
        // The UI's pages and assets (GET and HEAD of their paths only), when
        // it is on; every other request goes to the API's route table.
        let ui = app_config.serves_ui().then(|| Arc::new(ui::Ui::load()));
        let routes = observe::wrap(
            browser::wrap(
                ui::filter(ui)
                    .or(routes::all(app))
                    .unify()
                    .recover(error::recover),
                origins,
            ),
            metrics,
        );
        tracing::info!(
            %addr,
            backend = ?board.backend(),
            version = env!("CARGO_PKG_VERSION"),
            schema = board.backend().schema_version(),
            "listening"
        );
        let limits = conn::Limits {
            header: app_config.header_timeout,
            body: app_config.body_timeout,
            idle: app_config.idle_timeout,
            max_connections: app_config.max_connections,
        };
        conn::serve(listener, warp::service(routes), limits, async move {
            shutdown.await;
            closing.send(true).ok();
        })
        .await;
        sweeper.abort();
        reminders.abort();
        if let Some(task) = discovering {
            task.abort();
        }
        webhooks.stop().await;
        if let Some(mail) = mail {
            mail.stop().await;
        }
        board.close().await;
        tracing::info!("stopped");
        Ok(())
    }
}

/// Runs the core sweep (orphan files, crash leftovers, loose uploads over 24 h),
/// the events' retention, old mail batches and codes, and the sign-in
/// throttle's old failures, and logs
/// what they removed.
async fn sweep(board: &Board, retention: std::time::Duration, activity: std::time::Duration) {
    match board.admin().prune_events(retention, activity).await {
        Ok(n) => tracing::info!(events = n, "events pruned"),
        Err(e) => tracing::warn!(error = %e, "pruning events failed"),
    }
    match board.admin().prune_notifications().await {
        Ok(n) => tracing::info!(notifications = n, "notifications past 90 days pruned"),
        Err(e) => tracing::warn!(error = %e, "pruning notifications failed"),
    }
    match board.admin().prune_mail().await {
        Ok(n) => tracing::info!(
            batches = n.batches,
            verifications = n.verifications,
            resets = n.resets,
            "finished mail batches and spent codes pruned"
        ),
        Err(e) => tracing::warn!(error = %e, "pruning mail failed"),
    }
    match board.admin().prune_auth_failures().await {
        Ok(n) => tracing::debug!(failures = n, "sign-in failures past the window pruned"),
        Err(e) => tracing::warn!(error = %e, "pruning sign-in failures failed"),
    }
    match board.admin().sweep().await {
        Ok(r) => tracing::info!(
            loose_uploads = r.loose_uploads.len(),
            orphan_files = r.orphan_files.len(),
            temp_files = r.temp_files.len(),
            recovered = r.recovered.len(),
            "sweep"
        ),
        Err(e) => tracing::warn!(error = %e, "sweep failed"),
    }
}

/// Sends the due reminders (api.md §26) every `every`: a card whose due
/// time entered the `window` is reminded within that period.
async fn remind_due(board: Board, window: std::time::Duration, every: std::time::Duration) {
    let mut tick = tokio::time::interval(every);
    loop {
        tick.tick().await;
        match board.admin().remind_due(window).await {
            Ok(0) => {}
            Ok(n) => tracing::info!(cards = n, "due reminders made"),
            Err(e) => tracing::warn!(error = %e, "due reminders failed"),
        }
    }
}

async fn sweep_hourly(board: Board, retention: std::time::Duration, activity: std::time::Duration) {
    let mut tick = tokio::time::interval(std::time::Duration::from_secs(3600));
    tick.tick().await;
    loop {
        tick.tick().await;
        sweep(&board, retention, activity).await;
    }
}

/// Registers the SIGINT/SIGTERM handlers now (before "listening" is printed, so
/// an early signal is never lost) and resolves when one arrives.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    let term = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()).ok();
    #[cfg(unix)]
    let int = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::interrupt()).ok();
    async move {
        #[cfg(unix)]
        {
            let wait = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                _ = wait(term) => {},
                _ = wait(int) => {},
            }
        }
        #[cfg(not(unix))]
        tokio::signal::ctrl_c().await.ok();
        tracing::info!("shutting down: finishing requests in flight");
    }
}
