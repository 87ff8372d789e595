//! `board workspace create NAME [--admin ACCOUNT]`, `board workspace list`,
//! `board workspace rename W NAME`.

use board_core::Board;
use clap::Subcommand;

use crate::lookup;
use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a workspace, born with the columns To do, Doing and Done (names are unique).
    Create {
        /// Its name.
        name: String,
        /// An account (id or name) made its ADMIN in the same step; without
        /// it the workspace has no member until `board member add`.
        #[arg(long, value_name = "ACCOUNT")]
        admin: Option<String>,
    },
    /// List every workspace, oldest first.
    List,
    /// Rename a workspace (names are unique).
    Rename {
        /// The workspace, by id or name.
        workspace: String,
        /// Its new name.
        name: String,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::Create { name, admin } => {
            let name = lookup::name(&name)?;
            let ws = match admin {
                Some(account) => {
                    let account = board.admin().find_account(&account).await?;
                    board
                        .admin()
                        .create_workspace_with_admin(&name, &account.id)
                        .await?
                }
                None => {
                    let ws = board.admin().create_workspace(&name).await?;
                    eprintln!(
                        "hint: the workspace has no member yet, so no token reaches it: \
                         `board member add --workspace {:?} --account NAME --role admin`, \
                         or create it with --admin ACCOUNT",
                        ws.name
                    );
                    ws
                }
            };
            out.value(&ws, || {
                format!(
                    "created workspace {:?} ({}) with the columns To do, Doing and Done",
                    ws.name, ws.id
                )
            });
        }
        Cmd::List => {
            let all = board.admin().list_workspaces().await?;
            let rows = all
                .iter()
                .map(|w| vec![w.name.clone(), w.id.to_string()])
                .collect();
            out.table(&all, &["name", "id"], rows);
        }
        Cmd::Rename { workspace, name } => {
            let before = board.admin().find_workspace(&workspace).await?;
            let ws = board
                .admin()
                .rename_workspace(&before.id, &lookup::name(&name)?)
                .await?;
            out.value(&ws, || {
                format!(
                    "renamed workspace {:?} to {:?} ({})",
                    before.name, ws.name, ws.id
                )
            });
        }
    }
    Ok(())
}
