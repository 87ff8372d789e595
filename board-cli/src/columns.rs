//! `board columns list --workspace W [--project P]` and `board columns reorder`.

use board_core::{Actor, Board, Column, ColumnOrder, SetQuery};
use clap::Subcommand;
use serde_json::json;

use crate::lookup;
use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// List a workspace's columns: the tenant set then each project set, or
    /// with --project the set in effect for that project's cards.
    List {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// The project, by id or name.
        #[arg(long)]
        project: Option<String>,
    },
    /// Reorder columns of one set: the given columns take, in this order, the
    /// positions they already occupy together. Prints the set's new order.
    Reorder {
        /// Columns in their new order: ids, or names with --workspace (and --project).
        #[arg(required = true)]
        columns: Vec<String>,
        /// The workspace whose set in effect holds the named columns.
        #[arg(long)]
        workspace: Option<String>,
        /// The project whose set in effect holds the named columns.
        #[arg(long)]
        project: Option<String>,
    },
}

const ME: &Actor = &Actor::Operator;

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    match cmd {
        Cmd::List { workspace, project } => {
            let (ws, project) = lookup::place(board, &workspace, project.as_deref()).await?;
            let columns = board
                .list_columns(
                    ME,
                    Some(&SetQuery::workspace(ws.clone()).project(project.clone())),
                )
                .await?;
            let projects = board.admin().list_projects(&ws).await?;
            let set_name = |c: &Column| match &c.project_id {
                None => "(tenant)".to_string(),
                Some(p) => projects
                    .iter()
                    .find(|q| q.id == *p)
                    .map_or_else(|| p.to_string(), |q| q.name.clone()),
            };
            let counts = board.card_counts(ME, &ws).await?;
            let count = |c: &Column| {
                counts
                    .iter()
                    .find(|(id, _)| *id == c.id)
                    .map_or(0, |(_, n)| *n)
            };
            table(out, &columns, |c| (set_name(c), Some(count(c))));
        }
        Cmd::Reorder {
            columns,
            workspace,
            project,
        } => {
            let mut ids = Vec::new();
            for c in &columns {
                let found =
                    lookup::column(board, workspace.as_deref(), project.as_deref(), c).await?;
                ids.push(found.id);
            }
            let updated = board
                .reorder_columns(ME, ColumnOrder::new(ids.clone()))
                .await?;
            let set = board.column_set(ME, &ids[0]).await?;
            if out.json {
                out.value(&json!({ "updated": updated, "columns": set }), String::new);
            } else {
                crate::output::line(format_args!(
                    "{} reordered; the set is now:",
                    crate::output::count(updated as u64, "column")
                ));
                table(out, &set, |c| {
                    let set = c
                        .project_id
                        .as_ref()
                        .map_or_else(|| "(tenant)".into(), ToString::to_string);
                    (set, None)
                });
            }
        }
    }
    Ok(())
}

/// The columns as a table; `about` gives a column's set and, when counted,
/// its number of cards (shown beside its WIP limit; a table of columns whose
/// cards were not counted has no "cards" column, rather than empty cells).
fn table(out: &Out, columns: &[Column], about: impl Fn(&Column) -> (String, Option<u64>)) {
    let mut counted = true;
    let rows = columns
        .iter()
        .map(|c| {
            let (set, cards) = about(c);
            counted &= cards.is_some();
            vec![
                c.name.clone(),
                c.accent.as_str().to_string(),
                c.position.to_string(),
                crate::output::cell(c.done.then_some("yes")),
                cards.map(|n| n.to_string()).unwrap_or_default(),
                crate::output::cell(c.wip_limit),
                set,
                c.id.to_string(),
            ]
        })
        .collect::<Vec<_>>();
    let mut headers = vec![
        "name",
        "accent",
        "position",
        "done",
        "cards",
        "wip limit",
        "set",
        "id",
    ];
    let rows = match counted {
        true => rows,
        false => {
            headers.remove(4);
            rows.into_iter()
                .map(|mut row| {
                    row.remove(4);
                    row
                })
                .collect()
        }
    };
    out.table(&columns, &headers, rows);
}
