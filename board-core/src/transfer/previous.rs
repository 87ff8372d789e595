//! The export format versions an import reads: this build's, and the ones
//! before it, whose exports lack what later migrations added: version 2 lacks
//! archive and search (migration 0012, api.md §19), webhooks (0013, §18) and
//! the versions of conditional requests (0014, §22), and what came later
//! within format 3 (0015 comment seqs, 0016 column versions); version 1 also
//! what migration 0011 added (api.md §17). Version 3 lacks cards in full
//! (0018, api.md §24): descriptions, due times, labels, assignees and
//! checklists. Version 4 lacks people (0019, api.md §23): passwords, the
//! kinds of tokens, throttle counts, invitations and reset links. Version 5
//! lacks notifications (0022, api.md §26): watches, notifications, due
//! reminders and the private events' account; and the Trello ids an import
//! from Trello remembers (0023, api.md §28). Version 6 lacks e-mail (0024,
//! api.md §26: addresses, their verification codes, preferences, batches) and
//! single sign-on (0025, api.md §27: identities, sign-ins under way, a
//! session's ID token).

use super::Value;

/// The export format this build writes (docs/export.md).
pub const EXPORT_FORMAT_VERSION: u32 = 7;

/// The columns format version 2 added (migration 0011: who did what): a
/// version 1 export has none of them, and its rows go in with null there.
const ADDED_IN_2: &[(&str, &str)] = &[
    ("history", "actor_id"),
    ("cards", "created_by"),
    ("relations", "created_by"),
    ("attachments", "uploaded_by"),
];

/// The columns format version 3 added (migrations 0012 and 0014).
const ADDED_IN_3: &[(&str, &str)] = &[
    ("cards", "archived_at"),
    ("workspaces", "version"),
    ("settings", "version"),
    ("column_sets", "version"),
    ("cards", "version"),
];

/// The columns format version 4 added (migration 0018).
const ADDED_IN_4: &[(&str, &str)] = &[("cards", "description"), ("cards", "due_at")];

/// The columns format version 5 added (migration 0019).
const ADDED_IN_5: &[(&str, &str)] = &[
    ("accounts", "password_hash"),
    ("tokens", "kind"),
    ("tokens", "label"),
    ("tokens", "last_used_at"),
];

/// The columns format version 6 added (migration 0022): a private event's
/// account (an older export has only events of a workspace).
const ADDED_IN_6: &[(&str, &str)] = &[("events", "account_id")];

/// The columns format version 7 added (migrations 0024, e-mail, and 0025,
/// single sign-on: a session's ID token, as an older export's sessions were
/// all made with a password).
const ADDED_IN_7: &[(&str, &str)] = &[
    ("accounts", "email"),
    ("accounts", "email_key"),
    ("accounts", "email_verified_at"),
    ("notifications", "mail_batch_id"),
    ("tokens", "id_token"),
];

/// Each table an older export may lack, with the format version that added
/// it: an export of an earlier version has none of its rows, and its table
/// is imported empty.
/// - 3 (migrations 0012 to 0016): no card of such an export was archived,
///   it had no webhook, its columns' versions start at none; the search
///   index is rebuilt from the cards and comments ([`Absent::search_index`]);
/// - 4 (0018): no card had labels, assignees or a checklist;
/// - 5 (0019): no failure counted, no invitation or reset link open;
/// - 6 (0022, 0023): nobody chose to watch a card or not, no notification,
///   no reminder sent (due reminders go out again for cards already in their
///   window), nothing imported from Trello;
/// - 7 (0024, 0025): no address, the default preferences, nothing mailed, no
///   identity linked, no sign-in under way.
const TABLES_ADDED: &[(u32, &str)] = &[
    (3, "card_archives"),
    (3, "search_terms"),
    (3, "search_state"),
    (3, "webhooks"),
    (3, "webhook_deliveries"),
    (3, "column_versions"),
    (4, "labels"),
    (4, "card_labels"),
    (4, "card_assignees"),
    (4, "checklist_items"),
    (5, "auth_failures"),
    (5, "invitations"),
    (5, "password_resets"),
    (6, "card_watches"),
    (6, "notifications"),
    (6, "due_reminders"),
    (6, "trello_ids"),
    (7, "email_verifications"),
    (7, "mail_preferences"),
    (7, "mail_batches"),
    (7, "identities"),
    (7, "sso_states"),
];

/// The columns migration 0021 added within format 5 (account name keys, the
/// throttle's pending attempts): an export may have them or not. Without
/// them, a row gets a null key, filled after the import from the name, and
/// no attempt pending.
const ADDED_WITHIN_5: &[(&str, &str)] = &[("accounts", "name_key"), ("auth_failures", "pending")];

/// Migrations an export of this format may list or not: 0021 added only
/// [`ADDED_WITHIN_5`], which an import computes when missing.
const OPTIONAL: &[i64] = &[21];

/// Migrations that change no column and no row an export carries (0017
/// drops the search index's foreign key and an index; 0020 adds the counts
/// kept by triggers, which an import fills as its rows go in): an export
/// made before one imports as well as one made after.
const NEUTRAL: &[i64] = &[17, 20];

/// What an export of one format version lacks of this build's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Absent {
    /// The lists of columns it lacks, one per later version.
    columns: &'static [&'static [(&'static str, &'static str)]],
    /// The export's format version: it lacks the tables added after it.
    version: u32,
    migrations: &'static [i64],
}

impl Absent {
    /// What an export of `version` lacks; `None` for a version this build
    /// does not read.
    pub(crate) fn of(version: u32) -> Option<Absent> {
        match version {
            EXPORT_FORMAT_VERSION => Some(Absent {
                columns: &[],
                version,
                migrations: &[],
            }),
            6 => Some(Absent {
                columns: &[ADDED_IN_7],
                version,
                migrations: &[24, 25],
            }),
            5 => Some(Absent {
                columns: &[ADDED_IN_6, ADDED_IN_7],
                version,
                migrations: &[22, 23, 24, 25],
            }),
            4 => Some(Absent {
                columns: &[ADDED_IN_5, ADDED_IN_6, ADDED_IN_7],
                version,
                migrations: &[19, 22, 23, 24, 25],
            }),
            3 => Some(Absent {
                columns: &[ADDED_IN_4, ADDED_IN_5, ADDED_IN_6, ADDED_IN_7],
                version,
                migrations: &[18, 19, 22, 23, 24, 25],
            }),
            2 => Some(Absent {
                columns: &[ADDED_IN_3, ADDED_IN_4, ADDED_IN_5, ADDED_IN_6, ADDED_IN_7],
                version,
                migrations: &[12, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25],
            }),
            1 => Some(Absent {
                columns: &[
                    ADDED_IN_2, ADDED_IN_3, ADDED_IN_4, ADDED_IN_5, ADDED_IN_6, ADDED_IN_7,
                ],
                version,
                migrations: &[11, 12, 13, 14, 15, 16, 17, 18, 19, 22, 23, 24, 25],
            }),
            _ => None,
        }
    }

    /// The migrations an export that lists `theirs` must list when the
    /// database is at `ours`: ours, without those its format predates, and
    /// without those of [`NEUTRAL`] it lacks.
    pub(crate) fn migrations(&self, ours: &[i64], theirs: &[i64]) -> Vec<i64> {
        ours.iter()
            .copied()
            .filter(|v| !self.migrations.contains(v))
            .filter(|v| !(NEUTRAL.contains(v) || OPTIONAL.contains(v)) || theirs.contains(v))
            .collect()
    }

    /// True when such an export has no `column` in `table`, or may lack it
    /// ([`ADDED_WITHIN_5`]).
    pub(crate) fn column(&self, table: &str, column: &str) -> bool {
        self.columns
            .iter()
            .any(|added| added.contains(&(table, column)))
            || Absent::optional(table, column)
    }

    /// True when an export of any version may have `column` in `table` or not.
    pub(crate) fn optional(table: &str, column: &str) -> bool {
        ADDED_WITHIN_5.contains(&(table, column))
    }

    /// What a row of such an export gets in a column it lacks: 0 for a
    /// `version` counter, `""` for a description and `personal` for a
    /// token's kind (NOT NULL, as the migrations' defaults), null for the
    /// rest (unknown: who did what; never archived, never due, no password).
    pub(crate) fn fill(column: &str) -> Value {
        match column {
            "version" => Value::Int(0),
            "description" => Value::Text(String::new()),
            "kind" => Value::Text("personal".to_string()),
            "pending" => Value::Int(0),
            _ => Value::Null,
        }
    }

    /// True when such an export lacks the search index (the import rebuilds it).
    pub(crate) fn search_index(&self) -> bool {
        self.table("search_terms")
    }

    /// True when such an export has no file for `table`.
    pub(crate) fn table(&self, table: &str) -> bool {
        TABLES_ADDED
            .iter()
            .any(|&(added, t)| t == table && added > self.version)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn older_versions_lack_later_migrations_and_their_columns() {
        let v1 = Absent::of(1).unwrap();
        assert_eq!(
            v1.migrations(&[1, 2, 10, 11, 12, 13, 14], &[1, 2, 10]),
            vec![1, 2, 10]
        );
        assert!(v1.column("cards", "created_by") && !v1.column("cards", "title"));
        assert!(v1.column("cards", "archived_at") && v1.table("card_archives"));
        assert!(v1.table("webhooks") && !v1.table("cards"));
        let v2 = Absent::of(2).unwrap();
        assert_eq!(v2.migrations(&[1, 11, 12, 13, 14], &[1, 11]), vec![1, 11]);
        // Migrations 0015 to 0017 came after format 2 too, within format 3.
        let ours = [1, 11, 12, 13, 14, 15, 16, 17];
        assert_eq!(v2.migrations(&ours, &[1, 11]), vec![1, 11]);
        assert!(v2.table("column_versions") && v1.table("column_versions"));
        assert!(!v2.column("cards", "created_by") && v2.column("cards", "archived_at"));
        assert!(v2.column("workspaces", "version") && v2.table("webhook_deliveries"));
        assert!(v2.search_index());
        let v3 = Absent::of(3).unwrap();
        assert!(v3.column("cards", "description") && v3.table("checklist_items"));
        assert!(v2.table("labels") && v1.column("cards", "due_at"));
        assert_eq!(Absent::fill("description"), Value::Text(String::new()));
        assert_eq!(v3.migrations(&[1, 17, 18], &[1, 17]), vec![1, 17]);
        let v4 = Absent::of(4).unwrap();
        assert!(v4.column("tokens", "kind") && v4.table("invitations") && !v4.table("labels"));
        assert!(v3.column("accounts", "password_hash") && v1.table("password_resets"));
        assert_eq!(Absent::fill("kind"), Value::Text("personal".into()));
        assert_eq!(v4.migrations(&[1, 18, 19], &[1, 18]), vec![1, 18]);
        let v3 = Absent::of(EXPORT_FORMAT_VERSION).unwrap();
        assert_eq!(v3.migrations(&[1, 12, 13, 14], &[1]), vec![1, 12, 13, 14]);
        // An export made before migration 0017 (neutral) or after it.
        let ours = [1, 12, 16, 17];
        assert_eq!(v3.migrations(&ours, &[1, 12, 16]), vec![1, 12, 16]);
        assert_eq!(v3.migrations(&ours, &[1, 12, 16, 17]), ours.to_vec());
        assert_eq!(v3.migrations(&ours, &[1, 12]), vec![1, 12, 16]);
        assert!(!v3.table("card_archives") && !v3.column("cards", "archived_at"));
        assert!(!v3.table("webhooks") && !v3.search_index());
        assert_eq!(Absent::fill("version"), Value::Int(0));
        assert_eq!(Absent::fill("archived_at"), Value::Null);
        assert!(Absent::of(8).is_none() && Absent::of(0).is_none());
        // Format 5 lacks notifications (migration 0022) and what came after.
        let v5 = Absent::of(5).unwrap();
        assert!(v5.table("notifications") && v5.column("events", "account_id"));
        assert!(!v5.table("invitations") && !v5.column("accounts", "password_hash"));
        // Format 6 lacks only e-mail and single sign-on (migrations 0024, 0025).
        let v6 = Absent::of(6).unwrap();
        assert!(v6.table("mail_batches") && v6.column("accounts", "email"));
        assert!(v6.table("identities") && v6.column("tokens", "id_token"));
        assert!(
            !v6.table("notifications") && v5.table("mail_preferences") && v5.table("identities")
        );
        assert_eq!(
            v6.migrations(&[1, 22, 23, 24, 25], &[1, 22, 23]),
            vec![1, 22, 23]
        );
    }
}
