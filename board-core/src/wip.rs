//! WIP limits (api.md §20): a column's `wipLimit`, a workspace's `wipLimits`
//! mode, and the check every write that adds cards to a column makes.
//!
//! The check runs under the lock that guards the column's cards: its set's
//! (`Lock::ColumnSet(s)`), which every write that puts a card in a column holds
//! (card create, placed move, column deletion with `MOVE`, restore), or, for a
//! move to a column's end, the column's own row (`Lock::ColumnIn`; on
//! PostgreSQL a target with a hard limit takes it at once rather than with the
//! commit). So the count it reads cannot change before the write commits, on
//! any number of server processes. It adds no statement: the column's limit
//! (when its workspace's limits are `HARD`) and its card count are two more
//! expressions of the statement that already reads the column ([`room_sql`]).
//! [`Room::admit`] refuses with `WIP_LIMIT` before anything is written.
//!
//! Archived cards (api.md §19) do not count: `room_sql`, a column deletion's
//! count and `Board::card_counts` read `archived_at IS NULL`. A restore adds
//! one card and is checked like a move; moving an archived card adds nothing.
//! The choices the contract leaves open are in `docs/decisions.md`.

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::error::{Error, Result, Rule};

/// A column's WIP limit: how many cards it may hold, 1..=10000.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct WipLimit(u16);

impl WipLimit {
    /// The smallest limit.
    pub const MIN: u16 = 1;
    /// The largest limit.
    pub const MAX: u16 = 10_000;

    /// The limit `n`, when it lies in `MIN..=MAX`.
    ///
    /// ```
    /// use board_core::WipLimit;
    /// assert_eq!(WipLimit::new(3).map(WipLimit::get), Some(3));
    /// assert_eq!(WipLimit::new(0), None);
    /// assert_eq!(WipLimit::new(10_001), None);
    /// ```
    pub fn new(n: i64) -> Option<WipLimit> {
        u16::try_from(n)
            .ok()
            .filter(|n| (Self::MIN..=Self::MAX).contains(n))
            .map(WipLimit)
    }

    /// The number of cards.
    pub fn get(self) -> u16 {
        self.0
    }

    /// What a client may send, for error messages.
    pub(crate) const ACCEPTED: &'static str = "an integer from 1 to 10000, or null (no limit)";

    /// Reads `wipLimit` from JSON: an integer in range, or `null` (`None`).
    pub(crate) fn from_json(v: &Value) -> Result<Option<WipLimit>, String> {
        if v.is_null() {
            return Ok(None);
        }
        v.as_i64()
            .and_then(WipLimit::new)
            .map(Some)
            .ok_or_else(|| format!("Expected {}, received {v}", Self::ACCEPTED))
    }
}

impl std::fmt::Display for WipLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The `WipLimit` schema: `{"type": "integer", "minimum": 1, "maximum": 10000}`.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for WipLimit {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::Integer))
            .minimum(Some(WipLimit::MIN))
            .maximum(Some(WipLimit::MAX))
            .description(Some("A column's WIP limit: the most cards it may hold"))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for WipLimit {}

/// What a workspace's WIP limits do (`wipLimits` in its settings).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "UPPERCASE")]
pub enum WipLimits {
    /// Nothing is refused; the board marks a column over its limit (`overLimit`).
    #[default]
    Soft,
    /// A write that would put more cards in a column than its limit is refused
    /// with `WIP_LIMIT`.
    Hard,
}

impl WipLimits {
    /// Every wire value.
    pub const ALL: &'static [&'static str] = &["SOFT", "HARD"];

    /// The stored and wire form.
    pub fn as_str(self) -> &'static str {
        match self {
            WipLimits::Soft => "SOFT",
            WipLimits::Hard => "HARD",
        }
    }

    /// Parses `SOFT` / `HARD` in any letter case.
    pub fn parse(s: &str) -> Option<WipLimits> {
        match s.to_ascii_uppercase().as_str() {
            "SOFT" => Some(WipLimits::Soft),
            "HARD" => Some(WipLimits::Hard),
            _ => None,
        }
    }
}

crate::ids::bind_as_text!(WipLimits);

/// Two select expressions about the column whose id is the SQL expression
/// `column`: `hard_limit`, its limit when its workspace's limits are `HARD`
/// (else NULL), and `held`, the cards in it (counted only when `hard_limit` is
/// set), archived cards left out (api.md §20). Read them with [`Room::from_row`].
pub(crate) fn room_sql(column: &str) -> String {
    let limit = format!(
        "(SELECT wl.wip_limit FROM columns wl JOIN column_sets ws ON ws.id = wl.set_id \
         JOIN settings wm ON wm.workspace_id = ws.workspace_id \
         WHERE wl.id = {column} AND wm.wip_limits = 'HARD')"
    );
    format!(
        "{limit} AS hard_limit, CASE WHEN {limit} IS NULL THEN NULL \
         ELSE (SELECT COUNT(*) FROM cards wc WHERE wc.column_id = {column} \
               AND wc.archived_at IS NULL) END AS held"
    )
}

/// A column's hard limit and the cards it holds, as [`room_sql`] read them.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Room {
    hard_limit: Option<i64>,
    held: i64,
}

impl Room {
    /// Reads `hard_limit` and `held` from a row.
    pub(crate) fn from_row(row: &AnyRow) -> Result<Room> {
        Ok(Room {
            hard_limit: row.try_get("hard_limit")?,
            held: row.try_get::<Option<i64>, _>("held")?.unwrap_or(0),
        })
    }

    /// Whether the column has a hard limit.
    pub(crate) fn limited(&self) -> bool {
        self.hard_limit.is_some()
    }

    /// `WIP_LIMIT` when `adding` more cards would put more than the hard limit
    /// in the column named `name`. Adding nothing is always admitted, so a
    /// limit lowered below the count refuses only what adds to the column.
    pub(crate) fn admit(self, name: &str, adding: i64) -> Result<()> {
        match self.hard_limit {
            Some(limit) if adding > 0 && self.held + adding > limit => Err(Error::rule(
                Rule::WipLimit,
                format!(
                    "the column '{name}' has a WIP limit of {limit} cards and holds {}: \
                     {adding} more would exceed it",
                    self.held
                ),
            )),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_one_to_ten_thousand() {
        assert!(WipLimit::new(1).is_some());
        assert!(WipLimit::new(10_000).is_some());
        for n in [-1, 0, 10_001, i64::MAX] {
            assert_eq!(WipLimit::new(n), None, "{n}");
        }
        assert_eq!(WipLimit::from_json(&Value::Null), Ok(None));
        let two = WipLimit::from_json(&serde_json::json!(2)).unwrap();
        assert_eq!(two.map(WipLimit::get), Some(2));
        for bad in [
            serde_json::json!(0),
            serde_json::json!(1.5),
            serde_json::json!("3"),
        ] {
            let e = WipLimit::from_json(&bad).unwrap_err();
            assert!(e.contains("from 1 to 10000"), "{e}");
        }
    }

    #[test]
    fn a_hard_limit_refuses_only_what_adds_past_it() {
        let room = |hard_limit, held| Room { hard_limit, held };
        assert!(room(None, 50).admit("Doing", 1).is_ok());
        assert!(room(Some(3), 2).admit("Doing", 1).is_ok());
        let e = room(Some(3), 3).admit("Doing", 1).unwrap_err();
        assert_eq!(e.code(), "WIP_LIMIT");
        assert!(
            e.to_string().contains("'Doing'") && e.to_string().contains(" 3 "),
            "{e}"
        );
        assert!(room(Some(3), 5).admit("Doing", 0).is_ok());
        assert!(room(Some(3), 1).admit("Doing", 3).is_err());
    }
}
