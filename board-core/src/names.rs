//! Account names: the key that makes them unique, and the characters they may
//! not hold (docs/decisions.md, "Account names").
//!
//! A name is stored and shown as typed; its key is what two names are
//! compared by: Unicode's compatibility caseless form (NFKC after full case
//! folding), so `admin`, `Admin`, `ADMIN` and the full-width `ａｄｍｉｎ` share
//! one key, and the schema's unique index on the key refuses the second of
//! them. A name that holds a character which shows nothing or turns the text's
//! direction (zero-width characters, bidirectional controls, a variation
//! selector with nothing to vary) is refused outright: `admin\u{200B}` would
//! otherwise look like `admin` with a key of its own.

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;

use crate::text::is_invisible;

/// The longest an account name can be, in characters; a sign-in with a
/// longer name is refused like an unknown one.
pub const MAX_NAME_CHARS: usize = 100;

/// The key of an account name: compatibility caseless matching's form,
/// `NFKC(fold(NFKD(fold(NFD(name)))))`.
pub fn name_key(name: &str) -> String {
    let once: String = name.trim().nfd().default_case_fold().nfkd().collect();
    once.chars().default_case_fold().nfkc().collect()
}

/// Whether `c` selects a variant of the character before it.
fn is_variation_selector(c: char) -> bool {
    ('\u{FE00}'..='\u{FE0F}').contains(&c) || ('\u{E0100}'..='\u{E01EF}').contains(&c)
}

/// Why an account name is refused, when it is: a character that shows
/// nothing (the format characters and blank fillers of `text.rs`, among
/// them the zero-width characters and joiners, the bidirectional marks,
/// embeddings, overrides and isolates, and the tag characters) anywhere, or
/// a variation selector that follows no visible character (at the start,
/// after a space or after another selector).
pub fn hidden_character(name: &str) -> Option<String> {
    let mut before: Option<char> = None;
    for c in name.chars() {
        if is_invisible(c) && !is_variation_selector(c) {
            return Some(format!(
                "An account name must not hold invisible or direction-changing characters \
                 (U+{:04X})",
                u32::from(c)
            ));
        }
        let lone = before.is_none_or(|b| b.is_whitespace() || is_variation_selector(b));
        if is_variation_selector(c) && lone {
            return Some(format!(
                "An account name must not hold a variation selector on its own (U+{:04X})",
                u32::from(c)
            ));
        }
        before = Some(c);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alikes_share_a_key() {
        let key = name_key("admin");
        for name in ["Admin", "ADMIN", "ａｄｍｉｎ", "ＡＤＭＩＮ", " admin "] {
            assert_eq!(name_key(name), key, "{name}");
        }
        assert_eq!(name_key("Straße"), name_key("STRASSE"));
        assert_eq!(name_key("ﬁle"), name_key("FILE"));
        assert_ne!(name_key("admin2"), key);
    }

    #[test]
    fn hidden_and_lone_selectors_are_refused() {
        for name in [
            "admin\u{200B}",
            "ad\u{202E}min",
            "\u{2066}admin",
            "\u{FE0F}admin",
            "a \u{FE0F}",
        ] {
            assert!(hidden_character(name).is_some(), "{name:?}");
        }
        for name in ["admin", "José", "❤\u{FE0F} team", "山田"] {
            assert_eq!(hidden_character(name), None, "{name:?}");
        }
    }
}
