//! `board columns list --workspace W [--project P]`.

use board_core::{Actor, Board};
use clap::Subcommand;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// List a workspace's columns: the tenant set then each project set, or
    /// with --project the set in effect for that project's cards.
    List {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
        /// The project (id).
        #[arg(long)]
        project: Option<String>,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let Cmd::List { workspace, project } = cmd;
    let ws = board.find_workspace(&workspace).await?;
    let columns = board
        .list_columns(&Actor::Operator, Some(ws.id.as_str()), project.as_deref())
        .await?;
    let rows = columns
        .iter()
        .map(|c| {
            vec![
                c.name.clone(),
                c.accent.as_str().to_string(),
                c.position.to_string(),
                if c.done { "yes".into() } else { String::new() },
                c.project_id
                    .as_ref()
                    .map(ToString::to_string)
                    .unwrap_or_else(|| "(tenant)".into()),
                c.id.to_string(),
            ]
        })
        .collect();
    out.table(
        &columns,
        &["name", "accent", "position", "done", "set", "id"],
        rows,
    );
    Ok(())
}
