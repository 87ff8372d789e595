//! `board label list|create|rename|delete`: a workspace's labels (api.md §24).

use board_core::{Accent, Actor, Board, Label, LabelPatch, NewLabel};
use clap::Subcommand;
use serde_json::json;

use crate::output::Out;

const ME: &Actor = &Actor::Operator;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// List a workspace's labels, in order.
    List {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
    },
    /// Create a label at the end of a workspace's labels.
    Create {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// Its colour: slate (default), gray, red, orange, amber, yellow, lime, green,
        /// emerald, teal, cyan, sky, blue, indigo, violet, purple, fuchsia, pink, rose.
        #[arg(long, value_name = "ACCENT")]
        color: Option<String>,
        /// Its name, unique in the workspace ignoring case.
        name: String,
    },
    /// Give a label a new name.
    Rename {
        /// The workspace, by id or name: needed only when LABEL is a name.
        #[arg(long)]
        workspace: Option<String>,
        /// The label, by id (alone) or by name (with --workspace).
        label: String,
        /// The new name.
        name: String,
    },
    /// Delete a label, and take it off every card.
    Delete {
        /// The workspace, by id or name: needed only when LABEL is a name.
        #[arg(long)]
        workspace: Option<String>,
        /// The label, by id (alone) or by name (with --workspace).
        label: String,
    },
}

/// The label LABEL names: by id alone, or by name in `--workspace`.
async fn find(board: &Board, workspace: Option<&str>, label: &str) -> anyhow::Result<Label> {
    let ws = match workspace {
        Some(w) => Some(board.admin().find_workspace(w).await?.id),
        None => None,
    };
    Ok(board.admin().find_label_in(ws.as_ref(), label).await?)
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let label = match cmd {
        Cmd::List { workspace } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let labels = board.labels(ME, &ws.id).await?;
            let rows = labels
                .iter()
                .map(|l| {
                    vec![
                        l.name.clone(),
                        l.accent.as_str().to_string(),
                        l.id.to_string(),
                    ]
                })
                .collect();
            out.table(&labels, &["name", "color", "id"], rows);
            return Ok(());
        }
        Cmd::Create {
            workspace,
            color,
            name,
        } => {
            let ws = board.admin().find_workspace(&workspace).await?;
            let accent = match color {
                Some(c) => Accent::parse(&c).ok_or_else(|| {
                    board_core::ValidationErrors::one(
                        "color",
                        format!("{c:?} is not a colour: one of {}", Accent::ALL.join(", ")),
                    )
                })?,
                None => Accent::Slate,
            };
            let name = crate::lookup::name(&name)?;
            let new = NewLabel {
                workspace_id: ws.id,
                name,
                accent,
            };
            board.create_label(ME, new).await?
        }
        Cmd::Rename {
            workspace,
            label,
            name,
        } => {
            let found = find(board, workspace.as_deref(), &label).await?;
            let patch = LabelPatch {
                name: Some(crate::lookup::name(&name)?),
                ..LabelPatch::default()
            };
            board.update_label(ME, &found.id, patch).await?
        }
        Cmd::Delete { workspace, label } => {
            let found = find(board, workspace.as_deref(), &label).await?;
            board.delete_label(ME, &found.id).await?;
            out.value(&json!({"id": found.id, "deleted": true}), || {
                format!("deleted label {:?} ({})", found.name, found.id)
            });
            return Ok(());
        }
    };
    out.value(&label, || {
        format!(
            "label {:?} ({}) is {}",
            label.name,
            label.id,
            label.accent.as_str()
        )
    });
    Ok(())
}
