//! Every difference between the two SQL dialects, as methods of [`Backend`]: the one place in
//! the crate that matches on the backend (`no_other_file_matches_on_the_backend` fails when
//! another source names a backend's variant). Each method says what it is for; callers state
//! *what* they need, never *which* database.
//!
//! What differs: a new connection's set-up (`connection_setup`); the forms of `BEGIN`; row and
//! table locks, and whether `BEGIN` rides with the first lock (`fuses_begin_with_lock`); the
//! column sets' gate (`set_gate_sql`: PostgreSQL advisory locks, shared by a move to a
//! column's end, exclusive for every writer of a set); whether a batch binds its values or
//! writes them as literals; id SQL for set-based inserts; epoch arithmetic (the flow); a big
//! read as one JSON text (SQLite); the outbox statement and the horizon's reads; the seqs of
//! events and comments; the catalog reads of a copy.

use std::sync::LazyLock;

use super::outbox::{OutboxRow, PENDING_POSITION_JSON};
use super::value::{literal, placeholders};
use super::Backend;

static SQLITE_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/sqlite");
static POSTGRES_MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("../migrations/postgres");

/// How long a SQLite connection waits for the write lock before giving up.
const SQLITE_BUSY_TIMEOUT_MS: u32 = 60_000;

/// The first key of the column sets' advisory locks
/// ([`Backend::set_gate_sql`]); the second is the hash of the set's id. Two
/// sets whose ids hash alike share a gate, which only makes their writers wait
/// for each other.
const SET_GATE: i32 = 0x6273; // "bs"

impl Backend {
    /// Whether the database is an embedded file with one write lock for all
    /// (SQLite): this process's writers queue for it in arrival order, and
    /// writes commit in the order they took their seqs.
    pub(crate) fn is_embedded(self) -> bool {
        match self {
            Backend::Sqlite => true,
            Backend::Postgres => false,
        }
    }

    /// The migrations of this backend (`migrations/<backend>`).
    pub(crate) fn migrator(self) -> &'static sqlx::migrate::Migrator {
        match self {
            Backend::Sqlite => &SQLITE_MIGRATOR,
            Backend::Postgres => &POSTGRES_MIGRATOR,
        }
    }

    /// The schema this build runs: the version of its last migration, which
    /// opening a board applies (what `board init` and the server's start
    /// report).
    pub fn schema_version(self) -> i64 {
        self.migrator().iter().map(|m| m.version).max().unwrap_or(0)
    }

    /// What every new pool connection runs first.
    ///
    /// SQLite: WAL with synchronous=NORMAL never corrupts; a power cut may
    /// lose the last commits. A larger page cache keeps set-based statements
    /// over 100k rows in memory. Reads map the file (up to 1 GiB), so the
    /// pool's connections share the OS's pages rather than each copying them
    /// into its own cache: a flow read over a million history rows takes a
    /// fifth less. Commits never checkpoint (`wal_autocheckpoint = 0`): the
    /// board's checkpoint task does, outside the write queue (`checkpoint.rs`).
    ///
    /// PostgreSQL: no JIT compilation. It pays off only for long analytic
    /// queries, and it made the one this service has (a flow read over a
    /// million history rows) three times slower, compiling for seconds what
    /// runs in one.
    pub(crate) fn connection_setup(self) -> String {
        match self {
            Backend::Sqlite => format!(
                "PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}; \
                 PRAGMA synchronous = NORMAL; PRAGMA cache_size = -65536; \
                 PRAGMA temp_store = MEMORY; PRAGMA mmap_size = 1073741824; \
                 PRAGMA wal_autocheckpoint = 0"
            ),
            // Notices (`relation … already exists, skipping` from the
            // migrations' `IF NOT EXISTS`) are not worth a log line.
            Backend::Postgres => "SET jit = off; SET client_min_messages = warning".to_string(),
        }
    }

    /// How a write transaction begins. SQLite: `BEGIN IMMEDIATE` takes the
    /// database write lock up front, so two writers never deadlock on a lock
    /// upgrade (SQLITE_BUSY 5/517).
    pub(crate) fn begin_write(self) -> &'static str {
        match self {
            Backend::Sqlite => "BEGIN IMMEDIATE",
            Backend::Postgres => "BEGIN",
        }
    }

    /// Whether a write's `BEGIN` is sent in one round trip with its first
    /// lock. SQLite: `BEGIN IMMEDIATE; UPDATE … RETURNING …` with bound
    /// values, one text per lock shape, kept prepared by sqlx. PostgreSQL:
    /// `BEGIN; UPDATE …` as one simple query with the ids as literals (the
    /// extended protocol takes one statement); the lock statement (and the
    /// hot reads sent with it) run by name, `EXECUTE name(…)`, prepared by
    /// every connection ([`Backend::prepared`]), so they are not parsed and
    /// planned each time.
    pub(crate) fn fuses_begin_with_lock(self) -> bool {
        match self {
            Backend::Sqlite => true,
            Backend::Postgres => true,
        }
    }

    /// What follows a `SELECT` that locks its rows for the transaction
    /// (PostgreSQL `FOR NO KEY UPDATE`: writers of the same parent queue on
    /// it, while inserts that only reference the row go on; SQLite already
    /// holds the write lock).
    pub(crate) fn row_lock_suffix(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR NO KEY UPDATE",
        }
    }

    /// What follows a `SELECT` that locks its rows as their deletion will
    /// (PostgreSQL `FOR UPDATE`, which other transactions' foreign-key checks
    /// on them wait for; SQLite already holds the write lock).
    pub(crate) fn row_delete_lock_suffix(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE",
        }
    }

    /// What follows a `SELECT` that keeps its rows from being deleted, or
    /// their keys changed, for the transaction (PostgreSQL `FOR KEY SHARE`,
    /// which waits for no other lock but a deletion's; SQLite already holds
    /// the write lock).
    pub(crate) fn key_share_suffix(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR KEY SHARE",
        }
    }

    /// The seq of a new comment of the card `$2`, ordering it after every
    /// comment of that card: SQLite `MAX(seq) + 1` under the write lock;
    /// PostgreSQL the sequence `comments_seq` (taken with no lock, so several
    /// writers add comments to one card at once), and never below the card's
    /// `MAX(seq) + 1`.
    pub(crate) fn new_comment_seq_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => {
                "(SELECT COALESCE(MAX(seq), 0) + 1 FROM comments WHERE card_id = $2)"
            }
            Backend::Postgres => {
                "GREATEST(nextval('comments_seq'), \
                 (SELECT COALESCE(MAX(seq), 0) + 1 FROM comments WHERE card_id = $2))"
            }
        }
    }

    /// What ends a sub-select of rows a worker claims so that several
    /// servers each claim others: PostgreSQL's `FOR UPDATE SKIP LOCKED`;
    /// nothing on SQLite, whose one write lock serialises the claims (the
    /// claim's `UPDATE … WHERE` re-checks each row either way).
    pub(crate) fn skip_locked_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => "",
            Backend::Postgres => " FOR UPDATE SKIP LOCKED",
        }
    }

    /// Locks every card of the column `$1` (PostgreSQL; `None` where the
    /// write lock already covers them).
    pub(crate) fn lock_column_cards_sql(self) -> Option<&'static str> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some("SELECT id FROM cards WHERE column_id = $1 FOR UPDATE"),
        }
    }

    /// Makes the rest of the transaction join through indexes only
    /// (PostgreSQL `SET LOCAL`; SQLite's planner needs no such hint).
    pub(crate) fn index_joins_only_sql(self) -> Option<&'static str> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some(
                "SELECT set_config('enable_hashjoin', 'off', true), \
                 set_config('enable_mergejoin', 'off', true)",
            ),
        }
    }

    /// Keeps other writers out of `tables` until the transaction ends
    /// (PostgreSQL `LOCK TABLE … IN EXCLUSIVE MODE`; SQLite already holds the
    /// database write lock).
    pub(crate) fn lock_tables_sql(self, tables: &[&str]) -> Option<String> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => {
                let list: Vec<String> = tables.iter().map(|t| format!("\"{t}\"")).collect();
                Some(format!("LOCK TABLE {} IN EXCLUSIVE MODE", list.join(", ")))
            }
        }
    }

    /// An SQL expression giving a fresh id of the cuid2 shape
    /// (`[a-z][a-z0-9]{23}`) for each row of a set-based insert.
    pub(crate) fn new_id_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => "('h' || substr(lower(hex(randomblob(12))), 1, 23))",
            Backend::Postgres => {
                "('h' || substr(md5(random()::text || clock_timestamp()::text), 1, 23))"
            }
        }
    }

    /// Moves event seqs and comment seqs on past every seq in their tables
    /// (or pruned), once rows were copied in with their seqs: PostgreSQL
    /// sets the sequences `events_seq` and `comments_seq`; SQLite's next seqs
    /// are `MAX(seq) + 1` anyway.
    pub(crate) fn continue_event_seqs_sql(self) -> Option<&'static str> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some(
                "SELECT setval('events_seq', GREATEST((SELECT COALESCE(MAX(seq), 0) FROM events), \
                 (SELECT pruned_through FROM event_log WHERE id = 1)) + 1, false), \
                 setval('comments_seq', (SELECT COALESCE(MAX(seq), 0) FROM comments) + 1, false)",
            ),
        }
    }

    /// SQL for the seconds since the Unix epoch (a double) of `expr`, a time
    /// stored as RFC 3339 text (SQLite `julianday`, PostgreSQL a cast to
    /// `timestamptz`).
    pub(crate) fn epoch_seconds_sql(self, expr: &str) -> String {
        match self {
            Backend::Sqlite => format!("((julianday({expr}) - 2440587.5) * 86400.0)"),
            Backend::Postgres => {
                format!("CAST(EXTRACT(EPOCH FROM CAST({expr} AS timestamptz)) AS DOUBLE PRECISION)")
            }
        }
    }

    /// An aggregate of the integers `d` of a group as one text, ascending and
    /// comma-separated.
    pub(crate) fn sorted_list_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => "group_concat(d, ',' ORDER BY d)",
            Backend::Postgres => "string_agg(CAST(d AS TEXT), ',' ORDER BY d)",
        }
    }

    /// Whether statements sent together in one round trip (`store::batch`:
    /// the fused `BEGIN` and lock, the commit with its deferred statements and
    /// outbox rows) take bound values (SQLite) or carry them as literals
    /// (PostgreSQL's simple query; see [`Backend::commit_statement`]).
    pub(crate) fn binds_batch_values(self) -> bool {
        match self {
            Backend::Sqlite => true,
            Backend::Postgres => false,
        }
    }

    /// PostgreSQL: the statements that append one event, each without
    /// literals in its text so that every connection prepares them
    /// ([`super::prepared`]): the transaction's xid taken first, then the row
    /// with its seq (the order [`Backend::commit_statement`] explains), its
    /// values `$1`…`$6` in the order of `OutboxRow::values`; or that row with
    /// the position of the card `$7` written into its data
    /// ([`OutboxRow::position_of`]). SQLite: none (its statements are bound
    /// and kept prepared by sqlx).
    pub(crate) fn one_event_statements(self) -> Option<[&'static str; 3]> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some([
                "SELECT pg_current_xact_id() IS NOT NULL",
                "INSERT INTO events (seq, workspace_id, type, at, data, card_id, other_card_id) \
                 VALUES (nextval('events_seq'), $1, $2, $3, $4, $5, $6)",
                PENDING_INSERT.as_str(),
            ]),
        }
    }

    /// The statement that appends `rows` to the outbox (taking their seqs)
    /// and commits, sent in one round trip.
    ///
    /// SQLite: one multi-row `INSERT` with bound values, then `COMMIT`. The
    /// text depends only on the number of rows, so sqlx keeps both statements
    /// prepared and a write pays no parse for its event. `seq` is the table's
    /// rowid, which SQLite gives as `MAX(seq) + 1`, row by row, under the
    /// database write lock the transaction holds (retention never removes the
    /// newest event).
    ///
    /// PostgreSQL: the simple-query protocol takes several statements in one
    /// message only without parameters, so the values are literals (see
    /// [`literal`]), in one multi-row `INSERT` whose seqs are `nextval` of
    /// `events_seq`, row by row. It first takes the transaction's xid
    /// (`pg_current_xact_id()`, a no-op when a write already took it), so
    /// that the xid is known before the seq: the events' horizon relies on it.
    pub(crate) fn commit_statement(self, rows: &[OutboxRow]) -> String {
        let mut sql = String::new();
        if !rows.is_empty() {
            match self {
                Backend::Sqlite => {
                    // Its moves lock their column up front: no position left
                    // for the commit.
                    debug_assert!(rows.iter().all(|r| r.position_of.is_none()));
                    sql.push_str(&self.insert_statement(rows.len()))
                }
                Backend::Postgres => {
                    sql.push_str(
                        "SELECT pg_current_xact_id() IS NOT NULL; \
                         INSERT INTO events (seq, workspace_id, type, at, data, card_id, \
                                             other_card_id) VALUES ",
                    );
                    let values: Vec<String> = rows
                        .iter()
                        .map(|r| {
                            let [ws, kind, at, data, card, other] =
                                r.values().map(|v| v.map_or_else(|| "NULL".into(), literal));
                            let data = match &r.position_of {
                                Some(card) => with_position(&data, &literal(card.as_ref())),
                                None => data,
                            };
                            format!(
                                "(nextval('events_seq'), {ws}, {kind}, {at}, {data}, {card}, {other})"
                            )
                        })
                        .collect();
                    sql.push_str(&values.join(", "));
                }
            }
            sql.push_str("; ");
        }
        sql.push_str("COMMIT");
        sql
    }

    /// The private events (`notification.created`, api.md §26) of the
    /// notifications of change `$1`: one row each, for its account's streams
    /// alone (`account_id`), its `data` built in SQL as the inbox shows the
    /// notification. SQLite takes each seq as the next rowid; PostgreSQL
    /// from `events_seq`, after the notifications' own `INSERT` took the
    /// transaction's xid (the events' horizon relies on it).
    pub(crate) fn notification_events_sql(self) -> String {
        let (seq, object, json, text) = match self {
            Backend::Sqlite => ("NULL", "json_object", "json", ""),
            Backend::Postgres => ("nextval('events_seq')", "json_build_object", "", "::text"),
        };
        format!(
            "INSERT INTO events (seq, workspace_id, type, at, data, account_id) \
             SELECT {seq}, n.workspace_id, 'notification.created', n.created_at, \
                 {object}('type', 'notification.created', 'tenantId', n.workspace_id, \
                     'at', n.created_at, 'actorId', n.actor_id, 'subject', {object}( \
                         'id', n.id, 'kind', n.kind, 'tenantId', n.workspace_id, \
                         'card', {object}('id', k.id, 'title', k.title, 'columnId', k.column_id), \
                         'actor', {json}(CASE WHEN a.id IS NULL THEN NULL \
                             ELSE {object}('id', a.id, 'name', a.name) END), \
                         'at', n.created_at, 'readAt', n.read_at, 'excerpt', n.excerpt)){text}, \
                 n.account_id \
             FROM notifications n JOIN cards k ON k.id = n.card_id \
             LEFT JOIN accounts a ON a.id = n.actor_id \
             WHERE n.change_key = $1 ORDER BY n.account_id"
        )
    }

    /// The text at `path` (keys from the top) in the JSON text column
    /// `column`, as SQL: `NULL` where there is none.
    pub(crate) fn json_text(self, column: &str, path: &[&str]) -> String {
        match self {
            Backend::Sqlite => format!("json_extract({column}, '$.{}')", path.join(".")),
            Backend::Postgres => {
                let (last, init) = path.split_last().expect("a path");
                let init: String = init.iter().map(|k| format!(" -> '{k}'")).collect();
                format!("({column}::json{init} ->> '{last}')")
            }
        }
    }

    /// The outbox `INSERT` of `n` rows with bound values (SQLite), six
    /// values a row ([`OutboxRow::values`]).
    pub(crate) fn insert_statement(self, n: usize) -> String {
        let values: Vec<String> = (0..n)
            .map(|i| format!("({})", placeholders(6 * i + 1, 6)))
            .collect();
        format!(
            "INSERT INTO events (workspace_id, type, at, data, card_id, other_card_id) VALUES {}",
            values.join(", ")
        )
    }

    /// The last event seq taken: PostgreSQL, the sequence's last value
    /// (committed or not); SQLite, the last seq written (or, with none
    /// retained, the last pruned).
    pub(crate) fn last_seq_sql(self) -> &'static str {
        match self {
            Backend::Postgres => {
                "SELECT CASE WHEN is_called THEN last_value ELSE last_value - 1 END AS s \
                 FROM events_seq"
            }
            Backend::Sqlite => {
                "SELECT COALESCE((SELECT MAX(seq) FROM events), pruned_through) AS s \
                 FROM event_log WHERE id = 1"
            }
        }
    }

    /// The ids of the write transactions running in this database (column
    /// `x`), which may still commit a seq already taken (PostgreSQL); `None`
    /// where writes commit in seq order.
    pub(crate) fn running_writes_sql(self) -> Option<&'static str> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some(
                "SELECT CAST(backend_xid AS TEXT) AS x FROM pg_stat_activity \
                 WHERE datname = current_database() AND backend_xid IS NOT NULL",
            ),
        }
    }

    /// Whether other processes are told of a commit by `NOTIFY board_events`
    /// (PostgreSQL); SQLite's readers poll.
    pub(crate) fn has_notify(self) -> bool {
        match self {
            Backend::Sqlite => false,
            Backend::Postgres => true,
        }
    }

    /// The tables of the schema (without sqlx's `_sqlx_migrations`), column `name`.
    pub(crate) fn schema_tables_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => {
                "SELECT name FROM sqlite_master WHERE type = 'table' \
                 AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name <> '_sqlx_migrations' ORDER BY name"
            }
            Backend::Postgres => {
                "SELECT table_name::text AS name FROM information_schema.tables \
                 WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' \
                 AND table_name <> '_sqlx_migrations' ORDER BY table_name"
            }
        }
    }

    /// The columns of table `$1` in declared order: `name`, `data_type`.
    pub(crate) fn table_columns_sql(self) -> &'static str {
        match self {
            Backend::Sqlite => {
                "SELECT name, type AS data_type FROM pragma_table_info($1) ORDER BY cid"
            }
            Backend::Postgres => {
                "SELECT column_name::text AS name, data_type::text AS data_type \
                 FROM information_schema.columns \
                 WHERE table_schema = current_schema() AND table_name = $1 ORDER BY ordinal_position"
            }
        }
    }

    /// How many sequences the schema keeps besides `events_seq` and
    /// `comments_seq` (column `n`); `None` where the backend has none (SQLite).
    pub(crate) fn other_sequences_sql(self) -> Option<&'static str> {
        match self {
            Backend::Sqlite => None,
            Backend::Postgres => Some(
                "SELECT COUNT(*) AS n FROM information_schema.sequences \
                 WHERE sequence_schema = current_schema() \
                 AND sequence_name NOT IN ('events_seq', 'comments_seq')",
            ),
        }
    }

    /// Starts a read-only transaction that sees one snapshot for every
    /// statement that follows (SQLite: `BEGIN`, whose first read fixes the
    /// snapshot; PostgreSQL: `REPEATABLE READ READ ONLY`).
    pub(crate) fn begin_snapshot(self) -> &'static str {
        match self {
            Backend::Sqlite => "BEGIN",
            Backend::Postgres => "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        }
    }

    /// Whether a move to a column's end takes the column's lock with its
    /// commit (`Lock::ColumnGate`, then `column_version_bump` in the commit's
    /// round trip), so that moves into one column queue only through each
    /// other's commit: PostgreSQL. SQLite holds its one write lock from
    /// `BEGIN IMMEDIATE` anyway, and takes the column's lock at once
    /// (`Lock::ColumnIn`).
    pub(crate) fn locks_column_at_commit(self) -> bool {
        match self {
            Backend::Sqlite => false,
            Backend::Postgres => true,
        }
    }

    /// A big read (`store::big_read`) of `columns` (plain names) `from`
    /// (`FROM … WHERE …`) by `order` as one JSON text, where that is cheaper
    /// than its rows: on SQLite, the rows as one JSON array of arrays, each a
    /// row's columns in order (`[]` for none), one row instead of thousands
    /// that each cross from the connection's thread. None on PostgreSQL.
    pub(crate) fn big_read_json_sql(
        self,
        columns: &str,
        from: &str,
        order: &str,
    ) -> Option<String> {
        match self {
            Backend::Sqlite => Some(format!(
                "SELECT json_group_array(json_array({columns}) ORDER BY {order}) {from}"
            )),
            Backend::Postgres => None,
        }
    }

    /// The gate of column sets (PostgreSQL): a transaction-scoped advisory
    /// lock per set ([`SET_GATE`], the hash of the set's id), taken in the
    /// order of the keys, exclusive for every writer of a set
    /// (`Lock::ColumnSet(s)`, `shared` false), shared for a move to a column's
    /// end (`Lock::ColumnIn`). Its row lock would do the same but for
    /// fairness: PostgreSQL lets a new sharer of a row in while a writer waits
    /// for the sharers before it (a card creation waited 5 s behind a burst of
    /// moves), where its lock manager queues a shared request behind a waiting
    /// exclusive one. Returns the `WITH` clause (ending in a space) and the
    /// condition that makes a statement wait for the gate before it reads
    /// anything (an uncorrelated sub-select, run once, first); `placeholders`
    /// are the sets' `$N`. SQLite: no gate (its write lock serializes every
    /// writer), and the condition that the sets exist.
    pub(crate) fn set_gate_sql(self, shared: bool, placeholders: &[String]) -> (String, String) {
        let list = placeholders.join(", ");
        match self {
            Backend::Sqlite => (
                String::new(),
                format!("EXISTS (SELECT 1 FROM column_sets WHERE id IN ({list}))"),
            ),
            Backend::Postgres => {
                let take = match shared {
                    true => "pg_advisory_xact_lock_shared",
                    false => "pg_advisory_xact_lock",
                };
                (
                    format!(
                        "WITH gate AS (SELECT {take}({SET_GATE}, hashtext(x)) FROM \
                         (SELECT x FROM unnest(ARRAY[{list}]::text[]) AS u(x) ORDER BY hashtext(x)) k) "
                    ),
                    "(SELECT COUNT(*) FROM gate) > 0".to_string(),
                )
            }
        }
    }

    /// Whether `e` is SQLite's refusal of a string longer than its limit
    /// (`SQLITE_TOOBIG`, 18).
    pub(crate) fn is_too_big(self, e: &sqlx::Error) -> bool {
        let code = e.as_database_error().and_then(|d| d.code());
        self == Backend::Sqlite && code.as_deref() == Some("18")
    }
}

/// PostgreSQL: the event with its values `$1`…`$6` whose data takes the
/// position of the card `$7` ([`Backend::one_event_statements`]).
static PENDING_INSERT: LazyLock<String> = LazyLock::new(|| {
    format!(
        "INSERT INTO events (seq, workspace_id, type, at, data, card_id, other_card_id) \
         VALUES (nextval('events_seq'), $1, $2, $3, {}, $5, $6)",
        with_position("$4", "$7")
    )
});

/// The event data `data` (an expression) with the position of the card
/// `card` (an expression) written where it holds [`PENDING_POSITION_JSON`]
/// ([`OutboxRow::position_of`]): a JSON string cannot hold that text
/// unescaped, so only the key is replaced.
fn with_position(data: &str, card: &str) -> String {
    format!(
        "replace({data}, {}, '\"position\":' || \
         (SELECT CAST(position AS TEXT) FROM cards WHERE id = {card}))",
        literal(PENDING_POSITION_JSON)
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::WorkspaceId;

    /// The crate's sources outside this file, with their paths.
    fn other_sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                other_sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") && !path.ends_with("dialect.rs") {
                let text = std::fs::read_to_string(&path).unwrap();
                out.push((path.display().to_string(), text));
            }
        }
    }

    /// This file is the one place that matches on the backend (its module
    /// comment, ARCHITECTURE.md): no other source names a backend's variant
    /// in a match arm or compares a backend with one.
    #[test]
    fn no_other_file_matches_on_the_backend() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut sources = Vec::new();
        other_sources(&src, &mut sources);
        assert!(sources.len() > 50, "the crate's sources: {}", sources.len());
        let arms = ["Backend::Sqlite =>", "Backend::Postgres =>"];
        let compares = ["== Backend::", "!= Backend::", "matches!(backend"];
        for (path, text) in &sources {
            for needle in arms.iter().chain(&compares) {
                assert!(
                    !text.contains(needle),
                    "{path} has `{needle}`: ask a method of `Backend` in store/dialect.rs"
                );
            }
        }
    }

    #[test]
    fn sqlite_binds_every_change_of_a_commit() {
        let c = || OutboxRow {
            workspace: WorkspaceId::from_db("w".into()),
            kind: "card.deleted",
            data: "{}".into(),
            at: crate::time::Timestamp::from_millis(0),
            position_of: None,
            card: None,
            other_card: None,
        };
        assert_eq!(Backend::Sqlite.commit_statement(&[]), "COMMIT");
        assert_eq!(
            Backend::Sqlite.commit_statement(&[c(), c()]),
            "INSERT INTO events (workspace_id, type, at, data, card_id, other_card_id) \
             VALUES ($1, $2, $3, $4, $5, $6), ($7, $8, $9, $10, $11, $12); COMMIT"
        );
    }

    /// A row whose card takes its position in the commit gets it written
    /// into its data there, in the multi-row text as in the prepared one.
    #[test]
    fn a_pending_position_is_written_by_the_commit() {
        let json = serde_json::json!({"subject": {"position": super::super::PENDING_POSITION}});
        assert!(json.to_string().contains(PENDING_POSITION_JSON));
        let row = |card: Option<&str>| OutboxRow {
            workspace: WorkspaceId::from_db("w".into()),
            kind: "card.moved",
            data: json.to_string(),
            at: crate::time::Timestamp::from_millis(0),
            position_of: card.map(|c| crate::ids::CardId::from_db(c.into())),
            card: None,
            other_card: None,
        };
        let sql = Backend::Postgres.commit_statement(&[row(None), row(Some("k1"))]);
        assert_eq!(sql.matches("replace(").count(), 1, "{sql}");
        assert!(
            sql.contains(&format!(
                "replace({}, {}, '\"position\":' || \
                 (SELECT CAST(position AS TEXT) FROM cards WHERE id = E'k1'))",
                literal(&json.to_string()),
                literal(PENDING_POSITION_JSON)
            )),
            "{sql}"
        );
        let [_, _, pending] = Backend::Postgres.one_event_statements().unwrap();
        assert!(
            pending.contains(&literal(PENDING_POSITION_JSON)),
            "{pending}"
        );
        assert!(pending.contains("FROM cards WHERE id = $7"), "{pending}");
    }
}
