//! A card's fields, declared once ([`card_fields!`]): each line gives a
//! field of [`Card`] (the payload), which is also its column of `cards`, and
//! whether the board's read carries it. From that one list come the struct,
//! the column lists every card read selects ([`CARD_COLUMNS`], [`RETURNED`],
//! [`BOARD_COLUMNS`]) and the decoding of a board row ([`BoardRow`]), so a
//! new field is one line here plus its migration.
//!
//! The board's read leaves out what its reader knows already: the workspace
//! it names, and `archived_at`, null on the board (through sqlx `Any`, every
//! column of every row is converted twice; BENCHMARKS.md).

use std::fmt;

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::ids::{AccountId, CardId, ColumnId, ProjectId, WorkspaceId};
use crate::stored::FromStored;
use crate::time::Timestamp;

/// Declares [`Card`] from its fields: each with its docs and attributes, its
/// type, and `board: read` (the board's read selects it) or `board: (VALUE)`
/// (the board's read leaves it out; its row holds `VALUE` until the reader
/// fills it in).
macro_rules! card_fields {
    ($(
        $(#[$attr:meta])*
        $field:ident: $ty:ty, board: $board:tt;
    )*) => {
        /// A card.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "camelCase")]
        pub struct Card {
            $($(#[$attr])* pub $field: $ty,)*
        }

        /// Every column of a card, in [`Card`]'s order, and whether the
        /// board's read selects it.
        const FIELDS: &[(&str, bool)] = &[$((stringify!($field), on_board!($board))),*];

        impl<'r> sqlx::FromRow<'r, AnyRow> for BoardRow {
            /// By position, in [`BOARD_COLUMNS`]' order (a lookup by name
            /// costs a hash for each field of each of a board's rows).
            fn from_row(row: &'r AnyRow) -> sqlx::Result<BoardRow> {
                let mut at = 0usize;
                let mut next = || {
                    at += 1;
                    at - 1
                };
                Ok(BoardRow(Card {
                    $($field: board_value!($board, row.try_get(next())?),)*
                }))
            }
        }

        impl<'de> serde::Deserialize<'de> for BoardRow {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BoardRow, D::Error> {
                struct Columns;
                impl<'de> serde::de::Visitor<'de> for Columns {
                    type Value = BoardRow;

                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("a board card's columns, in order")
                    }

                    fn visit_seq<A: serde::de::SeqAccess<'de>>(
                        self,
                        mut seq: A,
                    ) -> Result<BoardRow, A::Error> {
                        let missing = |name| serde::de::Error::missing_field(name);
                        Ok(BoardRow(Card {
                            $($field: board_value!($board, <$ty>::from_stored(
                                seq.next_element()?.ok_or_else(|| missing(stringify!($field)))?,
                            )),)*
                        }))
                    }
                }
                d.deserialize_seq(Columns)
            }
        }
    };
}

/// Whether the board's read selects a field (`read`) or not (`(VALUE)`).
macro_rules! on_board {
    (read) => {
        true
    };
    (($value:expr)) => {
        false
    };
}

/// A field of a board row: `read` from the row, or the `(VALUE)` it holds.
macro_rules! board_value {
    (read, $read:expr) => {
        $read
    };
    (($value:expr), $read:expr) => {
        $value
    };
}

card_fields! {
    /// Its id.
    id: CardId, board: read;
    /// Its workspace (`tenantId` on the wire).
    #[serde(rename = "tenantId")]
    workspace_id: WorkspaceId, board: (WorkspaceId::from_db(String::new()));
    /// Its project, if any.
    project_id: Option<ProjectId>, board: read;
    /// The column it sits in.
    column_id: ColumnId, board: read;
    /// Its title.
    title: String, board: read;
    /// Its place in the column: unique there, ascending from the top; with
    /// gaps, and changed when the server renumbers (order by it, never compute one).
    position: i64, board: read;
    /// When it was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    created_at: Timestamp, board: read;
    /// When it last changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    updated_at: Timestamp, board: read;
    /// The account that created it (contract §17); null when the CLI created
    /// it, and for cards created before this field existed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    created_by: Option<AccountId>, board: read;
    /// When it was archived (contract §19); null while it is on the board.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    archived_at: Option<Timestamp>, board: (None);
}

/// A list of a card's columns, written out where a statement names it
/// (`format!("SELECT {CARD_COLUMNS} …")`).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Columns {
    /// Put before each column (`"k."`: a join's alias).
    prefix: &'static str,
    /// Only the columns the board's read selects.
    board: bool,
}

impl Columns {
    /// The list as one text.
    pub(crate) fn text(self) -> String {
        self.to_string()
    }
}

impl fmt::Display for Columns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names = FIELDS.iter().filter(|(_, on)| *on || !self.board);
        for (i, (name, _)) in names.enumerate() {
            let sep = if i == 0 { "" } else { ", " };
            write!(f, "{sep}{}{name}", self.prefix)?;
        }
        Ok(())
    }
}

/// A card's columns, read from `cards k` (for joins).
pub(crate) const CARD_COLUMNS: Columns = Columns {
    prefix: "k.",
    board: false,
};

/// A card's columns as the wire type reads them (a `RETURNING` clause, a
/// read of `cards` alone).
pub(crate) const RETURNED: Columns = Columns {
    prefix: "",
    board: false,
};

/// The columns of a card on the board: its fields marked `board: read`.
pub(crate) const BOARD_COLUMNS: Columns = Columns {
    prefix: "",
    board: true,
};

/// A card as the board's read returns it, by name (PostgreSQL's rows) or in
/// [`BOARD_COLUMNS`]' order (SQLite's JSON rows); its workspace is filled in
/// by [`BoardRow::in_workspace`].
#[derive(Debug)]
pub(crate) struct BoardRow(Card);

impl BoardRow {
    /// The card, in workspace `ws` (the one whose board was read).
    pub(crate) fn in_workspace(self, ws: &WorkspaceId) -> Card {
        Card {
            workspace_id: ws.clone(),
            ..self.0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_lists_follow_the_declaration() {
        assert_eq!(
            CARD_COLUMNS.text(),
            "k.id, k.workspace_id, k.project_id, k.column_id, k.title, k.position, \
             k.created_at, k.updated_at, k.created_by, k.archived_at"
        );
        assert!(RETURNED.text().starts_with("id, workspace_id, "));
        assert_eq!(
            BOARD_COLUMNS.text(),
            "id, project_id, column_id, title, position, created_at, updated_at, created_by"
        );
    }

    #[test]
    fn a_board_row_reads_its_columns_in_order() {
        let json = r#"[["c1", null, "k1", "T", 3, "2026-01-01T00:00:00.000Z",
                       "2026-01-02T00:00:00.000Z", "a1"]]"#;
        let rows: Vec<BoardRow> = serde_json::from_str(json).unwrap();
        let ws = WorkspaceId::from_db("w1".into());
        let card = rows.into_iter().next().unwrap().in_workspace(&ws);
        assert_eq!(card.id.as_ref(), "c1");
        assert_eq!(card.workspace_id, ws);
        assert_eq!(card.project_id, None);
        assert_eq!((card.title, card.position), ("T".to_string(), 3));
        assert_eq!(card.created_by.as_ref().map(AsRef::as_ref), Some("a1"));
        assert_eq!(card.archived_at, None);
        assert!(serde_json::from_str::<Vec<BoardRow>>(r#"[["c1"]]"#).is_err());
    }
}
