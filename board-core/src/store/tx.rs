//! The write transaction ([`WriteTx`]) and its locks ([`Lock`]).
//!
//! **Locked by construction.** A `WriteTx` is opened only by an operation, through `Board`:
//! `Board::write(Lock::…)` (with the lock it decides under: `begin_locked`), then `tx.lock(…)`
//! for more; `Board::write_unlocked()` (`begin`: a change that decides nothing another writer
//! changes, backed by unique and foreign keys); or `Board::write_at_commit()`
//! (`begin_at_commit`: a change that only adds rows guarded by their foreign keys). SQLite:
//! `BEGIN IMMEDIATE`, after this process's earlier writers (`queue.rs`), so each lock is only
//! an existence check. PostgreSQL: `BEGIN`, then `… FOR NO KEY UPDATE` on the locked row(s); a
//! missing row is the lock's 404 (403 for settings). A `WriteTx` dropped without its commit
//! rolls back before the next turn; unique indexes and foreign keys are the backstop.
//!
//! **Lock order.** Parent first: workspace and settings, then column sets in id order
//! (`Lock::ColumnSets` locks several in one statement; `ColumnIn` and `ColumnGate` share
//! their sets' gate), then a card, then a webhook. A lock out of order is `Error::Internal`,
//! in release builds too (`a_lock_out_of_order_is_an_error`).
//!
//! **Versions.** Every lock statement advances its row's `version` (`UPDATE … SET version =
//! version + 1 … RETURNING … version - 1`): the same one statement and row lock, and the
//! version returned is what an `If-Match` compares under the lock (api.md §22). Two bumps of
//! one row are serialized by its lock, so a version only grows, in commit order. Every table a
//! `Lock` names has a `version` column; `Lock::ColumnIn` advances `column_versions.version`.
//!
//! **Round trips.** Every statement is a round trip (SQLite: a hop to sqlx's connection
//! thread, paid inside the write lock by every writer queued behind it; PostgreSQL: the
//! network). So `begin_locked` sends `BEGIN` with its first lock and the read that decides
//! under it, where `Backend::fuses_begin_with_lock` says so; a failed fused send leaves the
//! connection to `Drop`'s `ROLLBACK`, which closes it when that fails. Statements whose answer
//! nobody reads are deferred ([`WriteTx::defer`]) and sent by `commit` with the outbox rows
//! and `COMMIT`, in one round trip; `commit_reading` returns what they answered (a
//! `RETURNING`).
//!
//! **The rule of deferred statements**: defer only what nothing after it reads, and once
//! something is deferred, run nothing more on the connection (it would run before them; debug
//! builds panic). They run in the order queued, before the outbox `INSERT`, after every lock
//! and every read that decided, so they never move a check. One that fails fails the commit:
//! the transaction rolls back whole (no row, no event, no version advanced) and the operation
//! returns `Error::Database`; so only statements that hit no constraint a rule maps (such as
//! `cards_position`) are deferred. Tests: `deferred_statements_run_in_order_at_the_commit`,
//! `a_failing_deferred_statement_rolls_back_everything`.
//!
//! A write opened by `begin_at_commit` may only defer: its `BEGIN` goes with its deferred
//! statements, events and `COMMIT`, one round trip in all; dropped before its commit, it sent
//! nothing. On SQLite it takes no connection and no turn: its commit joins the next turn's
//! group (`queue.rs`).
//!
//! **What each write locks**, and decides under the lock:
//!
//! - `update_settings`: `Lock::Settings`; the current settings, merged with the patch.
//! - column writes (create, update, reorder, delete): `Lock::Workspace`, then
//!   `Lock::ColumnSet` (`Board::write_columns`; the workspace's version keys the processes'
//!   column listings); the set's size, positions and done mark, a `MOVE` target with its hard
//!   WIP limit and count; a deletion with `DELETE` also locks the column's cards.
//! - `create_card`: `Lock::ColumnSet` of the set in effect; the target column, its WIP room,
//!   the last position or the anchor and its neighbour.
//! - a card's update without a `columnId` or with a placement, archive, restore:
//!   `Lock::ColumnSets` (its current set and its set in effect); the card re-read, the
//!   target's room, the anchor and its neighbour.
//! - an update with a `columnId` and no placement (a move to that column's end, with or
//!   without a rename): `Lock::ColumnIn`, or `Lock::ColumnGate` on PostgreSQL
//!   (`cards/write.rs`); the card, the target's name, room and end.
//! - `delete_card`: the card's sets, then `Lock::CardDeleted`; its files, its comments' words.
//! - a comment without images: no lock (`write_at_commit`); its card's foreign key guards it.
//! - a comment with images, a comment's edit or deletion, uploads, an attachment's deletion:
//!   `Lock::Card`; the bound and loose images, the card still there.
//! - links: `Lock::Workspace`; the pair and the cycle walk.
//! - a webhook's update or deletion: `Lock::Webhook`; its `active` and position. The delivery
//!   worker's own writes carry its lease condition instead (`webhooks/deliver.rs`).
//! - workspaces, projects, accounts, tokens, members, `bootstrap`, token revocation, the
//!   sweep: `write_unlocked()`; every row is new, or the change is one statement, and unique
//!   names and foreign keys are the backstop.

use std::sync::Arc;

use sqlx::any::AnyRow;
use sqlx::{AnyConnection, Row};
use tokio::sync::OwnedMutexGuard;

use super::batch::{Batch, Deferred};
use super::checkpoint::Commits;
use super::outbox::{self, OnCommit, OutboxRow};
use super::prepared::Prepared;
use super::queue::{committed, WriteQueue};
use super::value::Value;
use super::{Backend, Conn, Conns};
use crate::error::{Error, Result};
use crate::ids::{CardId, ColumnId, ColumnSetId, WebhookId, WorkspaceId};

/// The only kind of transaction that changes data, and the locks it holds.
///
/// It is opened by `Board::write` together with the lock its operation
/// decides under, or by `Board::write_unlocked` for changes that need
/// no parent row (creations backed by a unique or foreign key). Every
/// dialect-aware step of a write is a method here, so no operation passes the
/// backend around.
///
/// SQLite: `BEGIN IMMEDIATE` takes the database write lock up front, so two
/// writers never deadlock on a lock upgrade (SQLITE_BUSY 5/517) and each lock
/// below is only an existence check. PostgreSQL: `BEGIN`, then `SELECT … FOR NO
/// KEY UPDATE` on the locked row: writers of the same parent queue on it, while
/// inserts that only reference the row through a foreign key go on.
///
/// It dereferences to the connection, so statements run on `&mut *tx`.
///
/// A statement whose answer nobody reads can instead be deferred
/// ([`WriteTx::defer`]): it is sent with the outbox rows and `COMMIT`, in the
/// commit's one round trip. The rule: defer only what nothing after it reads,
/// and run nothing on the connection once something is deferred (that
/// statement would run before the deferred ones; debug builds panic).
pub(crate) struct WriteTx {
    /// `None` only once committed or handed to the rollback on drop.
    tx: Option<Conn>,
    backend: Backend,
    /// The rank of the last lock taken: locks are taken parent first.
    held: u8,
    /// SQLite: this process's turn to write, taken in arrival order.
    turn: Option<OwnedMutexGuard<()>>,
    /// SQLite: told of the commit, for the checkpoint task.
    commits: Option<Arc<Commits>>,
    /// The change's events, written just before `COMMIT`.
    events: Vec<OutboxRow>,
    /// Statements sent with the commit, in order, before the events.
    deferred: Vec<Deferred>,
    /// Told of a committed event.
    on_commit: Arc<dyn OnCommit>,
    /// Whether `BEGIN` was sent: a transaction opened by
    /// [`WriteTx::begin_at_commit`] sends it with its commit.
    begun: bool,
    /// SQLite, a write that sends nothing before its commit: the queue its
    /// commit joins ([`WriteQueue::commit_grouped`]); it holds no connection
    /// and no turn until then.
    grouped: Option<WriteQueue>,
    /// PostgreSQL: what every connection prepared, run by name in batches.
    prepared: Arc<Prepared>,
}

/// A row a write transaction locks before it reads what decides its change.
///
/// Ranks give the one order in which locks are taken (workspace and settings,
/// then column sets in id order, then a card), so two writers never wait on
/// each other crosswise.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Lock<'a> {
    /// A workspace row: the links between its cards, its labels, a member's
    /// removal (which unassigns it from the cards), and its columns (taken
    /// before their set's: the version keys the processes' column listings).
    Workspace(&'a WorkspaceId),
    /// A workspace's settings row: the settings themselves.
    Settings(&'a WorkspaceId),
    /// A column set: its columns, their order, the done mark and the cards in them.
    ColumnSet(&'a ColumnSetId),
    /// Several column sets, locked in id order (a card's current set and its set
    /// in effect).
    ColumnSets(&'a [ColumnSetId]),
    /// One column, for a card moved to its end: the column's row of
    /// `column_versions` (its end and its WIP count), after its `sets`' gate
    /// shared (PostgreSQL advisory locks, taken first), so that moves into
    /// different columns of one set run at once while every writer of
    /// `ColumnSet(s)`, which takes the gate exclusive, waits for them and
    /// they for it, in arrival order. Advances the column's version, not the
    /// sets'.
    ColumnIn {
        /// The sets shared: the card's current set and its set in effect.
        sets: &'a [ColumnSetId],
        /// The column locked.
        column: &'a ColumnId,
    },
    /// [`Lock::ColumnIn`] with the column's row left for the commit
    /// (PostgreSQL): the `sets`' gate shared and the column kept from being
    /// deleted (`FOR KEY SHARE`), so that a move to its end decides everything
    /// but its place here, and locks the column, advances its version and
    /// takes the end in the commit's round trip ([`column_version_bump`]):
    /// moves into one column then queue only through each other's commit.
    ColumnGate {
        /// The sets shared: the card's current set and its set in effect.
        sets: &'a [ColumnSetId],
        /// The column kept.
        column: &'a ColumnId,
    },
    /// A card row: its comments and attachments (a plain new comment takes
    /// no lock: [`WriteTx::begin_at_commit`]).
    Card(&'a CardId),
    /// [`Lock::Card`] for the card's deletion, taken as the deletion will take
    /// the row (PostgreSQL `FOR UPDATE`, which a comment's foreign-key check
    /// waits for): a comment in flight on the card commits first, and a later
    /// one waits and then finds no card, so the deletion sees every comment
    /// the card will lose.
    CardDeleted(&'a CardId),
    /// A webhook row: its state and delivery position (api.md §18).
    Webhook(&'a WebhookId),
}

impl Lock<'_> {
    fn rank(&self) -> u8 {
        match self {
            Lock::Workspace(_) | Lock::Settings(_) => 0,
            Lock::ColumnSet(_)
            | Lock::ColumnSets(_)
            | Lock::ColumnIn { .. }
            | Lock::ColumnGate { .. } => 1,
            Lock::Card(_) | Lock::CardDeleted(_) => 2,
            Lock::Webhook(_) => 3,
        }
    }

    /// The error when the locked row does not exist.
    fn missing(&self) -> Error {
        match self {
            Lock::Workspace(_) => Error::NotFound("workspace"),
            // A body's tenantId that names no workspace is 403, never 404.
            Lock::Settings(_) => Error::not_reached(),
            Lock::ColumnSet(_) | Lock::ColumnSets(_) => Error::NotFound("column set"),
            Lock::ColumnIn { .. } | Lock::ColumnGate { .. } => Error::NotFound("column"),
            Lock::Card(_) | Lock::CardDeleted(_) => Error::NotFound("card"),
            Lock::Webhook(_) => Error::NotFound("webhook"),
        }
    }
}

impl WriteTx {
    /// Opens a write transaction that holds no lock yet (SQLite: after this
    /// process's earlier writers, in arrival order).
    pub(crate) async fn begin(
        pool: &Conns,
        backend: Backend,
        queue: &WriteQueue,
        on_commit: Arc<dyn OnCommit>,
    ) -> Result<WriteTx> {
        // BEGIN and COMMIT are sent here rather than through sqlx's
        // `Transaction`, so that the change's events ride with the COMMIT in
        // one round trip (see `commit`).
        let mut tx = WriteTx::open(pool, backend, queue, on_commit).await?;
        let conn = tx.tx.as_deref_mut().expect("an open transaction");
        sqlx::raw_sql(backend.begin_write()).execute(conn).await?;
        tx.begun = true;
        Ok(tx)
    }

    /// Opens a write transaction that sends nothing until its commit: its
    /// `BEGIN` goes with the deferred statements, the events and `COMMIT`, in
    /// one round trip (SQLite: in this process's write turn, taken here). For
    /// a change that only adds rows and decides nothing from rows other
    /// writers change: it takes no lock, and the foreign keys of the rows it
    /// adds guard what they need (PostgreSQL: an `INSERT` locks the rows it
    /// references `FOR KEY SHARE`, which a `DELETE` waits for). It may only
    /// defer statements ([`WriteTx::defer`]; debug builds panic otherwise).
    /// On SQLite it takes no connection and no turn: its commit joins the
    /// next turn's group ([`WriteQueue::commit_grouped`]).
    pub(crate) async fn begin_at_commit(
        pool: &Conns,
        backend: Backend,
        queue: &WriteQueue,
        on_commit: Arc<dyn OnCommit>,
    ) -> Result<WriteTx> {
        if !backend.is_embedded() {
            return WriteTx::open(pool, backend, queue, on_commit).await;
        }
        let mut tx = WriteTx::unsent(backend, queue, on_commit);
        tx.grouped = Some(queue.clone());
        Ok(tx)
    }

    /// A transaction that holds a connection (and, SQLite, this process's
    /// turn to write, after its earlier writers) and has sent nothing yet.
    async fn open(
        pool: &Conns,
        backend: Backend,
        queue: &WriteQueue,
        on_commit: Arc<dyn OnCommit>,
    ) -> Result<WriteTx> {
        let turn = queue.wait(backend).await;
        let conn = pool.acquire().await?;
        let (turn, commits) = turn.map(|t| (t.guard, t.commits)).unzip();
        let mut tx = WriteTx::unsent(backend, queue, on_commit);
        (tx.tx, tx.turn, tx.commits) = (Some(conn), turn, commits);
        Ok(tx)
    }

    /// A transaction that holds nothing and has sent nothing.
    fn unsent(backend: Backend, queue: &WriteQueue, on_commit: Arc<dyn OnCommit>) -> WriteTx {
        WriteTx {
            tx: None,
            backend,
            held: 0,
            turn: None,
            commits: None,
            events: Vec::new(),
            deferred: Vec::new(),
            on_commit,
            begun: false,
            grouped: None,
            prepared: queue.prepared.clone(),
        }
    }

    /// Opens a write transaction, takes its first lock ([`WriteTx::lock`])
    /// and runs `read`, the read that decides under it (if any), in one round
    /// trip where the backend fuses them ([`Backend::fuses_begin_with_lock`]).
    /// Returns the version the (first) locked row had and the rows `read`
    /// answered.
    pub(crate) async fn begin_locked(
        pool: &Conns,
        backend: Backend,
        queue: &WriteQueue,
        on_commit: Arc<dyn OnCommit>,
        lock: Lock<'_>,
        read: Option<&Deferred>,
    ) -> Result<(WriteTx, i64, Vec<AnyRow>)> {
        if !backend.fuses_begin_with_lock() {
            let mut tx = WriteTx::begin(pool, backend, queue, on_commit).await?;
            let version = tx.lock(lock).await?;
            let rows = match read {
                Some(read) => read.fetch_all(tx.conn()).await?,
                None => Vec::new(),
            };
            return Ok((tx, version, rows));
        }
        let mut tx = WriteTx::open(pool, backend, queue, on_commit).await?;
        // From here on `Drop` rolls back: the fused send may fail after its
        // `BEGIN` (and a `ROLLBACK` that finds no transaction closes the
        // connection), so no connection goes back inside a transaction.
        tx.begun = true;
        tx.held = lock.rank();
        let statement = lock_statement(backend, lock);
        let prepared = tx.prepared.clone();
        let mut batch = Batch::new(backend.binds_batch_values(), Some(&prepared));
        batch.push(backend.begin_write(), &[])?;
        let values: Vec<Value> = statement.binds.iter().map(Value::text).collect();
        batch.push(&statement.sql, &values)?;
        if let Some(read) = read {
            batch.push(&read.sql, &read.values)?;
        }
        let rows = batch.fetch_all(tx.conn()).await?;
        // The lock's rows come first, each with its two columns.
        let (locked, read): (Vec<AnyRow>, Vec<AnyRow>) = rows
            .into_iter()
            .partition(|r| r.columns().len() == 2 && r.try_column(LOCKED_VERSION).is_ok());
        let version = statement.locked_version(&locked, lock)?;
        Ok((tx, version, read))
    }

    fn conn(&mut self) -> &mut AnyConnection {
        debug_assert!(
            self.deferred.is_empty(),
            "a statement run after a deferred one would run before it: defer it too"
        );
        debug_assert!(
            self.begun,
            "a transaction opened by begin_at_commit sends BEGIN with its commit: defer"
        );
        self.tx.as_deref_mut().expect("an open transaction")
    }

    /// Queues a statement whose answer nobody reads, sent in order with the
    /// commit's round trip (before the events). Defer only what nothing after
    /// it reads; once something is deferred, every later statement of the
    /// transaction must be deferred too. A deferred statement that fails
    /// fails the commit: the whole transaction rolls back.
    pub(crate) fn defer(&mut self, statement: Deferred) {
        self.deferred.push(statement);
    }

    /// Sends `statements` now, in order, in one round trip, and returns the
    /// rows they answered.
    pub(crate) async fn send(&mut self, statements: &[Deferred]) -> Result<Vec<AnyRow>> {
        let prepared = self.prepared.clone();
        let mut batch = Batch::new(self.backend.binds_batch_values(), Some(&prepared));
        for s in statements {
            batch.push(&s.sql, &s.values)?;
        }
        batch.fetch_all(self.conn()).await
    }

    /// Locks one more row for the rest of the transaction, after the locks
    /// already held (parent first), and advances its `version` in the same
    /// statement (api.md §22: a payload guarded by the row gets a new tag with
    /// every committed change made under its lock). A row that does not exist
    /// is the lock's not-found error. Returns the version the (first) locked row
    /// had before this transaction: what a precondition compares, under the lock.
    pub(crate) async fn lock(&mut self, lock: Lock<'_>) -> Result<i64> {
        if lock.rank() < self.held {
            return Err(Error::Internal(format!(
                "locks are taken parent first; {lock:?} comes too late"
            )));
        }
        self.held = lock.rank();
        let statement = lock_statement(self.backend, lock);
        let mut q = sqlx::query(sqlx::AssertSqlSafe(statement.sql.as_str()));
        for id in &statement.binds {
            q = q.bind(*id);
        }
        let rows: Vec<AnyRow> = q.fetch_all(self.conn()).await?;
        statement.locked_version(&rows, lock)
    }

    /// Locks every card of a column before they are deleted with it (PostgreSQL;
    /// SQLite already holds the write lock): uploads and comments in flight on
    /// those cards finish first, so the files they add are seen and removed too.
    pub(crate) async fn lock_column_cards(&mut self, column: &ColumnId) -> Result<()> {
        if let Some(sql) = self.backend.lock_column_cards_sql() {
            sqlx::query(sql).bind(column).execute(self.conn()).await?;
        }
        Ok(())
    }

    /// Makes the rest of the transaction join through indexes only (PostgreSQL
    /// `SET LOCAL`; nothing on SQLite). For recursive walks such as the relation
    /// cycle check: the planner, guessing a few rows per step, would otherwise
    /// hash-join a full scan of the table at every step of a deep walk.
    pub(crate) async fn index_joins_only(&mut self) -> Result<()> {
        if let Some(sql) = self.backend.index_joins_only_sql() {
            sqlx::query(sql).execute(self.conn()).await?;
        }
        Ok(())
    }

    /// Keeps every other writer out of `tables` until the transaction ends, so
    /// that a check that they are empty holds until the commit (PostgreSQL
    /// `LOCK TABLE … IN EXCLUSIVE MODE`, reads go on; SQLite already holds the
    /// database write lock).
    pub(crate) async fn lock_tables(&mut self, tables: &[&str]) -> Result<()> {
        if let Some(sql) = self.backend.lock_tables_sql(tables) {
            sqlx::raw_sql(sqlx::AssertSqlSafe(sql))
                .execute(self.conn())
                .await?;
        }
        Ok(())
    }

    /// An SQL expression giving a fresh id of the cuid2 shape
    /// (`[a-z][a-z0-9]{23}`) for each row of a set-based insert, where ids
    /// cannot come from Rust one by one.
    pub(crate) fn new_id_sql(&self) -> &'static str {
        self.backend.new_id_sql()
    }

    /// The backend the transaction runs on, for a statement whose text
    /// differs by backend (built by a `Backend` method).
    pub(crate) fn backend(&self) -> Backend {
        self.backend
    }

    /// Makes event seqs and comment seqs continue after every seq in their
    /// tables (or pruned), once rows were copied in with their seqs:
    /// PostgreSQL moves the sequences `events_seq` and `comments_seq` on;
    /// SQLite's next seqs are `MAX(seq) + 1` anyway.
    pub(crate) async fn continue_event_seqs(&mut self) -> Result<()> {
        if let Some(sql) = self.backend.continue_event_seqs_sql() {
            sqlx::query(sql).execute(self.conn()).await?;
        }
        Ok(())
    }

    /// Records an event of the change (api.md §11), written to the outbox
    /// with the change when it commits.
    pub(crate) fn emit(&mut self, row: OutboxRow) {
        self.events.push(row);
    }

    /// Runs the deferred statements, writes the change's events and commits,
    /// in one round trip (all of them and `COMMIT` sent together), then releases every
    /// lock (and the next writer's turn) and tells this process's feed.
    pub(crate) async fn commit(self) -> Result<()> {
        self.commit_reading().await.map(drop)
    }

    /// [`WriteTx::commit`], returning the rows its deferred statements
    /// answered (a `RETURNING` clause), in order.
    pub(crate) async fn commit_reading(mut self) -> Result<Vec<AnyRow>> {
        let events = std::mem::take(&mut self.events);
        let mut deferred = std::mem::take(&mut self.deferred);
        if let Some(queue) = self.grouped.take() {
            // Its statements answer nothing.
            let on_commit = self.on_commit.clone();
            queue.commit_grouped(deferred, events, on_commit).await?;
            return Ok(Vec::new());
        }
        if !self.begun {
            // From here on a failure rolls back (`Drop`).
            deferred.insert(0, Deferred::new(self.backend.begin_write(), Vec::new()));
            self.begun = true;
        }
        let mut tx = self.tx.take().expect("an open transaction");
        let sent = outbox::commit(self.backend, &deferred, &events, &self.prepared, &mut tx).await;
        let rows = match sent {
            Ok(rows) => rows,
            Err(e) => {
                // Rolled back by `Drop`, before the next writer's turn.
                self.tx = Some(tx);
                return Err(e);
            }
        };
        // The connection is given back before the turn goes to the next
        // writer, which then takes it warm.
        committed(tx, self.commits.take().as_deref(), &self.on_commit, &events);
        drop(self.turn.take());
        Ok(rows)
    }
}

/// The column of a lock's row that holds the version it had: named so that a
/// read sent with the lock never answers rows that look like the lock's.
const LOCKED_VERSION: &str = "locked_version";

impl Backend {
    /// The statements every connection prepares (PostgreSQL; none on SQLite,
    /// whose batches bind their values): `texts`, the crate's hot fused and
    /// deferred statements, with the store's own (the locks, one event).
    pub(crate) fn prepared(self, texts: Vec<String>) -> Prepared {
        if self.binds_batch_values() {
            return Prepared::default();
        }
        let mut all = lock_statements(self);
        all.extend(
            self.one_event_statements()
                .into_iter()
                .flatten()
                .map(String::from),
        );
        all.extend(texts);
        Prepared::new(all)
    }
}

/// The texts of the lock statements a write may fuse with its `BEGIN`: one
/// row of each kind, and two column sets (a card's set and its set in
/// effect), or a column with one or two sets shared, for the statements every
/// connection prepares.
fn lock_statements(backend: Backend) -> Vec<String> {
    let ws = WorkspaceId::from_db("w".into());
    let sets = [
        ColumnSetId::from_db("a".into()),
        ColumnSetId::from_db("b".into()),
    ];
    let card = CardId::from_db("c".into());
    let hook = WebhookId::from_db("h".into());
    let column = ColumnId::from_db("k".into());
    [
        Lock::Workspace(&ws),
        Lock::Settings(&ws),
        Lock::ColumnSet(&sets[0]),
        Lock::ColumnSets(&sets),
        Lock::ColumnIn {
            sets: &sets[..1],
            column: &column,
        },
        Lock::ColumnIn {
            sets: &sets,
            column: &column,
        },
        Lock::ColumnGate {
            sets: &sets[..1],
            column: &column,
        },
        Lock::ColumnGate {
            sets: &sets,
            column: &column,
        },
        Lock::Card(&card),
        Lock::CardDeleted(&card),
        Lock::Webhook(&hook),
    ]
    .into_iter()
    .map(|lock| lock_statement(backend, lock).sql)
    .collect()
}

/// The statement of a [`Lock`] (see [`WriteTx::lock`]).
struct LockStatement<'a> {
    /// Its text.
    sql: String,
    /// The ids its `$1`, `$2`, … bind, the first one the locked row whose
    /// version a precondition compares.
    binds: Vec<&'a str>,
    /// The key column of the rows it returns.
    key: &'static str,
    /// How many rows it returns when every row it locks exists.
    rows: usize,
}

impl LockStatement<'_> {
    /// The version the first bound id's row had before the statement advanced
    /// it; a row missing from `rows` is `lock`'s not-found error.
    fn locked_version(&self, rows: &[AnyRow], lock: Lock<'_>) -> Result<i64> {
        if rows.len() != self.rows {
            return Err(lock.missing());
        }
        let first = rows.iter().find_map(|r| {
            let k: String = r.try_get(self.key).ok()?;
            (k == self.binds[0]).then(|| r.try_get::<i64, _>(LOCKED_VERSION).ok())?
        });
        Ok(first.unwrap_or_default())
    }
}

/// The statement of `lock`, its ids sorted.
fn lock_statement<'a>(backend: Backend, lock: Lock<'a>) -> LockStatement<'a> {
    let suffix = match lock {
        Lock::CardDeleted(_) => backend.row_delete_lock_suffix(),
        _ => backend.row_lock_suffix(),
    };
    let (table, key, ids): (&str, &str, Vec<&str>) = match lock {
        Lock::Workspace(id) => ("workspaces", "id", vec![id.as_ref()]),
        Lock::Settings(id) => ("settings", "workspace_id", vec![id.as_ref()]),
        Lock::ColumnSet(id) => ("column_sets", "id", vec![id.as_ref()]),
        Lock::ColumnSets(ids) => {
            let mut ids: Vec<&str> = ids.iter().map(AsRef::as_ref).collect();
            ids.sort_unstable();
            ids.dedup();
            ("column_sets", "id", ids)
        }
        Lock::Card(id) | Lock::CardDeleted(id) => ("cards", "id", vec![id.as_ref()]),
        Lock::Webhook(id) => ("webhooks", "id", vec![id.as_ref()]),
        Lock::ColumnIn { sets, column } => return column_in_statement(backend, sets, column, true),
        Lock::ColumnGate { sets, column } => {
            return column_in_statement(backend, sets, column, false)
        }
    };
    let placeholders = super::placeholder_list(1, ids.len());
    // A set's writers pass its gate first (exclusive), so that moves to a
    // column's end, which only share it, never keep them waiting for long.
    let (gate, passed) = match table {
        "column_sets" => backend.set_gate_sql(false, &placeholders),
        _ => (String::new(), "TRUE".to_string()),
    };
    // PostgreSQL locks the rows in the order the inner SELECT returns them
    // (by key), then the UPDATE advances their versions: one statement, as
    // the plain lock was. The UPDATE changes no key column, so it holds the
    // same FOR NO KEY UPDATE lock.
    let sql = format!(
        "{gate}UPDATE {table} SET version = version + 1 WHERE {key} IN \
         (SELECT {key} FROM {table} WHERE {key} IN ({}) AND {passed} ORDER BY {key}{suffix}) \
         RETURNING {key}, version - 1 AS {LOCKED_VERSION}",
        placeholders.join(", ")
    );
    LockStatement {
        sql,
        rows: ids.len(),
        binds: ids,
        key,
    }
}

/// The statement of [`Lock::ColumnIn`] (`versioned`) or
/// [`Lock::ColumnGate`]: `$1` the column, then its sets, sorted. It shares
/// the sets' gate ([`Backend::set_gate_sql`], before it reads the column), keeps the
/// column from being deleted (`FOR KEY SHARE`, which a concurrent deletion's
/// row makes skip: no row, the lock's not-found), then, `versioned`, locks
/// and advances the column's row of `column_versions` (inserted by its first
/// lock): sets first, then the column, the order every writer takes them in.
/// Nothing references `column_versions`, so no foreign-key check waits on
/// its rows (migration 0016).
fn column_in_statement<'a>(
    backend: Backend,
    sets: &'a [ColumnSetId],
    column: &'a ColumnId,
    versioned: bool,
) -> LockStatement<'a> {
    let mut shared: Vec<&str> = sets.iter().map(AsRef::as_ref).collect();
    shared.sort_unstable();
    shared.dedup();
    let placeholders = super::placeholder_list(2, shared.len());
    let (gate, passed) = backend.set_gate_sql(true, &placeholders);
    let kept = format!(
        "SELECT id FROM columns WHERE id = $1 AND {passed}{}",
        backend.key_share_suffix()
    );
    let sql = match versioned {
        true => format!(
            "{gate}INSERT INTO column_versions (column_id, version) \
             SELECT c.id, 1 FROM ({kept}) c \
             WHERE TRUE ON CONFLICT (column_id) DO UPDATE SET version = column_versions.version + 1 \
             RETURNING column_id AS id, version - 1 AS {LOCKED_VERSION}"
        ),
        false => format!("{gate}SELECT c.id, 0 AS {LOCKED_VERSION} FROM ({kept}) c"),
    };
    let mut binds = vec![column.as_ref()];
    binds.extend(shared);
    // The column's row alone: its sets are only shared.
    LockStatement {
        sql,
        binds,
        key: "id",
        rows: 1,
    }
}

/// The text of [`column_version_bump`].
pub(crate) const COLUMN_VERSION_SQL: &str =
    "INSERT INTO column_versions (column_id, version) VALUES ($1, 1) \
     ON CONFLICT (column_id) DO UPDATE SET version = column_versions.version + 1";

/// The column lock a [`Lock::ColumnGate`] left for the commit: locks the
/// column's row of `column_versions` and advances its version, deferred
/// ([`WriteTx::defer`]) before the statements that read the column's end,
/// which then see every move that locked the row before.
pub(crate) fn column_version_bump(column: &ColumnId) -> Deferred {
    Deferred::new(COLUMN_VERSION_SQL, vec![Value::text(column)])
}

impl Drop for WriteTx {
    /// A transaction dropped without commit (a refusal, an error) rolls back
    /// before the next writer's turn: sqlx would otherwise roll it back only
    /// when the connection is next used, and SQLite's write lock would stay
    /// taken until then.
    fn drop(&mut self) {
        if !self.begun {
            // Nothing was sent: the connection is in no transaction.
            drop(self.tx.take());
            drop(self.turn.take());
            return;
        }
        if let Some(mut tx) = self.tx.take() {
            let turn = self.turn.take();
            match tokio::runtime::Handle::try_current() {
                Ok(runtime) => {
                    runtime.spawn(async move {
                        if sqlx::raw_sql("ROLLBACK").execute(&mut *tx).await.is_err() {
                            // Never hand a connection inside a transaction back.
                            tx.close_on_drop();
                        }
                        drop(tx);
                        drop(turn);
                    });
                }
                Err(_) => {
                    tx.close_on_drop();
                    drop((tx, turn));
                }
            }
        }
    }
}

impl std::ops::Deref for WriteTx {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        self.tx.as_deref().expect("an open transaction")
    }
}

impl std::ops::DerefMut for WriteTx {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        self.conn()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::Board;
    use crate::testing::{card, on_both_backends, workspace, TempBoard};

    /// A lock out of the parent-first order is refused in every build, before
    /// it is taken, and the transaction can still roll back.
    #[tokio::test]
    async fn a_lock_out_of_order_is_an_error() {
        let board = TempBoard::sqlite("lock-order").await;
        let ws = workspace(&board).await;
        let card = card(&board, &ws.id, "Card").await;
        let mut tx = board.write(Lock::Card(&card.id)).await.unwrap();
        let Err(Error::Internal(message)) = tx.lock(Lock::Workspace(&ws.id)).await else {
            panic!("a workspace lock after a card lock must be refused");
        };
        assert!(message.contains("parent first"), "{message}");
        drop(tx);
        let mut tx = board.write(Lock::Workspace(&ws.id)).await.unwrap();
        tx.lock(Lock::Card(&card.id)).await.unwrap();
        drop(tx);
        board.close().await;
    }

    async fn card_of(board: &Board) -> (WorkspaceId, CardId) {
        let ws = workspace(board).await;
        let card = card(board, &ws.id, "Card").await;
        (ws.id, card.id)
    }

    fn term(doc: &str, word: &str, ws: &WorkspaceId, card: &CardId) -> Deferred {
        Deferred::new(
            "INSERT INTO search_terms (doc_id, word, workspace_id, card_id) VALUES ($1, $2, $3, $4)",
            vec![Value::text(doc), Value::text(word), Value::text(ws), Value::text(card)],
        )
    }

    async fn count(board: &Board, sql: &str) -> i64 {
        sqlx::query_scalar(sqlx::AssertSqlSafe(sql.to_string()))
            .fetch_one(&board.pool)
            .await
            .unwrap()
    }

    fn event(ws: &WorkspaceId) -> OutboxRow {
        OutboxRow {
            workspace: ws.clone(),
            kind: "card.updated",
            data: "{}".into(),
            at: crate::time::now(),
            position_of: None,
            card: None,
            other_card: None,
        }
    }

    on_both_backends! {
    /// Deferred statements run at the commit, in the order they were queued:
    /// the UPDATE finds the row the INSERT queued before it wrote.
    async fn deferred_statements_run_in_order_at_the_commit(board) {
        let (ws, card) = card_of(&board).await;
        let mut tx = board.write(Lock::Card(&card)).await.unwrap();
        tx.defer(term("d1", "first", &ws, &card));
        tx.defer(Deferred::new(
            "UPDATE search_terms SET word = $2 WHERE doc_id = $1",
            vec![Value::text("d1"), Value::text("second")],
        ));
        let sql = "SELECT COUNT(*) FROM search_terms WHERE doc_id = 'd1'";
        assert_eq!(
            count(&board, sql).await,
            0,
            "nothing runs before the commit"
        );
        tx.commit().await.unwrap();
        let word: String =
            sqlx::query_scalar("SELECT word FROM search_terms WHERE doc_id = 'd1'")
                .fetch_one(&board.pool)
                .await
                .unwrap();
        assert_eq!(word, "second");
        board.close().await;
    }

    /// A deferred statement that fails fails the commit: nothing of the
    /// transaction stays (its other deferred rows, its event, the lock's
    /// version), and the next write goes on.
    async fn a_failing_deferred_statement_rolls_back_everything(board) {
        let (ws, card) = card_of(&board).await;
        let events = count(&board, "SELECT COUNT(*) FROM events").await;
        let version_sql = format!("SELECT version FROM cards WHERE id = '{}'", card.as_str());
        let version = count(&board, &version_sql).await;
        let mut tx = board.write(Lock::Card(&card)).await.unwrap();
        tx.emit(OutboxRow {
            workspace: ws.clone(),
            kind: "card.updated",
            data: "{}".into(),
            at: crate::time::now(),
            position_of: None,
            card: None,
            other_card: None,
        });
        tx.defer(term("d2", "w", &ws, &card));
        tx.defer(term("d2", "w", &ws, &card)); // the same primary key
        assert!(
            tx.commit().await.is_err(),
            "a duplicate key fails the commit"
        );
        let terms = "SELECT COUNT(*) FROM search_terms WHERE doc_id = 'd2'";
        assert_eq!(count(&board, terms).await, 0);
        assert_eq!(count(&board, "SELECT COUNT(*) FROM events").await, events);
        assert_eq!(count(&board, &version_sql).await, version);
        // The connection went back outside any transaction.
        for _ in 0..3 {
            let mut tx = board.write(Lock::Card(&card)).await.unwrap();
            tx.defer(term("d3", "w", &ws, &card));
            tx.commit().await.unwrap();
            let mut tx = board.write(Lock::Card(&card)).await.unwrap();
            tx.defer(Deferred::new(
                "DELETE FROM search_terms WHERE doc_id = 'd3'",
                vec![],
            ));
            tx.commit().await.unwrap();
        }
        assert_eq!(count(&board, &version_sql).await, version + 6);
        board.close().await;
    }

    /// A write opened by `write_at_commit` sends nothing before its commit:
    /// dropped, it leaves nothing; committed, its `BEGIN` goes with its rows
    /// and events (one transaction: a failing statement rolls back all), and
    /// the connections go back outside any transaction.
    async fn a_write_at_commit_sends_its_begin_with_the_commit(board) {
        let (ws, card) = card_of(&board).await;
        let events = count(&board, "SELECT COUNT(*) FROM events").await;
        for _ in 0..3 {
            let mut tx = board.write_at_commit().await.unwrap();
            tx.defer(term("a1", "w", &ws, &card));
            drop(tx);
        }
        let mut tx = board.write_at_commit().await.unwrap();
        tx.defer(term("a2", "w", &ws, &card));
        tx.emit(event(&ws));
        tx.commit().await.unwrap();
        let mut tx = board.write_at_commit().await.unwrap();
        tx.defer(term("a3", "w", &ws, &card));
        tx.defer(term("a3", "w", &ws, &card)); // the same primary key
        tx.emit(event(&ws));
        assert!(
            tx.commit().await.is_err(),
            "a duplicate key fails the commit"
        );
        let terms =
            |doc: &str| format!("SELECT COUNT(*) FROM search_terms WHERE doc_id = '{doc}'");
        assert_eq!(count(&board, &terms("a1")).await, 0, "dropped: nothing");
        assert_eq!(count(&board, &terms("a2")).await, 1, "committed");
        assert_eq!(count(&board, &terms("a3")).await, 0, "failed: nothing");
        assert_eq!(
            count(&board, "SELECT COUNT(*) FROM events").await,
            events + 1
        );
        for n in 0..4 {
            let mut tx = board.write(Lock::Card(&card)).await.unwrap();
            tx.defer(term(&format!("b{n}"), "w", &ws, &card));
            tx.commit().await.unwrap();
            let mut tx = board.write_at_commit().await.unwrap();
            tx.defer(term(&format!("c{n}"), "w", &ws, &card));
            tx.commit().await.unwrap();
        }
        // Two characters: the card's own title row has its id (24
        // characters, which may begin with b or c) as its doc_id.
        let all = "SELECT COUNT(*) FROM search_terms \
                   WHERE (doc_id LIKE 'b%' OR doc_id LIKE 'c%') AND LENGTH(doc_id) = 2";
        assert_eq!(count(&board, all).await, 8);
        board.close().await;
    }
    }
}
