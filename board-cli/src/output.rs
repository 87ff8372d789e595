//! Output: one JSON value with `--json`, otherwise tables (comfy-table) or lines.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use serde::Serialize;

/// Writes `text` and a line break to standard output. A reader that went
/// away (`board card list | head -1`) ends the command quietly, with status
/// 0: the command's work is done, and what is left to print has no reader.
/// Any other failure to write is one line on standard error and status 1.
pub fn line(text: impl std::fmt::Display) {
    use std::io::Write;
    let mut out = std::io::stdout().lock();
    if let Err(e) = writeln!(out, "{text}").and_then(|()| out.flush()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        eprintln!("board: cannot write to standard output: {e}");
        std::process::exit(1);
    }
}

/// What an empty cell of a table shows, in every table.
pub const EMPTY: &str = "—";

/// `n` things, in words: "1 card", "3 cards".
pub fn count(n: u64, thing: &str) -> String {
    match n {
        1 => format!("1 {thing}"),
        n => format!("{n} {thing}s"),
    }
}

/// A table cell: the value, or [`EMPTY`].
pub fn cell<T: std::fmt::Display>(value: Option<T>) -> String {
    value.map_or_else(|| EMPTY.to_string(), |v| v.to_string())
}

/// Where a command's result goes.
pub struct Out {
    /// `--json` was given.
    pub json: bool,
}

impl Out {
    /// Prints `value` as JSON, or the line `text` builds.
    pub fn value<T: Serialize>(&self, value: &T, text: impl FnOnce() -> String) {
        if self.json {
            line(serde_json::to_string_pretty(value).expect("serialisable"));
        } else {
            line(text());
        }
    }

    /// Prints `value` as JSON, or a table of `header` and `rows`.
    pub fn table<T: Serialize>(&self, value: &T, header: &[&str], rows: Vec<Vec<String>>) {
        if self.json {
            line(serde_json::to_string_pretty(value).expect("serialisable"));
            return;
        }
        let mut table = Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_header(header.to_vec());
        for row in rows {
            table.add_row(row);
        }
        line(table);
    }
}

/// An error as one line: the core message, with schema details inline.
pub fn one_line(e: &anyhow::Error) -> String {
    match e.downcast_ref::<board_core::Error>() {
        Some(board_core::Error::Validation(v)) => {
            let mut parts: Vec<String> = v
                .field_errors
                .iter()
                .map(|(field, msgs)| format!("{field}: {}", msgs.join(", ")))
                .collect();
            parts.extend(v.form_errors.iter().cloned());
            format!("invalid input: {}", parts.join("; "))
        }
        Some(board_core::Error::NoDatabase(path)) => format!(
            "no database at {}: create it with `board init`, or name an existing one with \
             --database-url or BOARD_DATABASE_URL",
            path.display()
        ),
        // A setting to fix (a database URL, a folder): the message says which.
        Some(board_core::Error::Config(message)) => message.clone(),
        Some(core) => format!("{} ({})", core, core.code()),
        None => format!("{e:#}").replace('\n', " "),
    }
}
