//! The words search matches (api.md §19): text folded to what both backends
//! index, and the snippet shown around a match.
//!
//! Folding, per character: its canonical decomposition (Unicode NFD), each part
//! lower-cased, combining marks dropped; a letter or digit continues a word,
//! anything else ends it. So "Ação" is `acao`, "São-Paulo" is `sao` `paulo`,
//! "ÉTÉ" is `ete`. A word is cut to [`MAX_WORD`] characters. Written once, here,
//! and used for the index, the query and the snippet alike, so the three agree
//! on both backends.

use std::ops::Range;

use unicode_normalization::char::{decompose_canonical, is_combining_mark};

/// The longest word kept, in characters (longer ones are cut to it, in the
/// index and in a query alike).
pub(crate) const MAX_WORD: usize = 64;

/// Each word of `text`, folded, with the byte range of the text it came from.
pub(crate) fn words(text: &str) -> Vec<(String, Range<usize>)> {
    let mut out = Vec::new();
    let mut word = String::new();
    let mut len = 0;
    let mut start = 0;
    for (i, c) in text.char_indices() {
        let mut letter = false;
        let mut mark = true;
        decompose_canonical(c, |d| {
            for l in d.to_lowercase() {
                if is_combining_mark(l) {
                    continue;
                }
                mark = false;
                if l.is_alphanumeric() {
                    if word.is_empty() {
                        start = i;
                    }
                    if len < MAX_WORD {
                        word.push(l);
                        len += 1;
                    }
                    letter = true;
                }
            }
        });
        // A lone combining mark neither continues nor ends a word.
        if !letter && !mark && !word.is_empty() {
            out.push((std::mem::take(&mut word), start..i));
            len = 0;
        }
    }
    if !word.is_empty() {
        out.push((word, start..text.len()));
    }
    out
}

/// The distinct folded words of `text` (what the index holds for it).
pub(crate) fn distinct(text: &str) -> Vec<String> {
    let mut all: Vec<String> = words(text).into_iter().map(|(w, _)| w).collect();
    all.sort();
    all.dedup();
    all
}

/// The words a query looks for: every word of `q`, folded; the last one is a
/// prefix.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Terms {
    /// Whole words, distinct.
    pub(crate) exact: Vec<String>,
    /// The last word of the query, matched as a prefix.
    pub(crate) prefix: String,
}

impl Terms {
    /// The terms of `q`; `None` when it has no word.
    pub(crate) fn of(q: &str) -> Option<Terms> {
        let mut all: Vec<String> = words(q).into_iter().map(|(w, _)| w).collect();
        let prefix = all.pop()?;
        all.sort();
        all.dedup();
        Some(Terms { exact: all, prefix })
    }

    /// True when `word` (folded) is one of the terms: an exact word, or
    /// starting with the prefix.
    fn hits(&self, word: &str) -> bool {
        word.starts_with(&self.prefix) || self.exact.iter().any(|e| e == word)
    }

    /// True when `text` holds every term (what the index finds).
    pub(crate) fn all_in(&self, text: &str) -> bool {
        let words = distinct(text);
        words.iter().any(|w| w.starts_with(&self.prefix))
            && self.exact.iter().all(|e| words.binary_search(e).is_ok())
    }

    /// Up to about [`SNIPPET`] characters of `text` around its first matching
    /// word, on word boundaries, with `…` where text was left out.
    pub(crate) fn snippet(&self, text: &str) -> String {
        let words = words(text);
        let first = words.iter().position(|(w, _)| self.hits(w)).unwrap_or(0);
        let Some((_, hit)) = words.get(first) else {
            return cut(text, 0..text.len());
        };
        // Start a few words before the match, then take whole words up to the size.
        let from = words[first.saturating_sub(4)].1.start;
        let mut to = hit.end;
        for (_, r) in &words[first..] {
            if text[from..r.end].chars().count() > SNIPPET {
                break;
            }
            to = r.end;
        }
        cut(text, from..to)
    }
}

/// The size a snippet keeps to, in characters (a longer single word is kept whole).
pub(crate) const SNIPPET: usize = 120;

/// `text[range]` with `…` on each side where text was left out, on one line.
fn cut(text: &str, range: Range<usize>) -> String {
    let mut s = String::new();
    if range.start > 0 {
        s.push('…');
    }
    let inner: String = text[range.clone()]
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    s.push_str(&inner);
    if range.end < text.len() {
        s.push('…');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folded(t: &str) -> Vec<String> {
        words(t).into_iter().map(|(w, _)| w).collect()
    }

    #[test]
    fn folding() {
        assert_eq!(folded("Ação de revisão"), ["acao", "de", "revisao"]);
        assert_eq!(folded("São-Paulo, ÉTÉ!"), ["sao", "paulo", "ete"]);
        // Decomposed input folds the same as composed.
        assert_eq!(folded("Ac\u{327}a\u{303}o"), ["acao"]);
        assert_eq!(folded("Straße 42 x_y"), ["straße", "42", "x", "y"]);
        assert_eq!(folded("日本語 テスト"), ["日本語", "テスト"]);
        assert_eq!(folded(""), Vec::<String>::new());
        let long = "a".repeat(100);
        assert_eq!(folded(&long)[0].len(), MAX_WORD);
        let text = "Uma Ação";
        let (w, r) = &words(text)[1];
        assert_eq!((w.as_str(), &text[r.clone()]), ("acao", "Ação"));
    }

    #[test]
    fn terms_and_matching() {
        let t = Terms::of("acao REV").unwrap();
        assert_eq!(t.exact, ["acao"]);
        assert_eq!(t.prefix, "rev");
        assert!(t.all_in("Ação de revisão"));
        assert!(!t.all_in("Coração de revisão"), "whole words but the last");
        assert!(!Terms::of("acao").unwrap().all_in("Coração"));
        assert!(Terms::of("cora").unwrap().all_in("Coração"));
        assert_eq!(Terms::of(" ,; "), None);
    }

    #[test]
    fn snippets() {
        let t = Terms::of("acao").unwrap();
        assert_eq!(t.snippet("Ação de revisão"), "Ação de revisão");
        let long = format!("{} a ação {}", "palavra ".repeat(40), "fim ".repeat(40));
        let s = t.snippet(&long);
        assert!(s.starts_with('…') && s.ends_with('…'), "{s}");
        assert!(s.contains("ação"), "{s}");
        assert!(s.chars().count() <= SNIPPET + 2, "{s}");
        assert_eq!(t.snippet("line\none ação"), "line one ação");
    }
}
