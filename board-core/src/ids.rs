//! Id newtypes. Each parses at the boundary, so a `CardId` inside core is always
//! a well-formed cuid2 (24 characters, `[a-z][a-z0-9]{23}`). With the feature
//! `openapi`, every id type has the one `Cuid` schema, defined here next to the
//! types (so the schemas module depends on the ids, never the other way).

use std::fmt;

use serde::Serialize;

/// True for a well-formed cuid2 id.
pub(crate) fn is_cuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

/// An id type read back from the database as stored (core writes only
/// well-formed ids): what a list of ids is made of (`cards::IdList`).
pub(crate) trait StoredId {
    /// The id of its stored text.
    fn from_db(s: String) -> Self;
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        // Not every id type is public (`ColumnSetId` stays inside core).
        #[allow(dead_code)]
        impl $name {
            /// Parses a well-formed id; `None` otherwise.
            pub fn parse(s: &str) -> Option<Self> {
                is_cuid(s).then(|| Self(s.to_string()))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// A new id, never used before.
            pub(crate) fn new() -> Self {
                Self(cuid2::create_id())
            }

            /// An id as the database holds it (core writes only well-formed ids).
            pub(crate) fn from_db(s: String) -> Self {
                Self(s)
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        #[cfg(feature = "openapi")]
        impl utoipa::PartialSchema for $name {
            fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
                cuid_schema()
            }
        }

        /// Every id type shares the one `Cuid` schema.
        #[cfg(feature = "openapi")]
        impl utoipa::ToSchema for $name {
            fn name() -> std::borrow::Cow<'static, str> {
                "Cuid".into()
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl PartialEq<str> for $name {
            fn eq(&self, other: &str) -> bool {
                self.0 == other
            }
        }

        impl PartialEq<&str> for $name {
            fn eq(&self, other: &&str) -> bool {
                self.0 == *other
            }
        }

        /// Read back from the database as stored (core writes only well-formed ids).
        impl sqlx::Type<sqlx::Any> for $name {
            fn type_info() -> sqlx::any::AnyTypeInfo {
                <String as sqlx::Type<sqlx::Any>>::type_info()
            }

            fn compatible(ty: &sqlx::any::AnyTypeInfo) -> bool {
                <String as sqlx::Type<sqlx::Any>>::compatible(ty)
            }
        }

        /// Bound as itself: its text.
        impl<'q> sqlx::Encode<'q, sqlx::Any> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut <sqlx::Any as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <String as sqlx::Encode<'q, sqlx::Any>>::encode_by_ref(&self.0, buf)
            }
        }

        impl<'r> sqlx::Decode<'r, sqlx::Any> for $name {
            fn decode(
                value: sqlx::any::AnyValueRef<'r>,
            ) -> Result<Self, sqlx::error::BoxDynError> {
                <String as sqlx::Decode<'r, sqlx::Any>>::decode(value).map(Self)
            }
        }

        impl StoredId for $name {
            fn from_db(s: String) -> Self {
                Self(s)
            }
        }

        impl crate::stored::FromStored for $name {
            type Stored = String;

            fn from_stored(stored: String) -> Self {
                Self(stored)
            }
        }
    };
}

/// Makes a type whose `as_str()` is its stored text (an enum's token, a
/// checked name) bind as that text: `.bind(&role)`, never `.bind(role.as_str())`.
macro_rules! bind_as_text {
    ($($name:ty),+ $(,)?) => {$(
        impl sqlx::Type<sqlx::Any> for $name {
            fn type_info() -> sqlx::any::AnyTypeInfo {
                <String as sqlx::Type<sqlx::Any>>::type_info()
            }
        }

        impl<'q> sqlx::Encode<'q, sqlx::Any> for $name {
            fn encode_by_ref(
                &self,
                buf: &mut <sqlx::Any as sqlx::Database>::ArgumentBuffer,
            ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
                <&str as sqlx::Encode<'_, sqlx::Any>>::encode_by_ref(&self.as_str(), buf)
            }
        }
    )+};
}
pub(crate) use bind_as_text;

/// The pattern every id matches (cuid2: 24 characters, `[a-z][a-z0-9]{23}`).
pub const CUID_PATTERN: &str = "^[a-z][a-z0-9]{23}$";

/// The `Cuid` schema every id type shares: a string matching [`CUID_PATTERN`].
#[cfg(feature = "openapi")]
fn cuid_schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .pattern(Some(CUID_PATTERN))
        .description(Some("A cuid2 id"))
        .into()
}

id_type!(/// Id of a workspace (a "tenant" on the wire).
    WorkspaceId);
id_type!(/// Id of a project.
    ProjectId);
id_type!(/// Id of an account.
    AccountId);
id_type!(/// Id of a column.
    ColumnId);
id_type!(/// Id of a card.
    CardId);
id_type!(/// Id of a comment.
    CommentId);
id_type!(/// Id of an attachment.
    AttachmentId);
id_type!(/// Id of a relation (link between two cards).
    RelationId);
id_type!(/// Id of an entry of a card's history.
    HistoryId);
id_type!(/// Id of a column set: a workspace's tenant set, or a project's set.
    ColumnSetId);
id_type!(/// Id of a webhook (api.md §18).
    WebhookId);
id_type!(/// Id of an issued token (part of the token; enough to revoke it).
    TokenId);
id_type!(/// Id of a workspace's label (api.md §24).
    LabelId);
id_type!(/// Id of an item of a card's checklist (api.md §24).
    ChecklistItemId);
id_type!(/// Id of a notification (api.md §26).
    NotificationId);
id_type!(/// Id of an invitation to a workspace (api.md §23).
    InvitationId);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuid_shape() {
        assert!(is_cuid(&cuid2::create_id()));
        assert!(!is_cuid("Abcdefghijklmnopqrstuvwx"));
        assert!(!is_cuid("1bcdefghijklmnopqrstuvwx"));
        assert!(!is_cuid("abc"));
        assert!(CardId::parse("nope").is_none());
    }
}
