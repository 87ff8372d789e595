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
const NUL_REFUSED: &str = "Must not contain the NUL character (\\u0000)";

/// The message for a name holding a control character (api.md §21).
const CONTROL_REFUSED: &str =
    "Must not contain control characters (U+0000 to U+001F, U+007F to U+009F)";

/// The message for a comment holding a control character other than a line
/// break or a tab (api.md §21).
const COMMENT_CONTROL_REFUSED: &str = "Must not contain control characters \
     (U+0000 to U+001F, U+007F to U+009F) other than line feed, carriage return and tab";

/// The message for a name of invisible characters only (api.md §21).
const INVISIBLE_REFUSED: &str =
    "Must contain a visible character, not only spaces or format characters such as U+200B";

/// Characters that show nothing although they are not white space: Unicode's
/// format characters (category Cf) and the blank fillers (Hangul fillers,
/// the braille blank). A name made only of these and white space is refused.
const INVISIBLE: &[(char, char)] = &[
    ('\u{00AD}', '\u{00AD}'),
    ('\u{034F}', '\u{034F}'),
    ('\u{0600}', '\u{0605}'),
    ('\u{061C}', '\u{061C}'),
    ('\u{06DD}', '\u{06DD}'),
    ('\u{070F}', '\u{070F}'),
    ('\u{0890}', '\u{0891}'),
    ('\u{08E2}', '\u{08E2}'),
    ('\u{115F}', '\u{1160}'),
    ('\u{17B4}', '\u{17B5}'),
    ('\u{180B}', '\u{180F}'),
    ('\u{200B}', '\u{200F}'),
    ('\u{202A}', '\u{202E}'),
    ('\u{2060}', '\u{206F}'),
    ('\u{2800}', '\u{2800}'),
    ('\u{3164}', '\u{3164}'),
    ('\u{FE00}', '\u{FE0F}'),
    ('\u{FEFF}', '\u{FEFF}'),
    ('\u{FFA0}', '\u{FFA0}'),
    ('\u{FFF9}', '\u{FFFB}'),
    ('\u{110BD}', '\u{110BD}'),
    ('\u{110CD}', '\u{110CD}'),
    ('\u{13430}', '\u{1343F}'),
    ('\u{1BCA0}', '\u{1BCA3}'),
    ('\u{1D173}', '\u{1D17A}'),
    ('\u{E0001}', '\u{E0001}'),
    ('\u{E0020}', '\u{E007F}'),
    ('\u{E0100}', '\u{E01EF}'),
];

/// Whether `c` shows something: not white space, not a control character,
/// not one of [`INVISIBLE`].
fn is_visible(c: char) -> bool {
    !c.is_whitespace() && !c.is_control() && !is_invisible(c)
}

/// Whether `c` is one of [`INVISIBLE`]: shows nothing, yet is no white space.
pub(crate) fn is_invisible(c: char) -> bool {
    INVISIBLE.iter().any(|&(lo, hi)| (lo..=hi).contains(&c))
}

/// The control characters a comment may hold: line breaks and tabs.
fn allowed_in_comment(c: char) -> bool {
    !c.is_control() || matches!(c, '\n' | '\r' | '\t')
}

/// The byte index of the first `stop` outside double quotes in `text` (an
/// ETag list's comma, the `>` that ends an HTML tag), or `text.len()`.
pub(crate) fn unquoted(text: &str, stop: char) -> usize {
    let mut quoted = false;
    text.char_indices()
        .find(|&(_, c)| {
            quoted ^= c == '"';
            c == stop && !quoted
        })
        .map_or(text.len(), |(i, _)| i)
}

/// The pattern of a name in the OpenAPI schema: no control character, and at
/// least one visible one (the invisible characters of the Basic Multilingual
/// Plane; the validator also knows a few beyond it).
#[cfg(feature = "openapi")]
pub(crate) fn name_pattern() -> String {
    let mut invisible = String::from(r"\s\x00-\x1F\x7F-\x9F");
    for &(lo, hi) in INVISIBLE.iter().filter(|(_, hi)| u32::from(*hi) <= 0xFFFF) {
        invisible.push_str(&format!(r"\u{:04X}-\u{:04X}", u32::from(lo), u32::from(hi)));
    }
    let control = r"\x00-\x1F\x7F-\x9F";
    format!("^[^{control}]*[^{invisible}][^{control}]*$")
}

/// The pattern of a comment in the OpenAPI schema: at least one character that
/// is not blank, and no control character but line feed, carriage return and
/// tab.
#[cfg(feature = "openapi")]
pub(crate) const COMMENT_PATTERN: &str = r"^[^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]*[^\s\x00-\x1F\x7F-\x9F][^\x00-\x08\x0B\x0C\x0E-\x1F\x7F-\x9F]*$";

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
/// title. Trimmed, then 1..=[`Name::MAX`] characters, without control
/// characters (Unicode Cc, NUL included: refused, never trimmed), and not only
/// invisible ones (white space, format characters such as U+200B).
///
/// ```
/// use board_core::Name;
/// assert_eq!(Name::parse("  To do ").unwrap(), "To do");
/// assert!(Name::parse("   ").is_err());
/// assert!(Name::parse("red\u{1b}[31m").is_err());
/// assert!(Name::parse("\u{200b}").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Name(String);

text_type!(Name);

impl Name {
    /// The most characters a name may have after trimming.
    pub const MAX: usize = 100;

    /// Trims `raw` and checks its length (1..=100 characters), that it holds
    /// no control character and at least one visible one.
    pub fn parse(raw: &str) -> Result<Name, InvalidText> {
        trimmed(raw, Name::MAX).map(Name)
    }
}

/// The message for a text of `n` characters where `max` is the most.
fn too_long(max: usize, n: usize) -> String {
    format!("Too long: at most {max} characters, this has {n}")
}

/// `raw` trimmed, when it holds no control character, at least one visible
/// one, and at most `max` characters once trimmed (names, checklist items).
fn trimmed(raw: &str, max: usize) -> Result<String, InvalidText> {
    if raw.contains('\0') {
        return Err(InvalidText(NUL_REFUSED.into()));
    }
    if raw.chars().any(char::is_control) {
        return Err(InvalidText(CONTROL_REFUSED.into()));
    }
    let t = raw.trim();
    match t.chars().count() {
        0 => Err(InvalidText(format!(
            "Must not be empty: give 1 to {max} characters (spaces at either end do not count)"
        ))),
        _ if !t.chars().any(is_visible) => Err(InvalidText(INVISIBLE_REFUSED.into())),
        n if n > max => Err(InvalidText(too_long(max, n))),
        _ => Ok(t.to_string()),
    }
}

/// The content of a comment: Markdown kept byte for byte (never trimmed),
/// 1..=[`CommentText::MAX`] characters, not blank, without control characters
/// but line feed, carriage return and tab.
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
    /// character (which no backend stores as text) nor any other control
    /// character but `\n`, `\r` and `\t`. Never trims.
    pub fn parse(s: &str) -> Result<CommentText, InvalidText> {
        if s.contains('\0') {
            return Err(InvalidText(NUL_REFUSED.into()));
        }
        if !s.chars().all(allowed_in_comment) {
            return Err(InvalidText(COMMENT_CONTROL_REFUSED.into()));
        }
        if s.trim().is_empty() {
            return Err(InvalidText(
                "Must not be blank: write a character other than spaces and line breaks".into(),
            ));
        }
        let n = s.chars().count();
        if n > CommentText::MAX {
            return Err(InvalidText(too_long(CommentText::MAX, n)));
        }
        Ok(CommentText(s.to_string()))
    }
}

/// A card's description (api.md §24): Markdown kept byte for byte (never
/// trimmed), 0..=[`Description::MAX`] characters, with the controls of a
/// comment ([`CommentText`]); empty means none.
///
/// ```
/// use board_core::Description;
/// assert_eq!(Description::parse("").unwrap(), "");
/// assert!(Description::parse("a\u{7}").is_err());
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Description(String);

text_type!(Description);

impl Description {
    /// The most characters a description may have.
    pub const MAX: usize = 100_000;

    /// Checks a description: at most 100,000 characters, no NUL nor any
    /// other control character but `\n`, `\r` and `\t`. Never trims.
    pub fn parse(s: &str) -> Result<Description, InvalidText> {
        if s.contains('\0') {
            return Err(InvalidText(NUL_REFUSED.into()));
        }
        if !s.chars().all(allowed_in_comment) {
            return Err(InvalidText(COMMENT_CONTROL_REFUSED.into()));
        }
        let n = s.chars().count();
        if n > Description::MAX {
            return Err(InvalidText(too_long(Description::MAX, n)));
        }
        Ok(Description(s.to_string()))
    }
}

/// The text of a checklist item (api.md §24): a name, but up to
/// [`ItemText::MAX`] characters. Trimmed, not blank, without control
/// characters.
///
/// ```
/// use board_core::ItemText;
/// assert_eq!(ItemText::parse(" Ship it ").unwrap(), "Ship it");
/// assert!(ItemText::parse(" ").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ItemText(String);

text_type!(ItemText);

impl ItemText {
    /// The most characters an item may have after trimming.
    pub const MAX: usize = 1_000;

    /// Trims `raw` and checks it as [`Name::parse`] does, up to 1,000 characters.
    pub fn parse(raw: &str) -> Result<ItemText, InvalidText> {
        trimmed(raw, ItemText::MAX).map(ItemText)
    }
}

#[cfg(feature = "openapi")]
fn text_schema(
    max: usize,
    pattern: String,
    description: &str,
) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
    use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .min_length(Some(1))
        .max_length(Some(max))
        .pattern(Some(pattern))
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
            name_pattern(),
            "A name: trimmed, then 1 to 100 characters; no control character \
             (U+0000 to U+001F, U+007F to U+009F), at least one visible character",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Name {}

/// The `Description` schema of a card's description:
/// `{"type": "string", "maxLength": 100000}`.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Description {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{ObjectBuilder, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .max_length(Some(Description::MAX))
            .description(Some(
                "Markdown kept byte for byte, never trimmed: 0 to 100,000 characters; no \
                 control character but line feed, carriage return and tab",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Description {}

/// The `CommentText` schema of a comment's content:
/// `{"type": "string", "minLength": 1, "maxLength": 50000, "pattern": …}`.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for CommentText {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        text_schema(
            CommentText::MAX,
            COMMENT_PATTERN.into(),
            "Markdown kept byte for byte: 1 to 50,000 characters; not blank; no control \
             character but line feed, carriage return and tab",
        )
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for CommentText {}

crate::ids::bind_as_text!(Name, CommentText, Description, ItemText);

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
    fn names_refuse_control_and_invisible_characters() {
        for bad in [
            "ctl\u{1}\u{1b}[31mred",
            "a\tb",
            "a\nb",
            "x\u{85}",
            "\u{7f}x",
        ] {
            assert_eq!(
                Name::parse(bad).unwrap_err().message(),
                CONTROL_REFUSED,
                "{bad:?}"
            );
        }
        for bad in [
            "\u{200b}",
            " \u{200b}\u{feff} ",
            "\u{2060}\u{3000}",
            "\u{e0020}",
        ] {
            assert_eq!(
                Name::parse(bad).unwrap_err().message(),
                INVISIBLE_REFUSED,
                "{bad:?}"
            );
        }
        assert_eq!(Name::parse("a\u{200b}b").unwrap(), "a\u{200b}b");
        assert_eq!(Name::parse(" 👍 ").unwrap(), "👍");
    }

    #[test]
    fn comments_keep_line_breaks_and_tabs_only() {
        assert!(CommentText::parse("a\r\n\tb").is_ok());
        for bad in ["a\u{1b}[31m", "a\u{7}", "a\u{0b}", "x\u{9b}"] {
            let e = CommentText::parse(bad).unwrap_err();
            assert_eq!(e.message(), COMMENT_CONTROL_REFUSED, "{bad:?}");
        }
    }

    #[test]
    fn comments_are_kept_byte_for_byte() {
        assert_eq!(CommentText::parse("  x \n").unwrap(), "  x \n");
        assert!(CommentText::parse(" \t").is_err());
        assert!(CommentText::parse(&"x".repeat(50_001)).is_err());
    }
}
