//! `board history CARD`.

use board_core::{Actor, Board};

use crate::output::Out;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The card (id).
    card: String,
}

pub async fn run(board: &Board, out: &Out, args: Args) -> anyhow::Result<()> {
    let id = crate::lookup::card_id(&args.card)?;
    let entries = board.card_history(&Actor::Operator, &id).await?;
    let rows = entries
        .iter()
        .map(|e| {
            vec![
                e.moved_at.to_string(),
                e.from_name.clone().unwrap_or_else(|| "—".into()),
                e.to_name.clone(),
            ]
        })
        .collect();
    out.table(&entries, &["when", "from", "to"], rows);
    Ok(())
}
