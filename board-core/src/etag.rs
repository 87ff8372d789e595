//! Conditional requests (api.md §22): entity tags, the `If-None-Match` and `If-Match`
//! conditions and what a conditional read returns.
//!
//! A tag is strong: the SHA-256 (first 128 bits, hex) of what determines the payload, prefixed
//! by the kind of payload, the resource's key, [`PAYLOAD_REVISION`] and the crate version, so
//! a build that formats a payload differently never answers 304 to a tag of the old bytes. The
//! conditions are parsed here, not in the server, because which tags match (weak comparison
//! for `If-None-Match`, strong for `If-Match`, `*`) is the contract's rule.
//! The server hands them every header value as bytes, unread: a condition that cannot be
//! read (a byte outside visible ASCII, a list that is not comma-separated entity tags) is the
//! contract's to judge too. An unreadable `If-Match` matches nothing (412); an unreadable
//! `If-None-Match` is ignored.
//!
//! **Where a tag comes from** (the `*_if` operations of each resource):
//!
//! - a card: the hash of its JSON (the card read, `reach_card`);
//! - `GET /api/columns` without `tenant`: the hash of its JSON (one statement);
//! - `GET /api/columns?tenant=T`: the hash of the JSON, kept with the process's listing for the
//!   workspace's `version` (`columns/listing.rs`);
//! - `GET /api/columns?tenant=T&project=P` and `GET /api/board`: the set in effect's id,
//!   `column_sets.version`, `settings.version` and the sum of the versions of the set's
//!   columns in `column_versions` (advanced by a move to a column's end, which leaves the
//!   set's alone);
//! - a card's comments: `cards.version` (advanced by `Lock::Card`) and the number of comments
//!   (a plain new comment, under no lock, only adds one);
//! - a card's attachments: `cards.version`; its history: `cards.history_seq`;
//! - a card's relations: `workspaces.version` (links and column writes) and the number of its
//!   links.
//!
//! **Why versions on the lock rows** (migration 0014). Every write already takes, before it
//! reads what decides, the lock of the row that guards what it changes, and that lock's own
//! statement advances the row's `version` (`WriteTx::lock`): no extra statement on any write,
//! and no new point of serialization. A workspace-wide counter would serialize every card
//! write of a workspace on one row. Two bumps of one row are serialized by its lock, so a
//! version only grows, in commit order; `MAX(seq)` of events or `MAX(updated_at)` would not
//! (on PostgreSQL a smaller one can commit after a larger one). Deletions are changes under
//! the same locks. A card's deletion removes its links by cascade without the workspace lock,
//! which only lowers the other card's link count, so (version, count) never returns to a value
//! a client saw before a change.
//!
//! **Read order.** A list's versions are read in the statement that checks access, before the
//! payload's own statements: a tag is never newer than the payload it comes with. A change
//! between the two gives a 200 whose tag is already stale, so the next request is a 200 again,
//! never a wrong 304 or a wrong `If-Match` success. A payload read in one statement has no
//! such window.
//!
//! **If-Match under the lock.** `update_card_if` compares the hash of the card it re-reads
//! under its sets' lock; `update_comment_if` compares the version the `Lock::Card` statement
//! returns; both before anything is written, so a 412 leaves no row, no history, no event
//! (`tests/e2e/etag.rs::racing_if_match_patches_let_exactly_one_through`).
//!
//! **Every new kind of change**: a change to anything a tagged payload shows must be made in a
//! write transaction opened with the `Lock` of the row that guards it (a card's place or
//! fields: its sets, or `Lock::ColumnIn` for a move to a column's end; comments and
//! attachments, a card's labels, assignees and checklist: `Lock::Card`, but a plain new
//! comment, which the count tags; links and labels: `Lock::Workspace`; settings:
//! `Lock::Settings`). Then its tag changes with no code of its
//! own. A new field in a tagged payload's JSON bumps [`PAYLOAD_REVISION`]. A new tagged payload
//! is either read by one statement (hash its JSON) or names the rows whose locks guard it and
//! reads their versions in its first statement. `write_unlocked` must not touch a tagged
//! payload (the one exception: a cascade that only removes links).

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::error::{Error, Result};

/// Changes whenever the wire shape of a tagged payload changes (a field added,
/// renamed or formatted differently), so that a tag taken from versions never
/// survives an upgrade that changed the bytes those versions stand for.
pub const PAYLOAD_REVISION: &str = "3";

/// A strong entity tag, in its quoted wire form (`"…"`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ETag(String);

impl ETag {
    /// The tag of `parts` (what determines a payload of `kind`).
    pub(crate) fn of_parts(kind: &str, parts: &[&[u8]]) -> ETag {
        let mut h = Sha256::new();
        h.update(PAYLOAD_REVISION.as_bytes());
        h.update(env!("CARGO_PKG_VERSION").as_bytes());
        h.update([0]);
        h.update(kind.as_bytes());
        for p in parts {
            h.update([0]);
            h.update((p.len() as u64).to_be_bytes());
            h.update(p);
        }
        let digest = h.finalize();
        let hex: String = digest[..16].iter().map(|b| format!("{b:02x}")).collect();
        ETag(format!("\"{hex}\""))
    }

    /// The tag of a payload read in one statement: the hash of its JSON.
    pub(crate) fn of_payload<T: Serialize>(kind: &str, payload: &T) -> Result<ETag> {
        let bytes =
            serde_json::to_vec(payload).map_err(|e| Error::Internal(format!("payload: {e}")))?;
        Ok(ETag::of_parts(kind, &[&bytes]))
    }

    /// The tag of the versions that guard a payload of `kind` (`key` names the
    /// resource, e.g. a card id).
    pub(crate) fn of_versions(kind: &str, key: &str, versions: &[i64]) -> ETag {
        let text: Vec<String> = versions.iter().map(i64::to_string).collect();
        let joined = text.join(".");
        ETag::of_parts(kind, &[key.as_bytes(), joined.as_bytes()])
    }

    /// The tag of the same payload rendered as HTML (`?html=true`, api.md
    /// §24): another representation, so another tag, made from this one.
    pub(crate) fn rendered(&self) -> ETag {
        ETag::of_parts("html", &[self.0.as_bytes()])
    }

    /// The tag of the same payload for a caller who watches the card (api.md
    /// §26): `watching` is the reader's own, so the tag differs with it.
    pub(crate) fn watched(&self) -> ETag {
        ETag::of_parts("watching", &[self.0.as_bytes()])
    }

    /// The quoted wire form, as the `ETag` header carries it.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The opaque part, between the quotes.
    fn opaque(&self) -> &str {
        self.0.trim_matches('"')
    }
}

impl std::fmt::Display for ETag {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One entity tag of a condition, as the client sent it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Listed {
    weak: bool,
    opaque: String,
}

/// A list of entity tags (RFC 9110 §8.8.3), or `*`, as the header values
/// read: absent, or unreadable (a byte outside visible ASCII, or a list that
/// is not comma-separated entity tags). What an unreadable list means is the
/// condition's rule: `If-Match` matches nothing, `If-None-Match` is ignored.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
enum TagList {
    #[default]
    Absent,
    Any,
    Tags(Vec<Listed>),
    Unreadable,
}

impl TagList {
    /// Parses the header values (several headers count as one list; empty
    /// list members are skipped, as RFC 9110 §5.6.1 asks of a recipient).
    fn parse<V: AsRef<[u8]>>(values: impl IntoIterator<Item = V>) -> TagList {
        let mut tags = Vec::new();
        let (mut seen, mut star) = (false, false);
        for value in values {
            seen = true;
            let Ok(text) = std::str::from_utf8(value.as_ref()) else {
                return TagList::Unreadable;
            };
            if !text
                .bytes()
                .all(|b| b == b' ' || b == b'\t' || b.is_ascii_graphic())
            {
                return TagList::Unreadable;
            }
            // Members, split at the commas outside quotes (an opaque tag may
            // hold a comma).
            let mut rest = text;
            while !rest.is_empty() {
                let end = crate::text::unquoted(rest, ',');
                match rest[..end].trim_matches([' ', '\t']) {
                    "" => {}
                    "*" => star = true,
                    tag => match Listed::parse(tag) {
                        Some(listed) => tags.push(listed),
                        None => return TagList::Unreadable,
                    },
                }
                rest = rest.get(end + 1..).unwrap_or("");
            }
        }
        match (seen, star, tags.is_empty()) {
            (false, ..) => TagList::Absent,
            (true, true, true) => TagList::Any,
            // `*` is the whole field or nothing; a field of empty members names no tag.
            (true, true, false) | (true, false, true) => TagList::Unreadable,
            (true, false, false) => TagList::Tags(tags),
        }
    }
}

impl Listed {
    /// One `entity-tag`: `"opaque"` or `W/"opaque"`, the opaque part of
    /// visible characters other than `"`.
    fn parse(text: &str) -> Option<Listed> {
        let (weak, quoted) = match text.strip_prefix("W/") {
            Some(rest) => (true, rest),
            None => (false, text),
        };
        let opaque = quoted.strip_prefix('"')?.strip_suffix('"')?;
        if !opaque.bytes().all(|b| b.is_ascii_graphic() && b != b'"') {
            return None;
        }
        Some(Listed {
            weak,
            opaque: opaque.to_string(),
        })
    }
}

/// The `If-None-Match` condition of a read: a current tag it names (weak
/// comparison: `W/"x"` names `"x"`), or `*`, makes the answer "not modified".
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IfNoneMatch(TagList);

impl IfNoneMatch {
    /// No condition: every read returns its payload.
    pub fn none() -> IfNoneMatch {
        IfNoneMatch(TagList::Absent)
    }

    /// The condition of the `If-None-Match` header values, as bytes. One
    /// that cannot be read is ignored: the read answers its payload.
    pub fn parse<V: AsRef<[u8]>>(values: impl IntoIterator<Item = V>) -> IfNoneMatch {
        match TagList::parse(values) {
            TagList::Unreadable => IfNoneMatch(TagList::Absent),
            list => IfNoneMatch(list),
        }
    }

    /// True when there is a condition (a read may then answer 304).
    pub fn is_set(&self) -> bool {
        self.0 != TagList::Absent
    }

    /// True when the resource, whose current tag is `tag`, is not modified for
    /// this condition.
    pub fn names(&self, tag: &ETag) -> bool {
        match &self.0 {
            TagList::Absent | TagList::Unreadable => false,
            TagList::Any => true,
            TagList::Tags(tags) => tags.iter().any(|t| t.opaque == tag.opaque()),
        }
    }
}

/// The `If-Match` condition of a write: the write goes ahead only when it
/// names the current tag (strong comparison: a weak tag never matches), or is
/// `*`; otherwise it fails with `PRECONDITION_FAILED` and changes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct IfMatch(TagList);

impl IfMatch {
    /// No condition: the write goes ahead.
    pub fn none() -> IfMatch {
        IfMatch(TagList::Absent)
    }

    /// The condition of the `If-Match` header values, as bytes. One that
    /// cannot be read (a byte outside visible ASCII, a list that is not
    /// comma-separated entity tags) matches nothing: the write fails with
    /// `PRECONDITION_FAILED`.
    pub fn parse<V: AsRef<[u8]>>(values: impl IntoIterator<Item = V>) -> IfMatch {
        IfMatch(TagList::parse(values))
    }

    /// The condition that names exactly `tag` (for Rust callers and the CLI).
    pub fn tag(tag: &ETag) -> IfMatch {
        IfMatch(TagList::Tags(vec![Listed {
            weak: false,
            opaque: tag.opaque().to_string(),
        }]))
    }

    /// True when there is a condition to check (the write then computes the
    /// current tag under its lock).
    pub fn is_set(&self) -> bool {
        self.0 != TagList::Absent
    }

    /// `Ok` when the write may go ahead on a resource whose current tag is
    /// `tag`; `PRECONDITION_FAILED` otherwise.
    pub(crate) fn check(
        &self,
        tag: impl FnOnce() -> Result<ETag>,
        what: &'static str,
    ) -> Result<()> {
        self.check_any(|| Ok(vec![tag()?]), what)
    }

    /// [`IfMatch::check`] for a resource with several representations, each
    /// with its current tag (`tags`): naming any of them lets the write go.
    pub(crate) fn check_any(
        &self,
        tags: impl FnOnce() -> Result<Vec<ETag>>,
        what: &'static str,
    ) -> Result<()> {
        let ok = match &self.0 {
            TagList::Absent | TagList::Any => true,
            TagList::Tags(listed) => {
                let current = tags()?;
                listed
                    .iter()
                    .any(|t| !t.weak && current.iter().any(|c| t.opaque == c.opaque()))
            }
            TagList::Unreadable => false,
        };
        match ok {
            true => Ok(()),
            false => Err(Error::PreconditionFailed(what)),
        }
    }
}

/// What a conditional read returns: the payload with its tag, or only the tag
/// when the condition says the client holds it already.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Conditional<T> {
    /// The client's copy is current (HTTP `304 Not Modified`).
    NotModified(ETag),
    /// The payload and its tag.
    Modified(ETag, T),
}

impl<T> Conditional<T> {
    /// The current tag.
    pub fn tag(&self) -> &ETag {
        match self {
            Conditional::NotModified(t) | Conditional::Modified(t, _) => t,
        }
    }

    /// The payload, when the read returned one.
    pub fn into_payload(self) -> Option<T> {
        match self {
            Conditional::NotModified(_) => None,
            Conditional::Modified(_, p) => Some(p),
        }
    }

    /// The answer for `tag` under `cond`, reading the payload only when needed.
    pub(crate) async fn answer<F>(tag: ETag, cond: &IfNoneMatch, read: F) -> Result<Self>
    where
        F: std::future::Future<Output = Result<T>>,
    {
        match cond.names(&tag) {
            true => Ok(Conditional::NotModified(tag)),
            false => Ok(Conditional::Modified(tag, read.await?)),
        }
    }

    /// The answer for a payload already read, tagged by its bytes.
    pub(crate) fn of_payload(kind: &str, cond: &IfNoneMatch, payload: T) -> Result<Self>
    where
        T: Serialize,
    {
        let tag = ETag::of_payload(kind, &payload)?;
        match cond.names(&tag) {
            true => Ok(Conditional::NotModified(tag)),
            false => Ok(Conditional::Modified(tag, payload)),
        }
    }
}

/// What a write answers (api.md §22): the resource as it now is, with the
/// tag a read of it would carry, so a client saves again without reading.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Saved<T> {
    /// The tag of the read the payload stands for (`GET /api/cards/[id]`,
    /// or a card's `comments`), in the representation asked for.
    pub tag: ETag,
    /// What the write answers.
    pub value: T,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(s: &str) -> ETag {
        ETag(format!("\"{s}\""))
    }

    #[test]
    fn if_none_match_compares_weakly_and_takes_lists_and_star() {
        let t = tag("abc");
        assert!(IfNoneMatch::parse(["\"abc\""]).names(&t));
        assert!(IfNoneMatch::parse(["W/\"abc\""]).names(&t));
        assert!(IfNoneMatch::parse(["\"x\", W/\"y\" ,\"abc\""]).names(&t));
        assert!(IfNoneMatch::parse(["\"x\"", "\"abc\""]).names(&t));
        assert!(IfNoneMatch::parse(["*"]).names(&t));
        assert!(!IfNoneMatch::parse(["\"abcd\""]).names(&t));
        assert!(!IfNoneMatch::parse(["abc"]).names(&t));
        assert!(!IfNoneMatch::parse(Vec::<&str>::new()).names(&t));
    }

    #[test]
    fn if_match_compares_strongly() {
        let t = tag("abc");
        let current = || Ok(t.clone());
        assert!(IfMatch::parse(["\"abc\""]).check(current, "x").is_ok());
        assert!(IfMatch::parse(["\"x\", \"abc\""])
            .check(current, "x")
            .is_ok());
        assert!(IfMatch::parse(["*"]).check(current, "x").is_ok());
        assert!(IfMatch::none().check(current, "x").is_ok());
        let e = IfMatch::parse(["W/\"abc\""])
            .check(current, "x")
            .unwrap_err();
        assert_eq!(e.code(), "PRECONDITION_FAILED");
        assert!(IfMatch::parse(["\"abd\""]).check(current, "x").is_err());
        assert!(IfMatch::parse(["garbage"]).check(current, "x").is_err());
    }

    #[test]
    fn an_unreadable_if_match_matches_nothing() {
        let t = tag("abc");
        let current = || Ok(t.clone());
        for bad in [
            &b"\"\xc3\xa9\""[..],
            b"\"abc\"\x01",
            b"\"ab c\"",
            b"\"abc\" \"abc\"",
            b"\"abc\", garbage",
            b"\"abc\", *",
            b"W/ \"abc\"",
            b"\"abc",
            b"",
            b" , ",
        ] {
            let cond = IfMatch::parse([bad]);
            assert!(cond.is_set(), "{bad:?}");
            let e = cond.check(current, "x").unwrap_err();
            assert_eq!(e.code(), "PRECONDITION_FAILED", "{bad:?}");
        }
        // One unreadable header spoils the list its headers make.
        let two: [&[u8]; 2] = [b"\"abc\"", b"\"\xff\""];
        assert!(IfMatch::parse(two).check(current, "x").is_err());
        assert!(IfMatch::parse([&b" \"abc\" , ,\t"[..]])
            .check(current, "x")
            .is_ok());
        // A comma inside an opaque tag is part of it.
        let comma = || Ok(tag("a,b"));
        assert!(IfMatch::parse(["\"x\", \"a,b\""]).check(comma, "x").is_ok());
        assert!(IfMatch::parse(["\"a\""]).check(comma, "x").is_err());
    }

    #[test]
    fn an_unreadable_if_none_match_is_ignored() {
        let t = tag("abc");
        for bad in [
            &b"\"\xc3\xa9\""[..],
            b"\"abc\", garbage",
            b"\"abc\", *",
            b"",
        ] {
            let cond = IfNoneMatch::parse([bad]);
            assert!(!cond.is_set(), "{bad:?}");
            assert!(!cond.names(&t), "{bad:?}");
        }
    }

    #[test]
    fn tags_differ_by_kind_key_and_versions() {
        let a = ETag::of_versions("comments", "k1", &[1]);
        assert_eq!(a, ETag::of_versions("comments", "k1", &[1]));
        assert_ne!(a, ETag::of_versions("comments", "k1", &[2]));
        assert_ne!(a, ETag::of_versions("comments", "k2", &[1]));
        assert_ne!(a, ETag::of_versions("history", "k1", &[1]));
        assert_ne!(
            ETag::of_versions("r", "k", &[1, 12]),
            ETag::of_versions("r", "k", &[11, 2])
        );
    }
}
