//! `board column create|rename|set|delete`: one column, by id or by name in
//! the set in effect of `--workspace` (and `--project`).

use std::io::{BufRead, IsTerminal, Write};

use board_core::{Actor, Board, ColumnPatch, DeleteColumn, Input, NewColumn};
use clap::{Args, Subcommand};
use serde_json::json;

use crate::lookup;
use crate::output::Out;

/// The phrase that confirms deleting a column's cards.
const CONFIRM: &str = "APAGAR CARDS";

#[derive(Debug, Subcommand)]
pub enum Cmd {
    /// Create a column at the end of the tenant set, or of a project's set.
    Create {
        /// The workspace, by id or name.
        #[arg(long)]
        workspace: String,
        /// The project whose own set gets the column, by id or name.
        #[arg(long)]
        project: Option<String>,
        /// Its name.
        name: String,
        /// Its accent (slate, gray, red, …, rose; default slate).
        #[arg(long)]
        color: Option<String>,
        /// Make it the set's done column (the mark moves from the old one).
        #[arg(long)]
        done: bool,
    },
    /// Rename a column.
    Rename {
        #[command(flatten)]
        column: Which,
        /// Its new name.
        name: String,
    },
    /// Change a column's accent, or make it the set's done column.
    Set {
        #[command(flatten)]
        column: Which,
        /// The new accent (slate, gray, red, …, rose).
        #[arg(long)]
        color: Option<String>,
        /// Make it the set's done column (the mark moves from the old one).
        #[arg(long)]
        done: bool,
    },
    /// Delete a column: say what happens to its cards, --move-to COLUMN or
    /// --delete-cards (with their comments, attachments, links and history).
    Delete {
        #[command(flatten)]
        column: Which,
        /// Append the cards to this column of the same set (id or name).
        #[arg(long, value_name = "COLUMN", conflicts_with = "delete_cards")]
        move_to: Option<String>,
        /// Delete the cards instead; asks for the phrase "APAGAR CARDS" on a
        /// terminal unless --confirm gives it.
        #[arg(long)]
        delete_cards: bool,
        /// The exact confirmation for --delete-cards: "APAGAR CARDS".
        #[arg(long, requires = "delete_cards")]
        confirm: Option<String>,
    },
}

/// A column named on the command line.
#[derive(Debug, Args)]
pub struct Which {
    /// The column: its id, or its name with --workspace (and --project).
    column: String,
    /// The workspace whose set in effect holds the named column.
    #[arg(long)]
    workspace: Option<String>,
    /// The project whose set in effect holds the named column.
    #[arg(long)]
    project: Option<String>,
}

impl Which {
    async fn find(&self, board: &Board) -> anyhow::Result<board_core::Column> {
        lookup::column(
            board,
            self.workspace.as_deref(),
            self.project.as_deref(),
            &self.column,
        )
        .await
    }
}

const ME: &Actor = &Actor::Operator;

pub async fn run(board: &Board, out: &Out, cmd: Cmd) -> anyhow::Result<()> {
    let column = match cmd {
        Cmd::Create {
            workspace,
            project,
            name,
            color,
            done,
        } => {
            let (ws, project) = lookup::place(board, &workspace, project.as_deref()).await?;
            // The same body the HTTP route takes, so the same schema rules apply.
            let mut body = json!({"tenantId": ws, "name": name, "done": done});
            if let Some(p) = project {
                body["projectId"] = json!(p);
            }
            if let Some(c) = color {
                body["color"] = json!(c);
            }
            let input: Input<NewColumn> = Input::from_value(&body);
            board.create_column(ME, input).await?
        }
        Cmd::Rename { column, name } => {
            let c = column.find(board).await?;
            let input: Input<ColumnPatch> = Input::from_value(&json!({ "name": name }));
            board.update_column(ME, &c.id, input).await?
        }
        Cmd::Set {
            column,
            color,
            done,
        } => {
            if color.is_none() && !done {
                anyhow::bail!("say what to change: --color ACCENT and/or --done");
            }
            let c = column.find(board).await?;
            let mut body = json!({});
            if let Some(color) = color {
                body["color"] = json!(color);
            }
            if done {
                body["done"] = json!(true);
            }
            let input: Input<ColumnPatch> = Input::from_value(&body);
            board.update_column(ME, &c.id, input).await?
        }
        Cmd::Delete {
            column,
            move_to,
            delete_cards,
            confirm,
        } => {
            let c = column.find(board).await?;
            let body = match (move_to, delete_cards) {
                (Some(target), _) => {
                    let target = lookup::column(
                        board,
                        column.workspace.as_deref(),
                        column.project.as_deref(),
                        &target,
                    )
                    .await?;
                    json!({"cards": "MOVE", "targetColumnId": target.id})
                }
                (None, true) => {
                    let phrase = match confirm {
                        Some(p) => p,
                        None => ask_confirmation(&c.name)?,
                    };
                    json!({"cards": "DELETE", "confirm": phrase})
                }
                (None, false) => anyhow::bail!(
                    "say what happens to the cards of column {:?}: --move-to COLUMN appends \
                     them to another column of its set, or --delete-cards --confirm \"{CONFIRM}\" \
                     deletes them with their comments, attachments, links and history",
                    c.name
                ),
            };
            let input: Input<DeleteColumn> = Input::from_value(&body);
            let done = board.delete_column(ME, &c.id, input).await?;
            out.value(&done, || {
                format!(
                    "deleted column {:?} ({}): {} card(s) moved, {} card(s) deleted",
                    c.name, c.id, done.cards_moved, done.cards_deleted
                )
            });
            return Ok(());
        }
    };
    out.value(&column, || {
        format!(
            "column {:?} ({}) · {} · position {}{}",
            column.name,
            column.id,
            column.accent.as_str(),
            column.position,
            if column.done { " · done column" } else { "" }
        )
    });
    Ok(())
}

/// Asks for the confirmation phrase on a terminal; refuses without one.
fn ask_confirmation(column: &str) -> anyhow::Result<String> {
    if !std::io::stdin().is_terminal() {
        anyhow::bail!("--delete-cards needs --confirm \"{CONFIRM}\" when no one can be asked");
    }
    eprint!("This deletes every card of column {column:?} with its comments, attachments, links and history.\nType {CONFIRM} to go on: ");
    std::io::stderr().flush().ok();
    let mut line = String::new();
    std::io::stdin().lock().read_line(&mut line)?;
    Ok(line.trim_end_matches(['\n', '\r']).to_string())
}
