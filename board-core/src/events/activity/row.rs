//! One event row of an activity page, as read from `events`.

use serde_json::Value;
use sqlx::Row as _;

use crate::error::Result;

/// One event row of a page.
#[derive(Debug)]
pub(super) struct Row {
    pub(super) seq: i64,
    pub(super) kind: String,
    pub(super) at: String,
    pub(super) data: Value,
    pub(super) card: Option<String>,
    pub(super) other: Option<String>,
}

impl Row {
    /// The row that a statement selecting [`COLUMNS`] read.
    pub(super) fn from_any(row: &sqlx::any::AnyRow) -> Result<Row> {
        let text: String = row.try_get("data")?;
        Ok(Row {
            seq: row.try_get("seq")?,
            kind: row.try_get("type")?,
            at: row.try_get("at")?,
            data: serde_json::from_str(&text).unwrap_or(Value::Null),
            card: row.try_get("card_id")?,
            other: row.try_get("other_card_id")?,
        })
    }

    /// The subject's `key`, as text.
    pub(super) fn subject(&self, key: &str) -> Option<&str> {
        self.data["subject"][key].as_str()
    }
}

/// The columns of `events` that [`Row::from_any`] reads.
pub(super) const COLUMNS: &str = "seq, type, at, data, card_id, other_card_id";
