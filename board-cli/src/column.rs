//! `board column delete ID --move-to COL` and
//! `board column delete ID --delete-cards --confirm "APAGAR CARDS"`.

use board_core::{Actor, Board, ColumnId, DeleteColumn, Input};
use clap::Subcommand;
use serde_json::json;

use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Delete a column, moving its cards to another column of the set or
    /// deleting them (with their comments, attachments, links and history).
    Delete {
        /// The column (id).
        id: String,
        /// Append the cards to this column of the same set.
        #[arg(
            long,
            value_name = "COLUMN",
            required_unless_present = "delete_cards",
            conflicts_with = "delete_cards"
        )]
        move_to: Option<String>,
        /// Delete the cards instead (needs --confirm "APAGAR CARDS").
        #[arg(long, requires = "confirm")]
        delete_cards: bool,
        /// The exact confirmation for --delete-cards.
        #[arg(long)]
        confirm: Option<String>,
    },
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let Cmd::Delete {
        id,
        move_to,
        delete_cards: _,
        confirm,
    } = cmd;
    let id = ColumnId::from_path(&id)?;
    // The same body the HTTP route takes, so the same schema rules apply.
    let body = match move_to {
        Some(target) => json!({"cards": "MOVE", "targetColumnId": target}),
        None => json!({"cards": "DELETE", "confirm": confirm.unwrap_or_default()}),
    };
    let input: Input<DeleteColumn> = Input::from_value(&body);
    let done = board.delete_column(&Actor::Operator, &id, input).await?;
    out.value(&done, || {
        if done.cards_deleted > 0 {
            format!(
                "column {id} deleted; {} card(s) deleted",
                done.cards_deleted
            )
        } else {
            format!("column {id} deleted; {} card(s) moved", done.cards_moved)
        }
    });
    Ok(())
}
