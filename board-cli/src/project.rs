//! `board project create --workspace W NAME`.

use board_core::Board;
use clap::Subcommand;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a project (with its own, empty, column set).
    Create {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
        /// Its name.
        name: String,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Create { workspace, name } => {
            let ws = board.find_workspace(&workspace).await?;
            let p = board.create_project(&ws.id, &name).await?;
            out.value(&p, || {
                format!(
                    "created project {:?} ({}) in workspace {}",
                    p.name, p.id, ws.id
                )
            });
        }
    }
    Ok(())
}
