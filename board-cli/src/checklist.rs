//! `board checklist CARD [add TEXT | check ITEM | uncheck ITEM | remove ITEM]`:
//! a card's checklist (api.md §24). An item is named by its id or by its
//! number in the list (1 first).

use board_core::{
    Actor, Board, CardId, ChecklistItem, IfMatch, IfNoneMatch, ItemPatch, ItemText, NewItem,
};
use clap::{Args, Subcommand};
use serde_json::json;

use crate::output::Out;

const ME: &Actor = &Actor::Operator;

#[derive(Debug, Args)]
pub struct Cmd {
    /// The card (id).
    card: String,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, Subcommand)]
enum Action {
    /// Add an item at the end.
    Add {
        /// What is to be done.
        text: String,
    },
    /// Check an item.
    Check {
        /// The item, by id or number (1 first).
        item: String,
    },
    /// Uncheck an item.
    Uncheck {
        /// The item, by id or number (1 first).
        item: String,
    },
    /// Remove an item.
    Remove {
        /// The item, by id or number (1 first).
        item: String,
    },
}

/// The items of card `card`, in order.
pub async fn items(board: &Board, card: &CardId) -> anyhow::Result<Vec<ChecklistItem>> {
    let read = board.checklist_if(ME, card, &IfNoneMatch::none()).await?;
    Ok(read.into_payload().unwrap_or_default())
}

/// The item named `s` (its id, or its number in `items`, 1 first).
fn pick<'i>(items: &'i [ChecklistItem], s: &str) -> anyhow::Result<&'i ChecklistItem> {
    let by_number = s
        .parse::<usize>()
        .ok()
        .and_then(|n| n.checked_sub(1))
        .and_then(|i| items.get(i));
    by_number
        .or_else(|| items.iter().find(|i| i.id == s))
        .ok_or_else(|| {
            board_core::Error::Unknown(format!(
                "no item {s:?} in this checklist: give its id or its number, 1 to {}",
                items.len()
            ))
            .into()
        })
}

/// The checklist as lines: `1. [x] text`.
pub fn lines(items: &[ChecklistItem]) -> Vec<String> {
    items
        .iter()
        .enumerate()
        .map(|(n, i)| {
            let mark = if i.done { "x" } else { " " };
            format!("{}. [{mark}] {}", n + 1, i.text)
        })
        .collect()
}

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let card = crate::lookup::card_id(&cmd.card)?;
    let items = items(board, &card).await?;
    let patch = |done: bool| ItemPatch {
        done: Some(done),
        ..ItemPatch::default()
    };
    match cmd.action {
        None => {
            let rows = items
                .iter()
                .enumerate()
                .map(|(n, i)| {
                    let done = if i.done { "x" } else { "" };
                    vec![
                        (n + 1).to_string(),
                        done.into(),
                        i.text.clone(),
                        i.id.to_string(),
                    ]
                })
                .collect();
            out.table(&items, &["#", "done", "text", "id"], rows);
            return Ok(());
        }
        Some(Action::Add { text }) => {
            let text = ItemText::parse(&text).map_err(|e| e.on("text"))?;
            let item = board
                .create_checklist_item(ME, &card, NewItem { text, place: None })
                .await?;
            out.value(&item, || format!("added {:?} ({})", item.text, item.id));
        }
        Some(Action::Check { item }) => {
            let id = pick(&items, &item)?.id.clone();
            let item = board
                .update_checklist_item(ME, &id, patch(true), &IfMatch::none())
                .await?;
            out.value(&item, || format!("checked {:?}", item.text));
        }
        Some(Action::Uncheck { item }) => {
            let id = pick(&items, &item)?.id.clone();
            let item = board
                .update_checklist_item(ME, &id, patch(false), &IfMatch::none())
                .await?;
            out.value(&item, || format!("unchecked {:?}", item.text));
        }
        Some(Action::Remove { item }) => {
            let found = pick(&items, &item)?;
            board.delete_checklist_item(ME, &found.id).await?;
            out.value(&json!({"id": found.id, "deleted": true}), || {
                format!("removed {:?}", found.text)
            });
        }
    }
    Ok(())
}
