//! A column, its accent token, and how one is read from a row.

use serde::Serialize;
use serde_json::Value;
use sqlx::any::AnyRow;
use sqlx::Row;

use crate::error::Result;
use crate::ids::{ColumnId, ProjectId};
use crate::store::flag;
use crate::validate;
use crate::wip::WipLimit;

macro_rules! accents {
    ($($variant:ident => $text:literal),* $(,)?) => {
        /// A column's accent colour token. There are no free (hex) colours.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
        #[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
        #[serde(rename_all = "lowercase")]
        pub enum Accent {
            $(#[doc = $text] $variant,)*
        }

        impl Accent {
            /// Every token, in the contract's order.
            pub const ALL: &'static [&'static str] = &[$($text),*];

            /// The token's text.
            pub fn as_str(self) -> &'static str {
                match self { $(Accent::$variant => $text,)* }
            }

            /// Parses a token (exact, lowercase).
            pub fn parse(s: &str) -> Option<Accent> {
                match s { $($text => Some(Accent::$variant),)* _ => None }
            }
        }
    };
}

accents! {
    Slate => "slate", Gray => "gray", Red => "red", Orange => "orange", Amber => "amber",
    Yellow => "yellow", Lime => "lime", Green => "green", Emerald => "emerald", Teal => "teal",
    Cyan => "cyan", Sky => "sky", Blue => "blue", Indigo => "indigo", Violet => "violet",
    Purple => "purple", Fuchsia => "fuchsia", Pink => "pink", Rose => "rose",
}

/// Reads an accent token from JSON (`color` on the wire).
pub(crate) fn accent(v: &Value) -> Result<Accent, String> {
    validate::one_of(v, Accent::ALL).map(|s| Accent::parse(s).expect("listed"))
}

/// A column.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "camelCase")]
pub struct Column {
    /// Its id.
    pub id: ColumnId,
    /// The project of its set; `None` for the tenant set.
    pub project_id: Option<ProjectId>,
    /// Its name.
    pub name: String,
    /// Its accent token.
    pub accent: Accent,
    /// Its place in the set (unique in the set).
    pub position: i64,
    /// Whether it is the set's done column.
    pub done: bool,
    /// The most cards it may hold (api.md §20); `None`: no limit.
    pub wip_limit: Option<WipLimit>,
}

/// The start of a statement that selects columns, with their set's project,
/// as [`column_from_row`] reads them.
pub(crate) const COLUMN_SELECT: &str =
    "SELECT c.id, s.project_id, c.name, c.accent, c.position, c.done, c.wip_limit \
     FROM columns c JOIN column_sets s ON s.id = c.set_id";

/// The column of a row that [`COLUMN_SELECT`] selects.
pub(crate) fn column_from_row(row: &AnyRow) -> Result<Column> {
    let accent: String = row.try_get("accent")?;
    Ok(Column {
        id: ColumnId::from_db(row.try_get("id")?),
        project_id: row
            .try_get::<Option<String>, _>("project_id")?
            .map(ProjectId::from_db),
        name: row.try_get("name")?,
        accent: Accent::parse(&accent).unwrap_or(Accent::Slate),
        position: row.try_get("position")?,
        done: flag(row.try_get("done")?),
        wip_limit: row
            .try_get::<Option<i64>, _>("wip_limit")?
            .and_then(WipLimit::new),
    })
}

crate::ids::bind_as_text!(Accent);
