//! Server configuration: each flag also reads its environment variable; a flag
//! wins over the variable.

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::{Parser, ValueEnum};

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Switch {
    /// Enabled.
    On,
    /// Disabled.
    Off,
}

/// The HTTP server of the board service.
#[derive(Debug, Clone, Parser)]
#[command(name = "board-server", version, about)]
pub struct Config {
    /// Database URL: sqlite://PATH (embedded, created when missing) or postgres://…
    #[arg(long, env = "BOARD_DATABASE_URL", default_value = board_core::DEFAULT_DATABASE_URL)]
    pub database_url: String,
    /// Folder of stored attachment files.
    #[arg(long, env = "BOARD_FILES_DIR", default_value = board_core::DEFAULT_FILES_DIR)]
    pub files_dir: PathBuf,
    /// Address to listen on (port 0 picks a free port).
    #[arg(long, env = "BOARD_LISTEN", default_value = "127.0.0.1:8080")]
    pub listen: SocketAddr,
    /// Largest accepted attachment, in bytes.
    #[arg(long, env = "BOARD_MAX_ATTACHMENT_BYTES", default_value_t = 10_485_760)]
    pub max_attachment_bytes: u64,
    /// Whether uploads are accepted at all.
    #[arg(long, env = "BOARD_ATTACHMENTS", value_enum, default_value = "on")]
    pub attachments: Switch,
    /// Origins (scheme://host[:port], comma-separated) whose pages may call the
    /// API from a browser: CORS answers for them, and cookie-authenticated
    /// writes from them are accepted. Default: none (only the server's own origin).
    #[arg(
        long,
        env = "BOARD_ALLOWED_ORIGINS",
        default_value = "",
        hide_default_value = true,
        value_parser = crate::browser::AllowedOrigins::parse
    )]
    pub allowed_origins: crate::browser::AllowedOrigins,
}
