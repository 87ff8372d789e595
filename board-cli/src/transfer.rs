//! `board copy`, `board export`, `board import`: moving an installation
//! (api.md §15) through board-core's `copy_to`, `export` and `import`.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;

use anyhow::bail;
use board_core::{Board, Options, TransferOptions, TransferProgress, TransferReport};

use crate::output::Out;

/// The environment variable that makes a copy or import wait this many
/// seconds after writing everything, before its commit (for tests of an
/// interrupted copy; it changes nothing else).
pub const PAUSE_VAR: &str = "BOARD_COPY_PAUSE_BEFORE_COMMIT";

#[derive(Debug, clap::Args)]
pub struct CopyArgs {
    /// The target database: sqlite://PATH (created when missing) or postgres://…; it must
    /// hold no data (a database `board init` just created).
    #[arg(long, value_name = "URL")]
    to: String,
    /// Copy the stored files too, into this folder or object store (s3://BUCKET[/PREFIX], with
    /// the AWS variables of --files-url). Without it, the target is meant to use the same files
    /// location as the source.
    #[arg(long, value_name = "DIR|s3://…")]
    files_to: Option<String>,
}

#[derive(Debug, clap::Args)]
pub struct ExportArgs {
    /// The folder to write (missing or empty): manifest.json, one TABLE.jsonl per table and
    /// files/ (the format: docs/export.md).
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
}

#[derive(Debug, clap::Args)]
pub struct ImportArgs {
    /// A folder written by `board export`. Its checksums are verified before anything is
    /// written; the database (created when missing) must hold no data. With `--from trello`:
    /// the board's JSON export from Trello (board menu → Print, export and share → Export as
    /// JSON), imported into a workspace of this database (docs/trello.md).
    #[arg(value_name = "DIR|FILE")]
    pub(crate) dir: PathBuf,
    /// Import another tool's export into a workspace instead of a whole installation.
    #[arg(long, value_name = "FORMAT", value_parser = ["trello"])]
    pub(crate) from: Option<String>,
    /// With --from: the workspace, by id or name.
    #[arg(long, value_name = "WORKSPACE", requires = "from")]
    pub(crate) workspace: Option<String>,
    /// With --from: the importing account, by id or name (the author of the comments of
    /// Trello members mapped to no account).
    #[arg(long = "as", value_name = "ACCOUNT", requires = "from")]
    pub(crate) account: Option<String>,
    /// With --from: a project of the workspace, whose column set in effect takes the cards.
    #[arg(long, value_name = "PROJECT", requires = "from")]
    pub(crate) project: Option<String>,
    /// With --from: a Trello member (id or username) and the account (id or name) it is;
    /// repeat for several.
    #[arg(long = "member", value_name = "TRELLO=ACCOUNT", requires = "from")]
    pub(crate) members: Vec<String>,
    /// With --from: show what the import would bring, and write nothing.
    #[arg(long, requires = "from")]
    pub(crate) dry_run: bool,
}

impl ImportArgs {
    /// Whether this is an import of another tool's export (`--from`).
    pub fn is_foreign(&self) -> bool {
        self.from.is_some()
    }
}

/// Progress on standard error: a line per table when it is a terminal; the
/// pause is always told (a test waits for it).
fn progress(p: TransferProgress<'_>) {
    let terminal = std::io::stderr().is_terminal();
    let mut err = std::io::stderr().lock();
    match p {
        TransferProgress::Rows { table, rows } if terminal => {
            write!(err, "\r{table:<12} {rows:>10} rows").ok();
        }
        TransferProgress::TableDone { table, rows } if terminal => {
            writeln!(err, "\r{table:<12} {rows:>10} rows").ok();
        }
        TransferProgress::Files { files } if terminal => {
            write!(err, "\r{:<12} {files:>10}", "files").ok();
        }
        TransferProgress::Paused(d) => {
            if terminal {
                writeln!(err).ok();
            }
            writeln!(
                err,
                "board: written; waiting {d:?} before commit ({PAUSE_VAR})"
            )
            .ok();
        }
        _ => {}
    }
    err.flush().ok();
}

fn summary(out: &Out, report: &TransferReport) {
    if std::io::stderr().is_terminal() && report.files > 0 {
        eprintln!();
    }
    let mut rows: Vec<Vec<String>> = report
        .tables
        .iter()
        .map(|t| vec![t.table.clone(), t.rows.to_string()])
        .collect();
    rows.push(vec!["(stored files)".into(), report.files.to_string()]);
    out.table(report, &["table", "rows"], rows);
}

/// `source` gives the files location the target keeps without `--files-to`.
pub async fn copy(
    board: &Board,
    source: &Options,
    out: &Out,
    args: CopyArgs,
) -> anyhow::Result<()> {
    let mut to = Options::new(&args.to);
    match &args.files_to {
        Some(url) if url.starts_with("s3://") => to.files_url = Some(url.clone()),
        Some(dir) if dir.contains("://") => {
            bail!("--files-to takes a local folder or s3://BUCKET[/PREFIX], not {dir}")
        }
        Some(dir) => to.files_dir = PathBuf::from(dir),
        None => {
            to.files_dir = source.files_dir.clone();
            to.files_url = source.files_url.clone();
        }
    }
    to.max_connections = 2;
    to.create_missing = true;
    let target = Board::open_with(to).await?;
    let options = TransferOptions {
        copy_files: args.files_to.is_some(),
        progress: Some(&progress),
    };
    let result = board.admin().copy_to(&target, &options).await;
    target.close().await;
    summary(out, &result?);
    Ok(())
}

pub async fn export(board: &Board, out: &Out, args: ExportArgs) -> anyhow::Result<()> {
    let options = TransferOptions {
        progress: Some(&progress),
        ..Default::default()
    };
    summary(out, &board.admin().export(&args.out, &options).await?);
    Ok(())
}

pub async fn import(board: &Board, out: &Out, args: ImportArgs) -> anyhow::Result<()> {
    if args.is_foreign() {
        return crate::trello::import(board, out, args).await;
    }
    let options = TransferOptions {
        copy_files: true,
        progress: Some(&progress),
    };
    summary(out, &board.admin().import(&args.dir, &options).await?);
    Ok(())
}
