//! `board search --workspace W TEXT`: cards whose title or one of whose
//! comments holds every word (api.md §19), best first, with where they matched.

use board_core::{Actor, Board, SearchQuery, SetQuery};

use crate::lookup::place;
use crate::output::Out;

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The workspace, by id or name.
    #[arg(long)]
    workspace: String,
    /// Only the cards of this project, by id or name.
    #[arg(long)]
    project: Option<String>,
    /// Archived cards too.
    #[arg(long)]
    archived: bool,
    /// At most this many cards (1 to 200).
    #[arg(long, default_value_t = 20)]
    limit: u16,
    /// The words to find (case and accents do not matter; the last word may be the start of
    /// a word).
    text: String,
}

pub async fn run(board: &Board, out: &Out, args: Args) -> anyhow::Result<()> {
    let (ws, project) = place(board, &args.workspace, args.project.as_deref()).await?;
    let query = SearchQuery::new(SetQuery::workspace(ws).project(project), args.text)
        .archived(args.archived)
        .limit(args.limit);
    let page = board.search(&Actor::Operator, &query).await?;
    let rows = page
        .results
        .iter()
        .map(|r| {
            let first = r.matches.first();
            let archived = if r.card.archived_at.is_some() {
                " (archived)"
            } else {
                ""
            };
            vec![
                format!("{}{archived}", r.card.title),
                crate::output::cell(first.map(|m| m.field)),
                crate::output::cell(first.map(|m| &m.snippet)),
                r.card.id.to_string(),
            ]
        })
        .collect();
    out.table(&page, &["card", "matched", "snippet", "id"], rows);
    Ok(())
}
