//! `board`: the admin tool. It works directly on the database as the
//! installation's operator: it bypasses roles but obeys every rule, through the
//! same core operations as the server. This file holds the clap tree only.

mod account;
mod card;
mod checklist;
mod column;
mod columns;
mod flow;
mod flow_svg;
mod gc;
mod history;
mod invite;
mod label;
mod lookup;
mod mail;
mod output;
mod project;
mod search;
mod settings;
mod token;
mod transfer;
mod trello;
mod webhook;
mod workspace;

use std::path::PathBuf;
use std::process::ExitCode;

use board_core::{Board, Options};
use clap::{Parser, Subcommand};

use output::Out;

/// Admin tool of the board service.
#[derive(Debug, Parser)]
#[command(
    name = "board",
    version,
    about,
    after_help = "Workspaces, projects and accounts are given by id or by name (names are unique; \
                  another letter case is accepted when it is unambiguous). Columns are given by id, \
                  or by name in the set in effect of --workspace (and --project), or of the card \
                  being moved. Cards are given by id (`board card list` shows them). Every command \
                  but `board init` and `board import` needs an existing database. The full reference: docs/cli.md."
)]
struct Cli {
    /// Database URL: sqlite://PATH (must exist; `board init` creates it) or postgres://…
    #[arg(long, global = true, help_heading = "Global options", env = "BOARD_DATABASE_URL", default_value = board_core::DEFAULT_DATABASE_URL)]
    database_url: String,
    /// Folder of stored attachment files.
    #[arg(long, global = true, help_heading = "Global options", env = "BOARD_FILES_DIR", default_value = board_core::DEFAULT_FILES_DIR)]
    files_dir: PathBuf,
    /// Files in an S3-compatible bucket: s3://BUCKET[/PREFIX] (and the AWS_* settings)
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "BOARD_FILES_URL"
    )]
    files_url: Option<String>,
    /// SMTP server for the board's e-mail: smtp://[user:pass@]host[:port][?tls=required] or smtps://…
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "BOARD_SMTP_URL"
    )]
    smtp_url: Option<String>,
    /// The address the board's e-mail comes from (needed with --smtp-url).
    #[arg(
        long,
        global = true,
        help_heading = "Global options",
        env = "BOARD_MAIL_FROM"
    )]
    mail_from: Option<String>,
    /// Print one JSON value on stdout instead of tables and lines.
    #[arg(long, global = true, help_heading = "Global options")]
    json: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create the database when missing, migrate it, and print which one is in use.
    Init,
    /// Workspaces.
    #[command(subcommand)]
    Workspace(workspace::Cmd),
    /// Projects.
    #[command(subcommand)]
    Project(project::Cmd),
    /// Accounts.
    #[command(subcommand)]
    Account(account::Cmd),
    /// Memberships.
    #[command(subcommand)]
    Member(account::MemberCmd),
    /// Bearer tokens.
    #[command(subcommand)]
    Token(token::Cmd),
    /// Invitations to a workspace: create (prints the link), list, revoke.
    #[command(subcommand)]
    Invite(invite::Cmd),
    /// Sessions (sign-ins from a browser): list, revoke.
    #[command(subcommand)]
    Session(invite::SessionCmd),
    /// Workspace settings.
    #[command(subcommand)]
    Settings(settings::Cmd),
    /// Cards.
    #[command(subcommand)]
    Card(card::Cmd),
    /// A workspace's labels: list, create, rename, delete.
    #[command(subcommand)]
    Label(label::Cmd),
    /// A card's checklist: list it, add, check, uncheck or remove an item.
    Checklist(checklist::Cmd),
    /// Column sets: list, reorder.
    #[command(subcommand)]
    Columns(columns::Cmd),
    /// One column: create, rename, set its accent or done mark, delete.
    #[command(subcommand)]
    Column(column::Cmd),
    /// A card's column history.
    History(history::Args),
    /// Flow metrics of a set: time in column, lead and cycle time, throughput,
    /// aging; --svg writes the cumulative flow diagram.
    Flow(flow::Args),
    /// Find cards by the words of their title or comments.
    Search(search::Args),
    /// Sweep loose uploads older than 24 h, orphan files and crash leftovers; --check
    /// compares the counts each card keeps with a recount instead.
    Gc(gc::Args),
    /// Copy the whole installation into another, empty database (either backend), in one
    /// transaction, from a consistent snapshot; with --files-to, the stored files too.
    Copy(transfer::CopyArgs),
    /// Write the whole installation as versioned JSON Lines files plus the stored files.
    Export(transfer::ExportArgs),
    /// Load a folder written by `board export` into this database, which must hold no data.
    Import(transfer::ImportArgs),
    /// Webhooks: subscribe a URL to a workspace's events, list, remove, enable,
    /// disable, and show the delivery attempts.
    #[command(subcommand)]
    Webhook(webhook::Cmd),
    /// E-mail: send a test message (--smtp-url), list the notification e-mails sent.
    #[command(subcommand)]
    Mail(mail::Cmd),
}

#[tokio::main]
async fn main() -> ExitCode {
    let cli = Cli::parse();
    let out = Out { json: cli.json };
    match run(cli, &out).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("board: {}", output::one_line(&e));
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli, out: &Out) -> anyhow::Result<()> {
    let mut options = Options::new(&cli.database_url);
    options.files_dir = cli.files_dir;
    options.files_url = cli.files_url;
    options.smtp_url = cli.smtp_url;
    options.mail_from = cli.mail_from;
    if let Command::Account(account::Cmd::Email {
        public_url,
        verified: false,
        ..
    }) = &cli.command
    {
        options.public_url = Some(account::public_url(public_url.clone()));
    }
    options.webhook_allow_private = matches!(
        &cli.command,
        Command::Webhook(webhook::Cmd::Add {
            allow_private: true,
            ..
        })
    );
    options.max_connections = 2;
    // Only `board init` creates a missing SQLite file: elsewhere a mistyped
    // path or another working folder is refused, not silently made new.
    // An import fills a new database, so it may create it too.
    options.create_missing = matches!(cli.command, Command::Init)
        || matches!(&cli.command, Command::Import(a) if !a.is_foreign());
    let board = Board::open_with(options.clone()).await?;
    let result = match cli.command {
        Command::Init => {
            let schema = board.backend().schema_version();
            out.value(
                &serde_json::json!({"database": redact(&cli.database_url), "backend": format!("{:?}", board.backend()).to_lowercase(), "migrated": true, "schema": schema}),
                || {
                    format!(
                        "database {} is migrated: schema {schema} (board {})",
                        redact(&cli.database_url),
                        env!("CARGO_PKG_VERSION")
                    )
                },
            );
            Ok(())
        }
        Command::Workspace(cmd) => workspace::run(&board, out, cmd).await,
        Command::Project(cmd) => project::run(&board, out, cmd).await,
        Command::Account(cmd) => account::run(&board, out, cmd).await,
        Command::Member(cmd) => account::run_member(&board, out, cmd).await,
        Command::Token(cmd) => token::run(&board, out, cmd).await,
        Command::Invite(cmd) => invite::run(&board, out, cmd).await,
        Command::Session(cmd) => invite::run_session(&board, out, cmd).await,
        Command::Settings(cmd) => settings::run(&board, out, cmd).await,
        Command::Card(cmd) => card::run(&board, out, cmd).await,
        Command::Label(cmd) => label::run(&board, out, cmd).await,
        Command::Checklist(cmd) => checklist::run(&board, out, cmd).await,
        Command::Columns(cmd) => columns::run(&board, out, cmd).await,
        Command::Column(cmd) => column::run(&board, out, cmd).await,
        Command::History(args) => history::run(&board, out, args).await,
        Command::Flow(args) => flow::run(&board, out, args).await,
        Command::Search(args) => search::run(&board, out, args).await,
        Command::Gc(args) => gc::run(&board, out, args).await,
        Command::Copy(args) => transfer::copy(&board, &options, out, args).await,
        Command::Export(args) => transfer::export(&board, out, args).await,
        Command::Import(args) => transfer::import(&board, out, args).await,
        Command::Webhook(cmd) => webhook::run(&board, out, cmd).await,
        Command::Mail(cmd) => mail::run(&board, out, cmd).await,
    };
    board.close().await;
    result
}

/// The URL without its password, for printing.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(s), Some(at)) if at > s => {
            let creds = &url[s + 3..at];
            match creds.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..s + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}
