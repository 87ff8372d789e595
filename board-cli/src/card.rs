//! `board card create` and `board card move`.

use board_core::{Actor, Board, CardId, ColumnId, NewCard, ProjectId};
use clap::Subcommand;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a card at the end of a column (default: the set's first column).
    Create {
        /// The workspace, by id or unique name.
        #[arg(long)]
        workspace: String,
        /// The project (id).
        #[arg(long)]
        project: Option<String>,
        /// The column (id); must be in the set in effect.
        #[arg(long)]
        column: Option<String>,
        /// The title.
        title: String,
    },
    /// Move a card to the end of another column of its set (writes history).
    Move {
        /// The card (id).
        card: String,
        /// The target column (id).
        #[arg(long)]
        to: String,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let card = match cmd {
        Cmd::Create {
            workspace,
            project,
            column,
            title,
        } => {
            let ws = board.find_workspace(&workspace).await?;
            let new = NewCard {
                tenant_id: ws.id,
                project_id: project.as_deref().map(ProjectId::from_path).transpose()?,
                column_id: column.as_deref().map(ColumnId::from_path).transpose()?,
                title,
            };
            board.create_card(&Actor::Operator, new.into()).await?
        }
        Cmd::Move { card, to } => {
            let id = CardId::from_path(&card)?;
            board
                .move_card(&Actor::Operator, &id, &ColumnId::from_path(&to)?)
                .await?
        }
    };
    out.value(&card, || {
        format!(
            "card {} {:?} is in column {} at position {}",
            card.id, card.title, card.column_id, card.position
        )
    });
    Ok(())
}
