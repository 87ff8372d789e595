//! `board project create --workspace W NAME`, `board project list --workspace W`.

use board_core::Board;
use clap::Subcommand;

use crate::lookup;
use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a project, with its own (empty) column set (names are unique in a workspace).
    Create {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// Its name.
        name: String,
    },
    /// List a workspace's projects, oldest first.
    List {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Create { workspace, name } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let p = board
                .admin()
                .create_project(&ws.id, &lookup::name(&name)?)
                .await?;
            out.value(&p, || {
                format!(
                    "created project {:?} ({}) in workspace {:?}",
                    p.name, p.id, ws.name
                )
            });
        }
        Cmd::List { workspace } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let all = board.admin().list_projects(&ws.id).await?;
            let rows = all
                .iter()
                .map(|p| vec![p.name.clone(), p.id.to_string()])
                .collect();
            out.table(&all, &["name", "id"], rows);
        }
    }
    Ok(())
}
