//! `board history CARD`: each move with who made it (api.md §17): the
//! account's name, or `board` for the CLI (and for entries older than the
//! record of who moved a card).

use std::collections::HashMap;

use board_core::{Actor, Board};

use crate::output::Out;

/// What the `by` column shows for an entry without an account.
const CLI: &str = "board";

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The card (id).
    card: String,
}

pub async fn run(board: &Board, out: &Out, args: Args) -> anyhow::Result<()> {
    let id = crate::lookup::card_id(&args.card)?;
    let entries = board.card_history(&Actor::Operator, &id).await?;
    let names: HashMap<_, _> = board
        .admin()
        .list_accounts()
        .await?
        .into_iter()
        .map(|a| (a.id, a.name))
        .collect();
    let rows = entries
        .iter()
        .map(|e| {
            let by = e.actor_id.as_ref().and_then(|a| names.get(a));
            vec![
                e.moved_at.to_string(),
                crate::output::cell(e.from_name.as_ref()),
                e.to_name.clone(),
                by.map_or(CLI, String::as_str).to_string(),
            ]
        })
        .collect();
    out.table(&entries, &["when", "from", "to", "by"], rows);
    Ok(())
}
