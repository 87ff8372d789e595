//! `board columns list --workspace W [--project P]`.

use board_core::{Actor, Board, ColumnOrder, Input};
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
    /// Reorder columns of one set: the given ids take, in this order, the
    /// positions they already occupy together.
    Reorder {
        /// Column ids, in their new order.
        #[arg(required = true)]
        ids: Vec<String>,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let (workspace, project) = match cmd {
        Cmd::List { workspace, project } => (workspace, project),
        Cmd::Reorder { ids } => {
            let body = serde_json::json!({ "columnIds": ids });
            let input: Input<ColumnOrder> = Input::from_value(&body);
            let updated = board.reorder_columns(&Actor::Operator, input).await?;
            out.value(&serde_json::json!({ "updated": updated }), || {
                format!("{updated} column(s) reordered")
            });
            return Ok(());
        }
    };
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
