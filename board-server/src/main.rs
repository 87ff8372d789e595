//! The `board-server` binary.

use clap::Parser;

#[tokio::main]
async fn main() -> std::process::ExitCode {
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("BOARD_LOG")
                // Off EC2, the AWS SDK's look for a region in the instance
                // metadata fails with two long warnings before the error
                // that says what to set.
                .unwrap_or_else(|_| "info,aws_config::imds=error".into()),
        )
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .init();
    let config = board_server::Config::parse();
    match board_server::run(config).await {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("board-server: {e:#}");
            std::process::ExitCode::FAILURE
        }
    }
}
