//! The parts of a card that are not columns of its row (api.md §24): its
//! label and assignee ids ([`IdList`]) and its checklist's progress
//! ([`Progress`]). Every read of a card reads them in its own statement
//! (`fields.rs`), each from one sub-select, as text: ids joined by commas
//! (a cuid2 holds none), a progress as `done/total` from the counts kept
//! (`counts.rs`).

use serde::Serialize;

use crate::ids::StoredId;
use crate::stored::FromStored;

/// Ids in a stated order (a card's labels, its assignees), read from their
/// comma-joined text. Serialized as a JSON array.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Serialize)]
#[serde(transparent)]
pub struct IdList<T>(Vec<T>);

impl<T> IdList<T> {
    /// The ids, in order.
    pub fn as_slice(&self) -> &[T] {
        &self.0
    }

    /// True when there is none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// The ids, in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.0.iter()
    }
}

/// The ids of `text`, joined by commas (empty: none).
fn ids_of_text<T: StoredId>(text: &str) -> IdList<T> {
    IdList(
        text.split(',')
            .filter(|s| !s.is_empty())
            .map(|s| T::from_db(s.to_string()))
            .collect(),
    )
}

impl<T> std::ops::Deref for IdList<T> {
    type Target = [T];

    fn deref(&self) -> &[T] {
        &self.0
    }
}

impl<T: StoredId> FromStored for IdList<T> {
    type Stored = Option<String>;

    fn from_stored(stored: Option<String>) -> Self {
        ids_of_text(stored.as_deref().unwrap_or(""))
    }
}

impl<T> sqlx::Type<sqlx::Any> for IdList<T> {
    fn type_info() -> sqlx::any::AnyTypeInfo {
        <String as sqlx::Type<sqlx::Any>>::type_info()
    }

    fn compatible(ty: &sqlx::any::AnyTypeInfo) -> bool {
        <String as sqlx::Type<sqlx::Any>>::compatible(ty)
    }
}

impl<'r, T: StoredId> sqlx::Decode<'r, sqlx::Any> for IdList<T> {
    fn decode(value: sqlx::any::AnyValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        let text = <Option<String> as sqlx::Decode<'r, sqlx::Any>>::decode(value)?;
        Ok(ids_of_text(text.as_deref().unwrap_or("")))
    }
}

/// How far a card's checklist is: items done of the items there are.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
pub struct Progress {
    /// Items checked.
    pub done: i64,
    /// Items in all.
    pub total: i64,
}

impl Progress {
    /// The progress of its text, `done/total` (anything else reads as none).
    fn of_text(text: &str) -> Progress {
        let (done, total) = text.split_once('/').unwrap_or(("0", "0"));
        Progress {
            done: done.trim().parse().unwrap_or(0),
            total: total.trim().parse().unwrap_or(0),
        }
    }
}

impl FromStored for Progress {
    type Stored = Option<String>;

    fn from_stored(stored: Option<String>) -> Progress {
        Progress::of_text(stored.as_deref().unwrap_or(""))
    }
}

impl sqlx::Type<sqlx::Any> for Progress {
    fn type_info() -> sqlx::any::AnyTypeInfo {
        <String as sqlx::Type<sqlx::Any>>::type_info()
    }

    fn compatible(ty: &sqlx::any::AnyTypeInfo) -> bool {
        <String as sqlx::Type<sqlx::Any>>::compatible(ty)
    }
}

impl<'r> sqlx::Decode<'r, sqlx::Any> for Progress {
    fn decode(value: sqlx::any::AnyValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        let text = <Option<String> as sqlx::Decode<'r, sqlx::Any>>::decode(value)?;
        Ok(Progress::of_text(text.as_deref().unwrap_or("")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::LabelId;

    #[test]
    fn parts_read_from_their_text() {
        let ids: IdList<LabelId> = ids_of_text("a1,b2");
        assert_eq!(
            ids.iter().map(|i| i.as_str()).collect::<Vec<_>>(),
            ["a1", "b2"]
        );
        assert!(ids_of_text::<LabelId>("").is_empty());
        assert_eq!(Progress::of_text("2/5"), Progress { done: 2, total: 5 });
        assert_eq!(Progress::of_text(""), Progress::default());
    }
}
