//! Output: one JSON value with `--json`, otherwise tables (comfy-table) or lines.

use comfy_table::{presets::UTF8_FULL_CONDENSED, Table};
use serde::Serialize;

/// Where a command's result goes.
pub struct Out {
    /// `--json` was given.
    pub json: bool,
}

impl Out {
    /// Prints `value` as JSON, or the line `text` builds.
    pub fn value<T: Serialize>(&self, value: &T, text: impl FnOnce() -> String) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).expect("serialisable")
            );
        } else {
            println!("{}", text());
        }
    }

    /// Prints `value` as JSON, or a table of `header` and `rows`.
    pub fn table<T: Serialize>(&self, value: &T, header: &[&str], rows: Vec<Vec<String>>) {
        if self.json {
            println!(
                "{}",
                serde_json::to_string_pretty(value).expect("serialisable")
            );
            return;
        }
        let mut table = Table::new();
        table
            .load_preset(UTF8_FULL_CONDENSED)
            .set_header(header.to_vec());
        for row in rows {
            table.add_row(row);
        }
        println!("{table}");
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
        Some(core) => format!("{} ({})", core, core.code()),
        None => format!("{e:#}").replace('\n', " "),
    }
}
