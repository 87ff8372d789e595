//! `board card create|move|list|show|edit|label|assign|unassign|rename|delete|archive|restore`.

use board_core::{
    Actor, ArchivedQuery, Board, Card, CardId, CardPatch, ColumnId, Description, Input, Name,
    NewCard, Placement, ProjectId, Rule, SetQuery, Timestamp, WorkspaceId,
};
use clap::{Args, Subcommand};
use serde::Serialize;
use serde_json::json;

use crate::lookup::place;
use crate::output::Out;

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a card at the end of a column (default: the first column of the set in effect),
    /// or at a place in it.
    Create {
        #[command(flatten)]
        at: Place,
        #[command(flatten)]
        placing: Placing,
        /// The title.
        title: String,
    },
    /// Move a card to another column of its set (its end; writes history), to a place in a
    /// column, or both.
    #[command(group(clap::ArgGroup::new("target").required(true).multiple(true)
        .args(["to", "before", "after", "top", "bottom"])))]
    Move {
        /// The card (id).
        card: String,
        /// The target column, by id or by name in the card's set in effect (e.g. Done).
        #[arg(long)]
        to: Option<String>,
        #[command(flatten)]
        placing: Placing,
        /// At the bottom of the column.
        #[arg(long, conflicts_with_all = ["before", "after", "top"])]
        bottom: bool,
    },
    /// List the cards of the set in effect, column by column, each column top to bottom, or of
    /// one column.
    List {
        #[command(flatten)]
        at: Place,
        /// The archived cards instead (of the whole workspace, or of the project), most
        /// recently archived first.
        #[arg(long)]
        archived: bool,
    },
    /// Show one card.
    Show {
        /// The card (id).
        card: String,
    },
    /// Change a card's title, description or due date.
    #[command(group(clap::ArgGroup::new("change").required(true).multiple(true)
        .args(["title", "description_file", "due"])))]
    Edit {
        /// The card (id).
        card: String,
        /// The new title.
        #[arg(long)]
        title: Option<String>,
        /// A file holding the new description (Markdown); `-` reads standard input.
        #[arg(long, value_name = "FILE")]
        description_file: Option<String>,
        /// When it is due: a date (2026-12-01, midnight UTC), an RFC 3339 time, or
        /// `none`.
        #[arg(long, value_name = "DATE")]
        due: Option<String>,
    },
    /// Put a label on a card, or take it off.
    Label {
        /// The card (id).
        card: String,
        /// add or remove.
        action: LabelAction,
        /// The label, by id or name in the card's workspace.
        label: String,
    },
    /// Assign a card to an account (a member of its workspace, any role).
    Assign {
        /// The card (id).
        card: String,
        /// The account, by id or name.
        account: String,
    },
    /// Unassign an account from a card.
    Unassign {
        /// The card (id).
        card: String,
        /// The account, by id or name.
        account: String,
    },
    /// Give a card a new title.
    Rename {
        /// The card (id).
        card: String,
        /// The new title.
        title: String,
    },
    /// Delete a card with its comments, attachments (files too), links and history.
    Delete {
        /// The card (id).
        card: String,
    },
    /// Take a card off the board, keeping its column, comments, attachments, links and
    /// history (`board card list --archived` lists them).
    Archive {
        /// The card (id).
        card: String,
    },
    /// Put an archived card back on the board, at the end of its column.
    Restore {
        /// The card (id).
        card: String,
    },
}

/// What `board card label` does.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum LabelAction {
    /// Put the label on the card.
    Add,
    /// Take it off.
    Remove,
}

/// Where cards are: a workspace, maybe a project (its set in effect), maybe a column.
#[derive(Debug, Args)]
pub struct Place {
    /// The workspace, by id or name.
    #[arg(long)]
    workspace: String,
    /// The project, by id or name (its set in effect).
    #[arg(long)]
    project: Option<String>,
    /// The column, by id or by name in the set in effect.
    #[arg(long)]
    column: Option<String>,
}

/// Where in the column a card goes (at most one).
#[derive(Debug, Args)]
#[group(multiple = false)]
pub struct Placing {
    /// Directly above this card (id) of the column.
    #[arg(long, value_name = "CARD")]
    before: Option<String>,
    /// Directly below this card (id) of the column.
    #[arg(long, value_name = "CARD")]
    after: Option<String>,
    /// At the top of the column.
    #[arg(long)]
    top: bool,
}

impl Placing {
    /// The placement given, if any (`bottom`: `--bottom`, of `card move`).
    fn placement(&self, bottom: bool) -> anyhow::Result<Option<Placement>> {
        let anchor = |s: &str| {
            CardId::parse(s).ok_or_else(|| {
                board_core::Error::rule(
                    Rule::InvalidAnchor,
                    format!(
                        "{s:?} is not a card id: --before and --after take the id of another \
                         card of the column (`board card list` shows them)"
                    ),
                )
            })
        };
        Ok(match (&self.before, &self.after) {
            (Some(b), _) => Some(Placement::Before(anchor(b)?)),
            (_, Some(a)) => Some(Placement::After(anchor(a)?)),
            _ if self.top => Some(Placement::Top),
            _ if bottom => Some(Placement::Bottom),
            _ => None,
        })
    }
}

impl Place {
    /// The workspace, project and column ids.
    async fn find(
        &self,
        board: &Board,
    ) -> anyhow::Result<(WorkspaceId, Option<ProjectId>, Option<ColumnId>)> {
        let (ws, project) = place(board, &self.workspace, self.project.as_deref()).await?;
        let column = match &self.column {
            Some(c) => Some(
                board
                    .find_column_in(ME, Some(&ws), project.as_ref(), c)
                    .await?
                    .id,
            ),
            None => None,
        };
        Ok((ws, project, column))
    }
}

/// A card with the name of its column, as the CLI prints it.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Shown {
    #[serde(flatten)]
    card: Card,
    column_name: String,
}

const ME: &Actor = &Actor::Operator;

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    // Each command's card, and what it did, said as its result line.
    let (card, done) = match cmd {
        Cmd::Create { at, placing, title } => {
            let (ws, project, column) = at.find(board).await?;
            let title = Name::parse(&title).map_err(|e| e.on("title"))?;
            let new = NewCard::new(ws, title)
                .in_project(project)
                .in_column(column)
                .placed(placing.placement(false)?);
            (board.create_card(ME, new).await?, Done::Created)
        }
        Cmd::Move {
            card,
            to,
            placing,
            bottom,
        } => {
            let id = crate::lookup::card_id(&card)?;
            let before = board.card(ME, &id).await?;
            let mut patch = CardPatch::default();
            if let Some(to) = to {
                patch = patch.column(board.find_column_for(ME, &id, &to).await?.id);
            }
            if let Some(placement) = placing.placement(bottom)? {
                patch = patch.placed(placement);
            }
            let card = board.update_card(ME, &id, patch).await?;
            let done = match (
                card.column_id != before.column_id,
                card.position != before.position,
            ) {
                (true, _) => Done::Moved,
                (false, true) => Done::Placed,
                (false, false) => Done::Unchanged,
            };
            (card, done)
        }
        Cmd::List { at, archived: true } => return list_archived(board, out, &at).await,
        Cmd::List {
            at,
            archived: false,
        } => {
            let (ws, project, only) = at.find(board).await?;
            let columns = board
                .list_columns(
                    ME,
                    Some(&SetQuery::workspace(ws.clone()).project(project.clone())),
                )
                .await?;
            let cards = board
                .list_cards(ME, &ws, project.as_ref(), only.as_ref())
                .await?;
            let name_of = |c: &Card| {
                columns
                    .iter()
                    .find(|col| col.id == c.column_id)
                    .map(|col| col.name.clone())
                    .unwrap_or_else(|| crate::output::EMPTY.to_string())
            };
            // Each card's place in its column, from the top (its `position`
            // is the server's, with gaps: not a number a person uses).
            let mut seen: Vec<(&board_core::ColumnId, usize)> = Vec::new();
            let mut rows = Vec::with_capacity(cards.len());
            for c in &cards {
                let rank = match seen.iter_mut().find(|(col, _)| **col == c.column_id) {
                    Some((_, n)) => {
                        *n += 1;
                        *n
                    }
                    None => {
                        seen.push((&c.column_id, 1));
                        1
                    }
                };
                rows.push(vec![
                    c.title.clone(),
                    name_of(c),
                    rank.to_string(),
                    c.id.to_string(),
                ]);
            }
            out.table(&cards, &["title", "column", "#", "id"], rows);
            return Ok(());
        }
        Cmd::Show { card } => {
            let card = board.card(ME, &crate::lookup::card_id(&card)?).await?;
            return show(board, out, card).await;
        }
        Cmd::Edit {
            card,
            title,
            description_file,
            due,
        } => {
            let id = crate::lookup::card_id(&card)?;
            let mut patch = CardPatch::default();
            let mut fields = Vec::new();
            if let Some(t) = title {
                patch = patch.title(Name::parse(&t).map_err(|e| e.on("title"))?);
                fields.push("title");
            }
            if let Some(file) = description_file {
                let text = match file.as_str() {
                    "-" => std::io::read_to_string(std::io::stdin())?,
                    path => std::fs::read_to_string(path)
                        .map_err(|e| anyhow::anyhow!("cannot read {path}: {e}"))?,
                };
                let d = Description::parse(&text).map_err(|e| e.on("description"))?;
                patch = patch.description(d);
                fields.push("description");
            }
            if let Some(due) = due {
                patch = patch.due(due_date(&due)?);
                fields.push("due date");
            }
            (
                board.update_card(ME, &id, patch).await?,
                Done::Edited(fields),
            )
        }
        Cmd::Label {
            card,
            action,
            label,
        } => {
            let id = crate::lookup::card_id(&card)?;
            let ws = board.card(ME, &id).await?.workspace_id;
            let label = board.admin().find_label(&ws, &label).await?;
            match action {
                LabelAction::Add => (
                    board.put_card_label(ME, &id, &label.id).await?,
                    Done::Labelled(label.name, true),
                ),
                LabelAction::Remove => (
                    board.delete_card_label(ME, &id, &label.id).await?,
                    Done::Labelled(label.name, false),
                ),
            }
        }
        Cmd::Assign { card, account } => {
            let id = crate::lookup::card_id(&card)?;
            let account = board.admin().find_account(&account).await?;
            let card = board.put_card_assignee(ME, &id, &account.id).await?;
            (card, Done::Assigned(account.name.to_string(), true))
        }
        Cmd::Unassign { card, account } => {
            let id = crate::lookup::card_id(&card)?;
            let account = board.admin().find_account(&account).await?;
            let card = board.delete_card_assignee(ME, &id, &account.id).await?;
            (card, Done::Assigned(account.name.to_string(), false))
        }
        Cmd::Archive { card } => {
            let id = crate::lookup::card_id(&card)?;
            (board.archive_card(ME, &id).await?, Done::Archived)
        }
        Cmd::Restore { card } => {
            let id = crate::lookup::card_id(&card)?;
            (board.restore_card(ME, &id).await?, Done::Restored)
        }
        Cmd::Rename { card, title } => {
            // Refused by the operation, after the card is found (404 first).
            let patch: Input<CardPatch> = Name::parse(&title)
                .map(|title| CardPatch::default().title(title))
                .map_err(|e| e.on("title"))
                .into();
            let id = crate::lookup::card_id(&card)?;
            (
                board.update_card(ME, &id, patch).await?,
                Done::Edited(vec!["title"]),
            )
        }
        Cmd::Delete { card } => {
            let id = crate::lookup::card_id(&card)?;
            let gone = board.card(ME, &id).await?;
            board.delete_card(ME, &id).await?;
            out.value(&json!({"id": id, "deleted": true}), || {
                format!("deleted card {} {:?}", gone.id, gone.title)
            });
            return Ok(());
        }
    };
    let column = board
        .find_column_in(ME, None, None, card.column_id.as_str())
        .await?;
    let shown = Shown {
        card,
        column_name: column.name,
    };
    out.value(&shown, || {
        let c = &shown.card;
        let card = format!("card {:?} ({})", c.title, c.id);
        let column = format!("column {:?} ({})", shown.column_name, c.column_id);
        match &done {
            Done::Created => format!("created {card} in {column}"),
            Done::Moved => format!("moved {card} to {column}"),
            Done::Placed => format!("placed {card} at position {} in {column}", c.position),
            Done::Unchanged => format!("{card} stays where it was, in {column}"),
            Done::Edited(fields) => format!("changed the {} of {card}", fields.join(", ")),
            Done::Labelled(label, true) => format!("added label {label:?} to {card}"),
            Done::Labelled(label, false) => format!("removed label {label:?} from {card}"),
            Done::Assigned(name, true) => format!("assigned {name} to {card}"),
            Done::Assigned(name, false) => format!("unassigned {name} from {card}"),
            Done::Archived => format!("archived {card} (from {column})"),
            Done::Restored => format!("restored {card} to {column}"),
        }
    });
    Ok(())
}

/// What a card command did, for its result line.
enum Done {
    Created,
    Moved,
    Placed,
    Unchanged,
    /// The fields a change named, in the command's order.
    Edited(Vec<&'static str>),
    /// A label's name; added (true) or removed.
    Labelled(String, bool),
    /// An account's name; assigned (true) or unassigned.
    Assigned(String, bool),
    Archived,
    Restored,
}

/// `--due`: a date or time, or `none` (no due date).
fn due_date(s: &str) -> anyhow::Result<Option<Timestamp>> {
    if s.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    let body = json!({ "dueAt": s });
    let patch: CardPatch = board_core::FromJson::from_json(&body)?;
    Ok(patch.due_at.flatten())
}

/// A card in full, as `board card show` prints it: its column's name, its
/// labels and assignees by name, and its checklist.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Full {
    #[serde(flatten)]
    card: Card,
    column_name: String,
    labels: Vec<board_core::Label>,
    assignees: Vec<board_core::WorkspaceMember>,
    checklist_items: Vec<board_core::ChecklistItem>,
}

/// `board card show`: every field of the card.
async fn show(board: &Board, out: &Out, card: Card) -> anyhow::Result<()> {
    let column = board
        .find_column_in(ME, None, None, card.column_id.as_str())
        .await?;
    let labels: Vec<_> = board
        .labels(ME, &card.workspace_id)
        .await?
        .into_iter()
        .filter(|l| card.label_ids.contains(&l.id))
        .collect();
    let members = board.workspace_members(ME, &card.workspace_id).await?;
    let assignees = card
        .assignee_ids
        .iter()
        .filter_map(|a| members.iter().find(|m| m.account_id == *a).cloned())
        .collect();
    let items = crate::checklist::items(board, &card.id).await?;
    let full = Full {
        card,
        column_name: column.name,
        labels,
        assignees,
        checklist_items: items,
    };
    out.value(&full, || {
        let c = &full.card;
        let names = |v: Vec<&str>| match v.is_empty() {
            true => crate::output::EMPTY.to_string(),
            false => v.join(", "),
        };
        let mut text = vec![
            format!("{} ({})", c.title, c.id),
            format!("column:      {}", full.column_name),
            format!("due:         {}", crate::output::cell(c.due_at.as_ref())),
            format!(
                "labels:      {}",
                names(full.labels.iter().map(|l| l.name.as_str()).collect())
            ),
            format!(
                "assignees:   {}",
                names(full.assignees.iter().map(|m| m.name.as_str()).collect())
            ),
            format!("comments:    {}", c.comment_count),
            format!("attachments: {}", c.attachment_count),
        ];
        if let Some(t) = &c.archived_at {
            text.push(format!("archived:    {t}"));
        }
        text.push(format!(
            "checklist:   {}/{}",
            c.checklist.done, c.checklist.total
        ));
        text.extend(
            crate::checklist::lines(&full.checklist_items)
                .into_iter()
                .map(|l| format!("  {l}")),
        );
        if !c.description.is_empty() {
            text.push(String::new());
            text.push(c.description.trim_end().to_string());
        }
        text.join("\n")
    });
    Ok(())
}

/// `board card list --archived`: every page of the archived list, as one table
/// (with `--column`, only that column's cards).
async fn list_archived(board: &Board, out: &Out, at: &Place) -> anyhow::Result<()> {
    let (ws, project, only) = at.find(board).await?;
    // Every column of the workspace, of every set: an archived card's column
    // may be outside the set in effect.
    let columns = board
        .list_columns(ME, Some(&SetQuery::workspace(ws.clone())))
        .await?;
    let set = SetQuery::workspace(ws).project(project);
    let mut cards = Vec::new();
    let mut cursor = None;
    loop {
        let query = ArchivedQuery::new(set.clone()).limit(200).after(cursor);
        let page = board.archived_cards(ME, &query).await?;
        cards.extend(page.cards);
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    cards.retain(|c| only.as_ref().is_none_or(|o| *o == c.column_id));
    let rows = cards
        .iter()
        .map(|c| {
            let column = columns.iter().find(|col| col.id == c.column_id);
            vec![
                c.title.clone(),
                crate::output::cell(column.map(|col| &col.name)),
                crate::output::cell(c.archived_at.as_ref()),
                c.id.to_string(),
            ]
        })
        .collect();
    out.table(&cards, &["title", "column", "archived at", "id"], rows);
    Ok(())
}
