//! `board gc`: the sweep of loose uploads older than 24 h, files without a
//! row, and temporaries a crash left behind; `board gc --check`: the cards
//! whose kept counts differ from a recount (none, unless the schema's
//! triggers were bypassed), exit 1 when there is one.

use board_core::Board;

use crate::output::Out;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// Change nothing: list the cards whose kept comment, attachment and checklist
    /// counts differ from a recount of their rows (exit 1 when one does).
    #[arg(long)]
    check: bool,
}

pub async fn run(board: &Board, out: &Out, args: Args) -> anyhow::Result<()> {
    if args.check {
        return check(board, out).await;
    }
    let report = board.admin().sweep().await?;
    out.value(&report, || {
        let mut lines = Vec::new();
        for (what, names) in [
            ("loose upload", &report.loose_uploads),
            ("orphan file", &report.orphan_files),
            ("temporary file", &report.temp_files),
            ("recovered file", &report.recovered),
        ] {
            for n in names {
                lines.push(format!("{what}: {n}"));
            }
        }
        lines.push(format!(
            "removed {} loose uploads, {} orphan files, {} temporary files; recovered {}",
            report.loose_uploads.len(),
            report.orphan_files.len(),
            report.temp_files.len(),
            report.recovered.len()
        ));
        lines.join("\n")
    });
    Ok(())
}

/// `board gc --check`: the mismatches, one line each.
async fn check(board: &Board, out: &Out) -> anyhow::Result<()> {
    let mismatches = board.admin().check_counts().await?;
    out.value(&mismatches, || {
        let mut lines: Vec<String> = mismatches
            .iter()
            .map(|m| {
                format!(
                    "card {}: kept {} comments, {} attachments, {}/{} items; counted {}, {}, {}/{}",
                    m.card_id.as_str(),
                    m.kept.comments,
                    m.kept.attachments,
                    m.kept.items_done,
                    m.kept.items,
                    m.counted.comments,
                    m.counted.attachments,
                    m.counted.items_done,
                    m.counted.items
                )
            })
            .collect();
        lines.push(format!(
            "{} cards with counts that differ",
            mismatches.len()
        ));
        lines.join("\n")
    });
    if !mismatches.is_empty() {
        anyhow::bail!("kept counts differ from a recount");
    }
    Ok(())
}
