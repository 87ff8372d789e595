//! `board gc`: the sweep of loose uploads older than 24 h, files without a
//! row, and temporaries a crash left behind.

use board_core::Board;

use crate::output::Out;

pub async fn run(board: &Board, out: &Out) -> anyhow::Result<()> {
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
