//! A card's fields, declared once (`card_fields!`, below): each line gives a
//! field of [`Card`] (the payload), which is also its column of `cards`, and
//! whether the board's read carries it. From that one list come the struct,
//! the column lists every card read selects ([`CARD_COLUMNS`], [`RETURNED`],
//! [`BOARD_COLUMNS`]) and the decoding of a board row ([`BoardRow`]).
//!
//! What else a new field needs, honestly:
//!
//! - its migration, in `migrations/sqlite` and `migrations/postgres` alike
//!   (`tests/e2e/schema.rs` compares them);
//! - a new [`PAYLOAD_REVISION`](crate::etag::PAYLOAD_REVISION), written with
//!   the new list of keys in `CARD_KEYS` below (the test
//!   `the_card_keys_belong_to_the_payload_revision` fails until both are);
//! - the export's format when the column is new (`transfer/`, `docs/export.md`:
//!   older exports are read by `transfer/previous.rs`);
//! - when clients write it as it is: a line in `card_inputs!`
//!   (`cards/inputs.rs`), which gives the `INSERT` of `create_card`, the
//!   `UPDATE` of a patch and both body schemas in the OpenAPI document; its
//!   field in [`NewCard`](super::NewCard) and [`CardPatch`](super::CardPatch)
//!   (the compiler asks for it there) and its check in their `FromJson`
//!   parsers (`cards/mod.rs`; `card_bodies_name_the_keys_the_validator_reads`
//!   holds the schemas and the parsers to the same keys); the schema of its
//!   type (`utoipa::ToSchema`); and the CLI (`board-cli/src/card.rs`);
//! - where people see it: the UI (`views/cardfields.js`, `tile.js`) and
//!   docs/api.md §24.
//!
//! The board's read leaves out what its reader knows already: the workspace
//! it names, and `archived_at`, null on the board (through sqlx `Any`, every
//! column of every row is converted twice; BENCHMARKS.md).

use std::fmt;
use std::sync::LazyLock;

use serde::Serialize;
use sqlx::any::AnyRow;
use sqlx::Row;

use super::parts::{IdList, Progress};
use crate::ids::{AccountId, CardId, ColumnId, LabelId, ProjectId, WorkspaceId};
use crate::stored::FromStored;
use crate::time::Timestamp;

/// Declares [`Card`] from its fields: each with its docs and attributes, its
/// type, and `board: read` (the board's read selects it) or `board: (VALUE)`
/// (the board's read leaves it out; its row holds `VALUE` until the reader
/// fills it in).
macro_rules! card_fields {
    ($(
        $(#[$attr:meta])*
        $field:ident: $ty:ty, board: $board:tt $(, sql: $sql:expr)?;
    )*) => {
        /// A card.
        #[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "camelCase")]
        pub struct Card {
            $($(#[$attr])* pub $field: $ty,)*
        }

        /// Every field of a card, in [`Card`]'s order: its name, whether the
        /// board's read selects it, and the sub-select that computes it when
        /// it is not a column of `cards` (`{k}` stands for the card's row).
        const FIELDS: &[(&str, bool, Option<&str>)] =
            &[$((stringify!($field), on_board!($board), computed!($($sql)?))),*];

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

/// The sub-select of a computed field, `None` for a column.
macro_rules! computed {
    () => {
        None
    };
    ($sql:expr) => {
        Some($sql)
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
    /// What is to be done: Markdown, 0 to 100,000 characters, stored and
    /// returned byte for byte (api.md §24).
    description: String, board: read;
    /// When it is due; null when it is not.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    due_at: Option<Timestamp>, board: read;
    /// Its labels, in the workspace's label order.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    label_ids: IdList<LabelId>, board: read, sql: LABEL_IDS;
    /// The accounts assigned to it, in the order they were assigned.
    #[cfg_attr(feature = "openapi", schema(value_type = Vec<String>))]
    assignee_ids: IdList<AccountId>, board: read, sql: ASSIGNEE_IDS;
    /// Its checklist's items done, of all.
    checklist: Progress, board: read, sql: CHECKLIST;
    /// Its comments.
    comment_count: i64, board: read, sql: COMMENT_COUNT;
    /// Its own attachments and its comments' images (not the uploads no
    /// comment holds yet).
    attachment_count: i64, board: read, sql: ATTACHMENT_COUNT;
    /// Its place in the column: unique there, ascending from the top; with
    /// gaps, and changed when the server renumbers (order by it, never compute one).
    position: i64, board: read;
    /// When it was created.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    created_at: Timestamp, board: read;
    /// When it last changed.
    #[cfg_attr(feature = "openapi", schema(value_type = String))]
    updated_at: Timestamp, board: read;
    /// The account that created it (api.md §17); null when the CLI created
    /// it, and for cards created before this field existed.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    created_by: Option<AccountId>, board: read;
    /// When it was archived (api.md §19); null while it is on the board.
    #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
    archived_at: Option<Timestamp>, board: (None);
}

/// A card's labels: ids in the labels' order, joined by commas.
const LABEL_IDS: &str = "SELECT COALESCE(string_agg(l.id, ',' ORDER BY l.position, l.id), '') \
     FROM card_labels cl JOIN labels l ON l.id = cl.label_id WHERE cl.card_id = {k}.id";

/// A card's assignees: ids in the order they were assigned, joined by commas.
const ASSIGNEE_IDS: &str = "SELECT COALESCE(string_agg(a.account_id, ',' \
     ORDER BY a.assigned_at, a.account_id), '') FROM card_assignees a WHERE a.card_id = {k}.id";

/// A card's checklist: `done/total`, from the counts kept (`card_counts`,
/// migration 0020: the sum of a card's lanes, one row but under races; never a scan of
/// its items).
const CHECKLIST: &str = "SELECT CAST(COALESCE(SUM(n.items_done), 0) AS TEXT) || '/' || \
     CAST(COALESCE(SUM(n.items), 0) AS TEXT) FROM card_counts n WHERE n.card_id = {k}.id";

/// A card's comments, from the counts kept (also the number in the comments'
/// tag, `CardList::Comments`).
pub(super) const COMMENT_COUNT: &str = "SELECT CAST(COALESCE(SUM(n.comments), 0) AS BIGINT) \
     FROM card_counts n WHERE n.card_id = {k}.id";

/// A card's attachments and its comments' images, from the counts kept.
const ATTACHMENT_COUNT: &str = "SELECT CAST(COALESCE(SUM(n.attachments), 0) AS BIGINT) \
     FROM card_counts n WHERE n.card_id = {k}.id";

/// A list of a card's columns, written out where a statement names it
/// (`format!("SELECT {CARD_COLUMNS} …")`): made once, on first use.
#[derive(Debug)]
pub(crate) struct Columns(LazyLock<String>);

impl Columns {
    /// The list as one text.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Columns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The list of a card's fields: each column, `prefix`ed (`"k."`: a join's
/// alias), and each computed field as its sub-select, named after the field
/// but on the board (whose list, read by position inside `json_array`, names
/// nothing); only the fields the board reads when `board`.
fn list(prefix: &str, board: bool) -> String {
    let row = prefix.strip_suffix('.').unwrap_or("cards");
    let fields = FIELDS.iter().filter(|(_, on, _)| *on || !board);
    let items: Vec<String> = fields
        .map(|(name, _, sql)| match sql {
            None => format!("{prefix}{name}"),
            Some(sql) if board => format!("({})", sql.replace("{k}", row)),
            Some(sql) => format!("({}) AS {name}", sql.replace("{k}", row)),
        })
        .collect();
    items.join(", ")
}

/// A card's columns, read from `cards k` (for joins).
pub(crate) static CARD_COLUMNS: Columns = Columns(LazyLock::new(|| list("k.", false)));

/// A card's columns as the wire type reads them (a `RETURNING` clause, a
/// read of `cards` alone).
pub(crate) static RETURNED: Columns = Columns(LazyLock::new(|| list("", false)));

/// The columns of a card on the board: its fields marked `board: read`.
pub(crate) static BOARD_COLUMNS: Columns = Columns(LazyLock::new(|| list("", true)));

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
    use crate::etag::PAYLOAD_REVISION;

    /// A card's JSON keys, in order, and the [`PAYLOAD_REVISION`] they belong
    /// to: a tag made from versions stands for the bytes of one shape, so a
    /// new shape needs a new revision, written here with its keys.
    const CARD_KEYS: (&str, &[&str]) = (
        "3",
        &[
            "id",
            "tenantId",
            "projectId",
            "columnId",
            "title",
            "description",
            "dueAt",
            "labelIds",
            "assigneeIds",
            "checklist",
            "commentCount",
            "attachmentCount",
            "position",
            "createdAt",
            "updatedAt",
            "createdBy",
            "archivedAt",
        ],
    );

    /// The keys of a JSON object, in the order its text has them.
    struct InOrder(Vec<String>);

    impl<'de> serde::Deserialize<'de> for InOrder {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<InOrder, D::Error> {
            struct Keys;
            impl<'de> serde::de::Visitor<'de> for Keys {
                type Value = InOrder;

                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an object")
                }

                fn visit_map<A: serde::de::MapAccess<'de>>(
                    self,
                    mut map: A,
                ) -> Result<InOrder, A::Error> {
                    let mut keys = Vec::new();
                    while let Some((key, _)) = map.next_entry::<String, serde::de::IgnoredAny>()? {
                        keys.push(key);
                    }
                    Ok(InOrder(keys))
                }
            }
            d.deserialize_map(Keys)
        }
    }

    #[test]
    fn the_card_keys_belong_to_the_payload_revision() {
        let json = r#"[["c1", null, "k1", "T", "", null, "", "", "0/0", 0, 0,
                       1, "2026-01-01T00:00:00.000Z", "2026-01-01T00:00:00.000Z", null]]"#;
        let rows: Vec<BoardRow> = serde_json::from_str(json).unwrap();
        let ws = WorkspaceId::from_db("w1".into());
        let card = rows.into_iter().next().unwrap().in_workspace(&ws);
        let text = serde_json::to_string(&card).unwrap();
        let keys = serde_json::from_str::<InOrder>(&text).unwrap().0;
        let (revision, known) = CARD_KEYS;
        assert!(
            keys == known && PAYLOAD_REVISION == revision,
            "a card's JSON keys are {keys:?} at PAYLOAD_REVISION {PAYLOAD_REVISION}; \
             CARD_KEYS holds {known:?} for revision {revision}: when the keys change, \
             bump PAYLOAD_REVISION (etag.rs) and write the new keys here with it"
        );
    }

    #[test]
    fn the_lists_follow_the_declaration() {
        let card = CARD_COLUMNS.text();
        assert!(
            card.starts_with(
                "k.id, k.workspace_id, k.project_id, k.column_id, k.title, \
                              k.description, k.due_at, (SELECT "
            ),
            "{card}"
        );
        assert!(
            card.contains("WHERE cl.card_id = k.id) AS label_ids, ("),
            "{card}"
        );
        assert!(card.ends_with(
            ") AS attachment_count, k.position, k.created_at, \
                                k.updated_at, k.created_by, k.archived_at"
        ));
        let returned = RETURNED.text();
        assert!(returned.starts_with("id, workspace_id, "));
        assert!(returned.contains("WHERE n.card_id = cards.id) AS comment_count"));
        let board = BOARD_COLUMNS.text();
        assert!(board.starts_with("id, project_id, column_id, title, description, due_at, ("));
        assert!(
            !board.contains(" AS label_ids") && !board.contains("archived_at"),
            "{board}"
        );
        assert!(board.ends_with(", position, created_at, updated_at, created_by"));
    }

    #[test]
    fn a_board_row_reads_its_columns_in_order() {
        let json = r#"[["c1", null, "k1", "T", "*d*", null, "l1,l2", "", "1/3", 10, 2,
                       3, "2026-01-01T00:00:00.000Z", "2026-01-02T00:00:00.000Z", "a1"]]"#;
        let rows: Vec<BoardRow> = serde_json::from_str(json).unwrap();
        let ws = WorkspaceId::from_db("w1".into());
        let card = rows.into_iter().next().unwrap().in_workspace(&ws);
        assert_eq!(card.id.as_ref(), "c1");
        assert_eq!(card.workspace_id, ws);
        assert_eq!(card.project_id, None);
        assert_eq!((card.title, card.position), ("T".to_string(), 3));
        assert_eq!(card.created_by.as_ref().map(AsRef::as_ref), Some("a1"));
        assert_eq!(card.archived_at, None);
        assert_eq!((card.description.as_str(), &card.due_at), ("*d*", &None));
        assert_eq!(card.label_ids.len(), 2);
        assert!(card.assignee_ids.is_empty());
        assert_eq!(card.checklist, Progress { done: 1, total: 3 });
        assert_eq!((card.comment_count, card.attachment_count), (10, 2));
        assert!(serde_json::from_str::<Vec<BoardRow>>(r#"[["c1"]]"#).is_err());
    }
}
