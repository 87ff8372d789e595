//! Which uploads are accepted, judged by content only (the name decides nothing):
//! magic bytes through `infer`, plus the contract's rule for plain text.

/// How many leading bytes are kept for magic-byte detection (enough for `infer`
/// to find the Office Open XML parts of a zip).
pub(crate) const HEAD_LEN: usize = 64 * 1024;

/// Types a comment upload may have.
const IMAGES: &[&str] = &["image/png", "image/jpeg", "image/gif", "image/webp"];

/// Types a card attachment may have besides [`IMAGES`], [`OFFICE`] and `text/plain`.
const DOCUMENTS: &[&str] = &["application/pdf", "application/zip"];

/// The Office Open XML types a card attachment may have, with the extension
/// people know them by.
const OFFICE: &[(&str, &str)] = &[
    (
        "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
        "docx",
    ),
    (
        "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
        "xlsx",
    ),
    (
        "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        "pptx",
    ),
];

/// The plain-text type.
const TEXT: &str = "text/plain";

/// True for a type shown inline (an image); anything else is downloaded.
pub(crate) fn is_image(mime: &str) -> bool {
    IMAGES.contains(&mime)
}

/// Follows a file chunk by chunk to decide whether it is acceptable plain text:
/// valid UTF-8, no NUL byte, first non-blank character not `<` (HTML, SVG,
/// XML), not starting with `#!` (a script).
#[derive(Debug, Default)]
pub(crate) struct TextCheck {
    /// Bytes of a character split across chunks.
    carry: Vec<u8>,
    /// Any character seen yet (after an optional byte-order mark).
    started: bool,
    /// The first non-blank character has been seen.
    decided: bool,
    failed: bool,
}

impl TextCheck {
    /// Feeds the next chunk.
    pub(crate) fn feed(&mut self, chunk: &[u8]) {
        if self.failed {
            return;
        }
        let mut joined;
        let bytes = if self.carry.is_empty() {
            chunk
        } else {
            joined = std::mem::take(&mut self.carry);
            joined.extend_from_slice(chunk);
            &joined[..]
        };
        let valid = match std::str::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) if e.error_len().is_none() => {
                self.carry = bytes[e.valid_up_to()..].to_vec();
                std::str::from_utf8(&bytes[..e.valid_up_to()]).expect("valid prefix")
            }
            Err(_) => {
                self.failed = true;
                return;
            }
        };
        if valid.contains('\0') {
            self.failed = true;
            return;
        }
        self.look(valid);
    }

    fn look(&mut self, s: &str) {
        let mut s = s;
        if !self.started && !s.is_empty() {
            self.started = true;
            s = s.strip_prefix('\u{feff}').unwrap_or(s);
            if s.starts_with("#!") {
                self.failed = true;
                return;
            }
        }
        if !self.decided {
            if let Some(c) = s.chars().find(|c| !c.is_whitespace()) {
                self.decided = true;
                self.failed = c == '<';
            }
        }
    }

    /// True when the whole file was acceptable text.
    pub(crate) fn finish(&self) -> bool {
        !self.failed && self.carry.is_empty()
    }
}

/// Every type a card attachment may have that `infer` recognizes.
fn card_types() -> impl Iterator<Item = &'static str> {
    IMAGES
        .iter()
        .chain(DOCUMENTS)
        .copied()
        .chain(OFFICE.iter().map(|(mime, _)| *mime))
}

/// The accepted type of a file with leading bytes `head`, or `None` (415).
/// `images_only` is the comment-upload rule; `text_ok` is [`TextCheck::finish`].
pub(crate) fn accepted_type(head: &[u8], images_only: bool, text_ok: bool) -> Option<&'static str> {
    let found = infer::get(head).map(|t| t.mime_type());
    match found {
        Some(m) if images_only => IMAGES.iter().copied().find(|a| *a == m),
        Some(m) => card_types().find(|a| *a == m),
        None if !images_only && text_ok => Some(TEXT),
        None => None,
    }
}

/// The sentence naming what an upload accepts, for the 415 message:
/// `images_only` is the comment-upload rule.
pub(crate) fn accepted_formats(images_only: bool) -> String {
    if images_only {
        return format!("comment uploads take {}", IMAGES.join(", "));
    }
    let office: Vec<&str> = OFFICE.iter().map(|(_, ext)| *ext).collect();
    format!(
        "card attachments take {}, {}, Office Open XML documents ({}) and {TEXT}",
        IMAGES.join(", "),
        DOCUMENTS.join(", "),
        office.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(parts: &[&[u8]]) -> bool {
        let mut t = TextCheck::default();
        for p in parts {
            t.feed(p);
        }
        t.finish()
    }

    #[test]
    fn text_rule() {
        assert!(text(&[b"hello ", b"world\n"]));
        let e = "é".as_bytes();
        assert!(text(&[b"caf", &e[..1], &e[1..], b"!"]), "split character");
        assert!(!text(&[b"caf", &e[..1]]), "truncated character");
        assert!(!text(&[b"a\0b"]), "NUL byte");
        assert!(!text(&[b"\xff\xfe"]), "not UTF-8");
        assert!(!text(&[b"  \n", b"  <svg/>"]), "markup after blanks");
        assert!(!text(&[b"#!/bin/sh\necho hi\n"]), "script");
        assert!(text(&[b"", b"a < b"]), "< later is fine");
    }

    #[test]
    fn detection_by_content() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR";
        assert_eq!(accepted_type(png, true, false), Some("image/png"));
        assert_eq!(accepted_type(b"%PDF-1.4\n", true, false), None);
        assert_eq!(
            accepted_type(b"%PDF-1.4\n", false, false),
            Some("application/pdf")
        );
        assert_eq!(accepted_type(b"\x7fELF\x02\x01\x01", false, false), None);
        assert_eq!(accepted_type(b"plain", false, true), Some("text/plain"));
        assert_eq!(accepted_type(b"plain", true, true), None);
        assert!(is_image("image/gif") && !is_image("application/pdf"));
    }

    #[test]
    fn accepted_formats_are_named() {
        assert_eq!(
            accepted_formats(true),
            "comment uploads take image/png, image/jpeg, image/gif, image/webp"
        );
        assert_eq!(
            accepted_formats(false),
            "card attachments take image/png, image/jpeg, image/gif, image/webp, \
             application/pdf, application/zip, Office Open XML documents (docx, xlsx, pptx) \
             and text/plain"
        );
    }
}
