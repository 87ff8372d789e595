//! Id newtypes. Each parses at the boundary, so a `CardId` inside core is always
//! a well-formed cuid2 (24 characters, `[a-z][a-z0-9]{23}`).

use std::fmt;

use serde::Serialize;

use crate::error::Error;

/// True for a well-formed cuid2 id.
pub fn is_cuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 24
        && b[0].is_ascii_lowercase()
        && b[1..]
            .iter()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
}

macro_rules! id_type {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        #[serde(transparent)]
        pub struct $name(String);

        impl $name {
            /// Parses a well-formed id; `None` otherwise.
            pub fn parse(s: &str) -> Option<Self> {
                is_cuid(s).then(|| Self(s.to_string()))
            }

            /// Parses an id taken from a URL path: a malformed id is "not found".
            pub fn from_path(s: &str) -> Result<Self, Error> {
                Self::parse(s).ok_or(Error::NotFound($what))
            }

            /// The id as text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            #[allow(dead_code)]
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
                crate::openapi::cuid()
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
    };
}

id_type!(/// Id of a workspace (a "tenant" on the wire).
    WorkspaceId, "workspace");
id_type!(/// Id of a project.
    ProjectId, "project");
id_type!(/// Id of an account.
    AccountId, "account");
id_type!(/// Id of a column.
    ColumnId, "column");
id_type!(/// Id of a card.
    CardId, "card");
id_type!(/// Id of a comment.
    CommentId, "comment");
id_type!(/// Id of an attachment.
    AttachmentId, "attachment");
id_type!(/// Id of a relation (link between two cards).
    RelationId, "relation");

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuid_shape() {
        assert!(is_cuid(&cuid2::create_id()));
        assert!(!is_cuid("Abcdefghijklmnopqrstuvwx"));
        assert!(!is_cuid("1bcdefghijklmnopqrstuvwx"));
        assert!(!is_cuid("abc"));
        assert!(CardId::from_path("nope").is_err());
    }
}
