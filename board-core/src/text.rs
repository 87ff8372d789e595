//! Checked text: [`Name`] (workspace, project, account and column names, card
//! titles) and [`CommentText`] (comment content). Each rule is written once, in
//! the type's `parse`; the JSON reader, the typed inputs and the OpenAPI schema
//! (feature `openapi`) all come from it.

use std::fmt;
use std::ops::Deref;

use serde::Serialize;

use crate::error::{Error, ValidationErrors};

/// The message for text holding a NUL character, which neither backend
/// stores as text (PostgreSQL refuses it, SQLite's `length()` stops at it).
const NUL_REFUSED: &str = "String must not contain NUL (\\u0000) characters";

/// The pattern of a name or a comment in the OpenAPI schema: at least one
/// character that is not blank (names are trimmed, comments must not be
/// blank), and no NUL.
#[cfg(feature = "openapi")]
pub(crate) const TEXT_PATTERN: &str = r"^[^\x00]*[^\s\x00][^\x00]*$";

/// Text refused by the rule of [`Name`] or [`CommentText`]; its message is the
/// one the contract reports for the field.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct InvalidText(String);

impl InvalidText {
    /// The message.
    pub fn message(&self) -> &str {
        &self.0
    }

    /// The refusal as a 422 on `field`.
    pub fn on(self, field: &str) -> Error {
        ValidationErrors::one(field, self.0)
    }
}

/// A refusal outside any request body: a 422 with the message as a form error.
impl From<InvalidText> for Error {
    fn from(e: InvalidText) -> Error {
        ValidationErrors::whole(e.0)
    }
}

macro_rules! text_type {
    ($name:ident) => {
        impl $name {
            /// The text.
            pub fn as_str(&self) -> &str {
                &self.0
            }

            /// The text, owned.
            pub fn into_string(self) -> String {
                self.0
            }
        }

        impl Deref for $name {
            type Target = str;
            fn deref(&self) -> &str {
                &self.0
            }
        }

        impl AsRef<str> for $name {
            fn as_ref(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = InvalidText;
            fn from_str(s: &str) -> Result<Self, InvalidText> {
                Self::parse(s)
            }
        }

        impl TryFrom<&str> for $name {
            type Error = InvalidText;
            fn try_from(s: &str) -> Result<Self, InvalidText> {
                Self::parse(s)
            }
        }

        impl TryFrom<String> for $name {
            type Error = InvalidText;
            fn try_from(s: String) -> Result<Self, InvalidText> {
                Self::parse(&s)
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

        impl From<$name> for String {
            fn from(t: $name) -> String {
                t.0
            }
        }
    };
}

/// A name: of a workspace, a project, an account or a column, or a card's
/// title. Trimmed, then 1..=[`Name::MAX`] characters, without NUL.
///
/// ```
/// use board_core::Name;
/// assert_eq!(Name::parse("  To do ").unwrap(), "To do");
/// assert!(Name::parse("   ").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Name(String);

text_type!(Name);

impl Name {
    /// The most characters a name may have after trimming.
    pub const MAX: usize = 100;

    /// Trims `raw` and checks its length (1..=100 characters) and that it
    /// holds no NUL character.
    pub fn parse(raw: &str) -> Result<Name, InvalidText> {
        if raw.contains('\0') {
            return Err(InvalidText(NUL_REFUSED.into()));
        }
        let t = raw.trim();
        match t.chars().count() {
            0 => Err(InvalidText(
                "String must contain at least 1 character(s) after trimming".into(),
            )),
            n if n > Name::MAX => Err(InvalidText(format!(
                "String must contain at most {} character(s)",
                Name::MAX
            ))),
            _ => Ok(Name(t.to_string())),
        }
    }
}

/// The content of a comment: Markdown kept byte for byte (never trimmed),
/// 1..=[`CommentText::MAX`] characters, not blank, without NUL.
///
/// ```
/// use board_core::CommentText;
/// assert_eq!(CommentText::parse(" *hi* ").unwrap(), " *hi* ");
/// assert!(CommentText::parse(" \n").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct CommentText(String);

text_type!(CommentText);

impl CommentText {
    /// The most characters a comment may have.
    pub const MAX: usize = 50_000;

    /// Checks comment content: 1..=50,000 characters, not blank, no NUL
    /// character (which no backend stores as text). Never trims.
    pub fn parse(s: &str) -> Result<CommentText, InvalidText> {
        if s.contains('\0') {
            return Err(InvalidText(NUL_REFUSED.into()));
        }
        if s.trim().is_empty() {
            return Err(InvalidText(
                "String must contain at least 1 non-blank character".into(),
            ));
        }
        if s.chars().count() > CommentText::MAX {
            return Err(InvalidText(format!(
                "String must contain at most {} character(s)",
                CommentText::MAX
            )));
        }
        Ok(CommentText(s.to_string()))
    }
}

#[cfg(feature = "openapi")]
fn text_schema(
    max: usize,
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .min_length(Some(1))
        .max_length(Some(max))
        .pattern(Some(TEXT_PATTERN))
        .description(Some(description))
        .into()
}

/// The `Name` schema every name field refers to:
/// `{"type": "string", "minLength": 1, "maxLength": 100, "pattern": …}`.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Name {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        text_schema(
            Name::MAX,
            "A name: trimmed, then 1 to 100 characters; not blank, no NUL",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Name {}

/// The `CommentText` schema of a comment's content:
/// `{"type": "string", "minLength": 1, "maxLength": 50000, "pattern": …}`.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for CommentText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        text_schema(
            CommentText::MAX,
            "Markdown kept byte for byte: 1 to 50,000 characters; not blank, no NUL",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for CommentText {}

crate::ids::bind_as_text!(Name, CommentText);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(Name::parse("  To do ").unwrap(), "To do");
        assert!(Name::parse("   ").is_err());
        assert!(Name::parse(&"é".repeat(100)).is_ok());
        assert!(Name::parse(&"é".repeat(101)).is_err());
        assert!(Name::parse("a\0b").is_err());
    }

    #[test]
    fn comments_are_kept_byte_for_byte() {
        assert_eq!(CommentText::parse("  x \n").unwrap(), "  x \n");
        assert!(CommentText::parse(" \t").is_err());
        assert!(CommentText::parse(&"x".repeat(50_001)).is_err());
    }
}
