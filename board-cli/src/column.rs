//! `board column create|rename|set|delete`: one column, by id or by name in
//! the set in effect of `--workspace` (and `--project`).

use std::io::{BufRead, IsTerminal, Write};

use board_core::{
    Accent, Actor, Board, ColumnPatch, DeleteColumn, Name, NewColumn, ValidationErrors, WipLimit,
    CONFIRM_DELETE_CARDS as CONFIRM,
};
use clap::{Args, Subcommand};

use crate::lookup;
use crate::output::Out;

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
        /// Its WIP limit: the most cards it may hold (1 to 10000), or none.
        #[arg(long, value_name = "N|none")]
        wip_limit: Option<Limit>,
    },
    /// Rename a column.
    Rename {
        #[command(flatten)]
        column: Which,
        /// Its new name.
        name: String,
    },
    /// Change a column's accent or WIP limit, or make it the set's done column.
    Set {
        #[command(flatten)]
        column: Which,
        /// The new accent (slate, gray, red, …, rose).
        #[arg(long)]
        color: Option<String>,
        /// Make it the set's done column (the mark moves from the old one).
        #[arg(long)]
        done: bool,
        /// The new WIP limit: the most cards it may hold (1 to 10000), or none
        /// to remove it. A limit below the current count is allowed.
        #[arg(long, value_name = "N|none")]
        wip_limit: Option<Limit>,
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

/// `--wip-limit`: a number of cards, or `none`.
#[derive(Debug, Clone, Copy)]
pub struct Limit(Option<WipLimit>);

impl std::str::FromStr for Limit {
    type Err = String;

    fn from_str(s: &str) -> Result<Limit, String> {
        if s.eq_ignore_ascii_case("none") {
            return Ok(Limit(None));
        }
        s.parse::<i64>()
            .ok()
            .and_then(WipLimit::new)
            .map(|l| Limit(Some(l)))
            .ok_or_else(|| "expected a number of cards from 1 to 10000, or none".to_string())
    }
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
            wip_limit,
        } => {
            let (ws, project) = lookup::place(board, &workspace, project.as_deref()).await?;
            let input = checked(Some(&name), color.as_deref()).map(|(name, color)| {
                let new = NewColumn::new(ws, name.expect("given"))
                    .in_project(project)
                    .wip_limit(wip_limit.and_then(|l| l.0));
                let new = match color {
                    Some(c) => new.color(c),
                    None => new,
                };
                if done {
                    new.done()
                } else {
                    new
                }
            });
            board.create_column(ME, input).await?
        }
        Cmd::Rename { column, name } => {
            let c = column.find(board).await?;
            let input = checked(Some(&name), None)
                .map(|(name, _)| ColumnPatch::default().name(name.expect("given")));
            board.update_column(ME, &c.id, input).await?
        }
        Cmd::Set {
            column,
            color,
            done,
            wip_limit,
        } => {
            if color.is_none() && !done && wip_limit.is_none() {
                anyhow::bail!(
                    "say what to change: --color ACCENT, --done and/or --wip-limit N|none"
                );
            }
            let c = column.find(board).await?;
            let input = checked(None, color.as_deref()).map(|(_, color)| {
                let patch = match color {
                    Some(c) => ColumnPatch::default().color(c),
                    None => ColumnPatch::default(),
                };
                let patch = match wip_limit {
                    Some(Limit(l)) => patch.wip_limit(l),
                    None => patch,
                };
                if done {
                    patch.done()
                } else {
                    patch
                }
            });
            board.update_column(ME, &c.id, input).await?
        }
        Cmd::Delete {
            column,
            move_to,
            delete_cards,
            confirm,
        } => {
            let c = column.find(board).await?;
            let input = match (move_to, delete_cards) {
                (Some(target), _) => {
                    let target = lookup::column(
                        board,
                        column.workspace.as_deref(),
                        column.project.as_deref(),
                        &target,
                    )
                    .await?;
                    DeleteColumn::move_cards(target.id)
                }
                (None, true) => {
                    let phrase = match confirm {
                        Some(p) => p,
                        None => ask_confirmation(&c.name)?,
                    };
                    DeleteColumn::delete_cards(phrase)
                }
                (None, false) => anyhow::bail!(
                    "say what happens to the cards of column {:?}: --move-to COLUMN appends \
                     them to another column of its set, or --delete-cards --confirm \"{CONFIRM}\" \
                     deletes them with their comments, attachments, links and history",
                    c.name
                ),
            };
            let done = board.delete_column(ME, &c.id, input).await?;
            out.value(&done, || {
                let (moved, deleted) = (done.cards_moved as u64, done.cards_deleted as u64);
                format!(
                    "deleted column {:?} ({}): {} moved, {} deleted",
                    c.name,
                    c.id,
                    crate::output::count(moved, "card"),
                    crate::output::count(deleted, "card"),
                )
            });
            return Ok(());
        }
    };
    out.value(&column, || {
        format!(
            "column {:?} ({}) · {} · position {}{}{}",
            column.name,
            column.id,
            column.accent.as_str(),
            column.position,
            if column.done { " · done column" } else { "" },
            column
                .wip_limit
                .map_or_else(String::new, |l| format!(" · WIP limit {l}"))
        )
    });
    Ok(())
}

/// `name` and `--color` checked as the API checks them in a body, every
/// problem reported at once in its words; the operation reports a refusal
/// after its own checks (the column found, column management on).
fn checked(
    name: Option<&str>,
    color: Option<&str>,
) -> board_core::Result<(Option<Name>, Option<Accent>)> {
    let mut errors = ValidationErrors::default();
    let name = name.and_then(|n| {
        Name::parse(n)
            .map_err(|e| errors.field("name", e.message()))
            .ok()
    });
    let color = color.and_then(|c| {
        let accent = Accent::parse(c);
        if accent.is_none() {
            errors.field("color", accent_refused(c));
        }
        accent
    });
    if errors.is_empty() {
        Ok((name, color))
    } else {
        Err(board_core::Error::Validation(errors))
    }
}

/// The API's message for a `color` that is not an accent token.
fn accent_refused(color: &str) -> String {
    let tokens: Vec<String> = Accent::ALL.iter().map(|a| format!("'{a}'")).collect();
    format!("Expected one of {}, received '{color}'", tokens.join(" | "))
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

#[cfg(test)]
mod tests {
    use super::*;
    use board_core::FromJson;
    use clap::{CommandFactory, Parser};

    #[derive(Parser)]
    struct Cli {
        #[command(subcommand)]
        cmd: Cmd,
    }

    /// The problems a result reports, as the API reports them.
    fn refusal<T>(result: board_core::Result<T>) -> Option<ValidationErrors> {
        match result {
            Ok(_) => None,
            Err(board_core::Error::Validation(v)) => Some(v),
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn arguments_are_refused_in_the_words_of_the_body_reader() {
        let cases = [
            ("", "#ff0000"),
            (" Review ", "violet"),
            ("x", "teal "),
            ("ok", "RED"),
        ];
        for (name, color) in cases {
            let body = serde_json::json!({ "name": name, "color": color });
            assert_eq!(
                refusal(checked(Some(name), Some(color))),
                refusal(ColumnPatch::from_json(&body)),
                "{name:?} {color:?}"
            );
        }
    }

    #[test]
    fn the_help_names_the_confirmation() {
        let mut cli = Cli::command();
        let help = cli
            .find_subcommand_mut("delete")
            .expect("delete")
            .render_long_help()
            .to_string();
        assert!(help.contains(&format!("\"{CONFIRM}\"")), "{help}");
    }
}
