//! `@name` in a comment or a description (api.md §26): where a text may name
//! an account. Markdown decides what is code: an `@` inside a code span or a
//! code block names nobody. An `@` names someone only at the start of the
//! text or after a character that is not a letter or a digit (`mail@host`
//! names nobody). After it, every stretch that ends at a space, a
//! punctuation character or the end of the text (at most
//! [`MAX_NAME_CHARS`] characters) is a candidate; the statement that makes
//! the notifications keeps, at each `@`, the longest candidate that is the
//! name key of a member of the card's workspace.

use std::collections::BTreeSet;

use pulldown_cmark::{Event, Parser, Tag, TagEnd};

use crate::names::{name_key, MAX_NAME_CHARS};

/// The most `@` of one text that are read; a text naming more people than
/// that is not a message to them.
pub(crate) const MAX_MENTIONS: usize = 50;

/// The candidates of `text`: (the `@`'s byte offset, a name key), each pair
/// once, in text order.
pub(crate) fn candidates(text: &str) -> Vec<(String, String)> {
    let mut out = BTreeSet::new();
    let mut seen = 0;
    let mut in_code = 0usize;
    for (event, range) in Parser::new(text).into_offset_iter() {
        match event {
            Event::Start(Tag::CodeBlock(_)) => in_code += 1,
            Event::End(TagEnd::CodeBlock) => in_code = in_code.saturating_sub(1),
            Event::Text(_) if in_code == 0 => {
                for (i, c) in text[range.clone()].char_indices() {
                    if c != '@' || seen >= MAX_MENTIONS {
                        continue;
                    }
                    let at = range.start + i;
                    let before = text[..at].chars().next_back();
                    if before.is_some_and(char::is_alphanumeric) {
                        continue;
                    }
                    seen += 1;
                    for key in after(&text[at + 1..]) {
                        out.insert((at, key));
                    }
                }
            }
            _ => {}
        }
    }
    out.into_iter()
        .map(|(at, key)| (format!("{at:08}"), key))
        .collect()
}

/// The name keys of the stretches that start `rest` and end at a boundary.
fn after(rest: &str) -> Vec<String> {
    let mut keys = Vec::new();
    let chars: Vec<(usize, char)> = rest.char_indices().take(MAX_NAME_CHARS + 1).collect();
    if chars.first().is_none_or(|(_, c)| c.is_whitespace()) {
        return keys;
    }
    for (n, (_, c)) in chars.iter().enumerate().take(MAX_NAME_CHARS) {
        let end = match chars.get(n + 1) {
            Some((next_at, next)) if is_boundary(*next) => *next_at,
            Some(_) => continue,
            None => rest.len().min(chars[n].0 + c.len_utf8()),
        };
        let key = name_key(&rest[..end]);
        if !key.is_empty() {
            keys.push(key);
        }
    }
    keys
}

/// Whether a name may end before `c`.
fn is_boundary(c: char) -> bool {
    c.is_whitespace() || !c.is_alphanumeric()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(text: &str) -> Vec<String> {
        candidates(text).into_iter().map(|(_, k)| k).collect()
    }

    #[test]
    fn every_stretch_ending_at_a_boundary_is_a_candidate() {
        let k = keys("hi @Bob Smith, look");
        assert!(k.contains(&"bob".to_string()), "{k:?}");
        assert!(k.contains(&"bob smith".to_string()), "{k:?}");
        assert!(k.contains(&"bob smith, look".to_string()), "{k:?}");
        assert!(!k.contains(&"bo".to_string()), "{k:?}");
    }

    #[test]
    fn code_and_addresses_name_nobody() {
        assert!(keys("`@bob` and\n\n```\n@ann\n```\n").is_empty());
        assert!(keys("mail me: ann@bob.org").is_empty());
        assert!(keys("@ bob").is_empty());
        assert_eq!(keys("(@ann)"), vec!["ann", "ann)"]);
    }

    #[test]
    fn a_text_reads_at_most_its_first_mentions() {
        let text = "@a ".repeat(MAX_MENTIONS + 10);
        let ats: BTreeSet<String> = candidates(&text).into_iter().map(|(p, _)| p).collect();
        assert_eq!(ats.len(), MAX_MENTIONS);
    }
}
