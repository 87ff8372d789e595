//! `board workspace create NAME`, `board workspace list`.

use board_core::Board;
use clap::Subcommand;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a workspace (with an empty tenant column set).
    Create {
        /// Its name.
        name: String,
    },
    /// List every workspace.
    List,
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Create { name } => {
            let ws = board.create_workspace(&name).await?;
            out.value(&ws, || {
                format!("created workspace {:?} ({})", ws.name, ws.id)
            });
        }
        Cmd::List => {
            let all = board.list_workspaces().await?;
            let rows = all
                .iter()
                .map(|w| vec![w.name.clone(), w.id.to_string()])
                .collect();
            out.table(&all, &["name", "id"], rows);
        }
    }
    Ok(())
}
