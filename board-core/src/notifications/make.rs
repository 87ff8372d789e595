//! Making notifications (api.md §26) in the transaction of the change that
//! causes them, with set-based SQL deferred to the commit's round trip: one
//! `INSERT … SELECT` writes every recipient's row, one more writes their
//! `notification.created` events. A comment on a card with any number of
//! watchers costs those two statements and no round trip; a comment or a
//! move of a card that nobody but its actor watches ([`OTHERS_WATCH_SQL`],
//! read with the card) and that names nobody costs none.
//!
//! The statement gathers the reasons each account has (mentioned 1, assigned
//! 2, a watcher of a comment 3, of a move 4), keeps the strongest per account
//! (`MIN`), drops the actor and everyone not a member of the card's
//! workspace, and writes one row per account under the change's key: the
//! unique `(change_key, account_id)` index is the backstop.

use std::borrow::Cow;
use std::sync::LazyLock;

use crate::ids::{AccountId, CardId, WorkspaceId};
use crate::store::{Backend, Deferred, Value, WriteTx};
use crate::time::Timestamp;

/// The longest excerpt a notification keeps of a text, in characters.
pub(crate) const EXCERPT_CHARS: usize = 200;

/// The ways an account watches card `{card}`, each a `SELECT account_id`:
/// its creator, its assignees, its commenters (`card_commenters`, kept as
/// comments are added: no comment is read) and those who chose to watch it.
const WATCH_SOURCES: [&str; 4] = [
    "SELECT created_by AS account_id FROM cards WHERE id = {card} AND created_by IS NOT NULL",
    "SELECT account_id FROM card_assignees WHERE card_id = {card}",
    "SELECT account_id FROM card_commenters WHERE card_id = {card}",
    "SELECT account_id FROM card_watches WHERE card_id = {card} AND watching = 1",
];

/// The accounts watching card `$C` (written in place of `{card}`): those of
/// [`WATCH_SOURCES`], less those who chose not to.
pub(crate) static WATCHERS_SQL: LazyLock<String> = LazyLock::new(|| {
    format!(
        "SELECT w.account_id FROM ({}) w \
         WHERE NOT EXISTS (SELECT 1 FROM card_watches x WHERE x.card_id = {{card}} \
             AND x.account_id = w.account_id AND x.watching = 0)",
        WATCH_SOURCES.join(" UNION ")
    )
});

/// Whether one of [`WATCH_SOURCES`] for card `card` names an account that
/// meets `condition` (on `s.account_id`): one `EXISTS` per source, so that
/// each is a lookup of the card's rows, or of one account's.
fn any_source(card: &str, condition: &str) -> String {
    let each: Vec<String> = WATCH_SOURCES
        .iter()
        .map(|source| {
            let source = source.replace("{card}", card);
            format!("EXISTS (SELECT 1 FROM ({source}) s WHERE s.account_id {condition})")
        })
        .collect();
    each.join(" OR ")
}

/// Whether anyone but account `{account}` may watch card `k`, as 1 or 0: one
/// of [`WATCH_SOURCES`] names another account (opt-outs and memberships left
/// to [`WATCHERS_SQL`]). Read with the card by a change whose watchers hear
/// of it: at 0 the change sends no notification statement, since nobody but
/// its actor watches. With no account (the operator), anyone.
pub(crate) static OTHERS_WATCH_SQL: LazyLock<String> = LazyLock::new(|| {
    let others = any_source("k.id", "<> COALESCE({account}, '')");
    format!("CASE WHEN {others} THEN 1 ELSE 0 END")
});

/// Whether account `{account}` watches card `{card}`, as 1 or 0: one of
/// [`WATCH_SOURCES`] names it and it did not choose not to (as
/// [`WATCHERS_SQL`] decides, by lookups of that one account's rows).
pub(crate) static WATCHING_SQL: LazyLock<String> = LazyLock::new(|| {
    let named = any_source("{card}", "= {account}");
    format!(
        "CASE WHEN NOT EXISTS (SELECT 1 FROM card_watches x WHERE x.card_id = {{card}} \
             AND x.account_id = {{account}} AND x.watching = 0) \
         AND ({named}) THEN 1 ELSE 0 END"
    )
});

/// What a change tells whom: the reasons of one change to one card.
#[derive(Debug)]
pub(crate) struct Notice<'a> {
    workspace: &'a WorkspaceId,
    card: &'a CardId,
    actor: Option<&'a AccountId>,
    /// The text the excerpt is cut from, once the notice is sent.
    excerpt: Option<Cow<'a, str>>,
    at: Timestamp,
    /// The name keys after each `@` of the new text, with the `@`'s place.
    mentioned: Vec<(String, String)>,
    /// Those of the text before an edit: names already there notify nobody.
    mentioned_before: Vec<(String, String)>,
    assigned: Vec<AccountId>,
    /// `commented` or `moved`: the card's watchers hear of it.
    watchers: Option<&'static str>,
}

impl<'a> Notice<'a> {
    /// A change by `actor` to `card` of `workspace`, telling nobody yet.
    pub(crate) fn new(
        workspace: &'a WorkspaceId,
        card: &'a CardId,
        actor: Option<&'a AccountId>,
        at: Timestamp,
    ) -> Notice<'a> {
        Notice {
            workspace,
            card,
            actor,
            excerpt: None,
            at,
            mentioned: Vec::new(),
            mentioned_before: Vec::new(),
            assigned: Vec::new(),
            watchers: None,
        }
    }

    /// The notifications carry an excerpt of `text` (cut only when sent).
    pub(crate) fn excerpt(mut self, text: impl Into<Cow<'a, str>>) -> Notice<'a> {
        self.excerpt = Some(text.into());
        self
    }

    /// Tells the members `text` names (`@name`), but those `before` (the
    /// text an edit replaces) named already.
    pub(crate) fn mentions(mut self, text: &str, before: Option<&str>) -> Notice<'a> {
        self.mentioned = super::mentions::candidates(text);
        if !self.mentioned.is_empty() {
            self.mentioned_before = before.map(super::mentions::candidates).unwrap_or_default();
        }
        self
    }

    /// Tells `accounts`, just assigned.
    pub(crate) fn assigned(mut self, accounts: &[AccountId]) -> Notice<'a> {
        self.assigned = accounts.to_vec();
        self
    }

    /// Tells the card's watchers: `commented` or `moved`.
    pub(crate) fn watchers(mut self, kind: &'static str) -> Notice<'a> {
        self.watchers = Some(kind);
        self
    }

    /// Whether nobody could be told.
    fn is_empty(&self) -> bool {
        self.mentioned.is_empty() && self.assigned.is_empty() && self.watchers.is_none()
    }

    /// Defers the notifications and their events to `tx`'s commit: two
    /// statements, none when no reason applies.
    pub(crate) fn defer(self, tx: &mut WriteTx) {
        if self.is_empty() {
            return;
        }
        let key = crate::ids::NotificationId::new().to_string();
        let backend = tx.backend();
        tx.defer(self.statement(backend, &key));
        tx.defer(events_statement(backend, &key));
    }

    /// The `INSERT … SELECT` of the notifications, under change `key`.
    fn statement(&self, backend: Backend, key: &str) -> Deferred {
        // $1 workspace, $2 card, $3 actor, $4 key, $5 excerpt, $6 time.
        let mut values = vec![
            Value::text(self.workspace),
            Value::text(self.card),
            Value::opt(self.actor),
            Value::text(key),
            Value::opt(self.excerpt.as_deref().map(excerpt).as_deref()),
            Value::text(&self.at),
        ];
        let next = |v: Value, values: &mut Vec<Value>| {
            values.push(v);
            format!("${}", values.len())
        };
        let mut with = String::new();
        let mut reasons: Vec<String> = Vec::new();
        if !self.mentioned.is_empty() {
            let mut rows = Vec::new();
            for (src, list) in [("n", &self.mentioned), ("o", &self.mentioned_before)] {
                for (pos, key) in list {
                    let p = next(Value::text(pos), &mut values);
                    let k = next(Value::text(key), &mut values);
                    rows.push(format!("('{src}', {p}, {k})"));
                }
            }
            with = format!(
                "WITH hits AS (SELECT c.column1 AS src, c.column2 AS pos, a.id AS account_id, \
                     LENGTH(a.name_key) AS len FROM (VALUES {}) c \
                     JOIN accounts a ON a.name_key = c.column3 \
                     JOIN memberships m ON m.account_id = a.id AND m.workspace_id = $1), \
                 named AS (SELECT h.src, h.account_id FROM hits h WHERE NOT EXISTS \
                     (SELECT 1 FROM hits l WHERE l.src = h.src AND l.pos = h.pos \
                      AND l.len > h.len)) ",
                rows.join(", ")
            );
            reasons.push(
                "SELECT account_id, 1 AS rank FROM named WHERE src = 'n' AND account_id NOT IN \
                 (SELECT account_id FROM named WHERE src = 'o')"
                    .to_string(),
            );
        }
        for a in &self.assigned {
            let p = next(Value::text(a), &mut values);
            reasons.push(format!("SELECT {p} AS account_id, 2 AS rank"));
        }
        if let Some(kind) = self.watchers {
            let rank = if kind == "commented" { 3 } else { 4 };
            let watchers = WATCHERS_SQL.replace("{card}", "$2");
            reasons.push(format!(
                "SELECT account_id, {rank} AS rank FROM ({watchers}) ww"
            ));
        }
        let sql = format!(
            "{with}INSERT INTO notifications (id, account_id, workspace_id, card_id, kind, \
                 change_key, actor_id, excerpt, created_at) \
             SELECT {id}, r.account_id, $1, $2, \
                 CASE MIN(r.rank) WHEN 1 THEN 'mentioned' WHEN 2 THEN 'assigned' \
                     WHEN 3 THEN 'commented' ELSE 'moved' END, \
                 $4, $3, $5, $6 \
             FROM ({reasons}) r \
             JOIN memberships m ON m.workspace_id = $1 AND m.account_id = r.account_id \
             WHERE r.account_id <> COALESCE($3, '') \
             GROUP BY r.account_id",
            id = backend.new_id_sql(),
            reasons = reasons.join(" UNION ALL "),
        );
        Deferred::new(sql, values)
    }
}

/// The texts of the statements the most frequent changes send (a comment's,
/// a move's: their watchers hear of it; and the events), for PostgreSQL to
/// prepare (`store::prepared`): each built by the very code that sends it.
pub(crate) fn hot_statements(backend: Backend) -> Vec<String> {
    let (ws, card) = (
        WorkspaceId::from_db(String::new()),
        CardId::from_db(String::new()),
    );
    let mut texts: Vec<String> = ["commented", "moved"]
        .into_iter()
        .map(|kind| {
            let notice = Notice::new(&ws, &card, None, Timestamp::from_millis(0)).watchers(kind);
            notice.statement(backend, "").sql
        })
        .collect();
    texts.push(events_statement(backend, "").sql);
    texts
}

/// The `notification.created` events of the notifications of change `$1`:
/// one private event each, for its account's streams alone.
pub(crate) fn events_statement(backend: Backend, key: &str) -> Deferred {
    Deferred::new(backend.notification_events_sql(), vec![Value::text(key)])
}

/// The first [`EXCERPT_CHARS`] characters of `text` (Markdown) as plain
/// text, as search snippets show it (no syntax, no file URLs), with `…` when
/// cut.
pub(crate) fn excerpt(text: &str) -> String {
    let plain = crate::markdown::plain_text(text);
    let trimmed = plain.trim();
    match trimmed.char_indices().nth(EXCERPT_CHARS) {
        Some((end, _)) => format!("{}…", &trimmed[..end]),
        None => trimmed.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_excerpt_is_cut_at_a_character() {
        assert_eq!(excerpt("  hi  "), "hi");
        let image = "see ![hold.png](/api/files/abc123) **now**";
        assert_eq!(excerpt(image), "see hold.png now");
        let long = "é".repeat(EXCERPT_CHARS + 5);
        let cut = excerpt(&long);
        assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
        assert!(cut.ends_with('…'));
    }
}
