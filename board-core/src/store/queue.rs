//! SQLite: this process's queue of writers ([`WriteQueue`]), and the writes that only add
//! rows, committed together ([`Group`]).
//!
//! SQLite has one write lock per database. Writers that race for it in `BEGIN IMMEDIATE` sleep
//! in its busy handler and retry on a back-off, so some wait for seconds. Inside one process,
//! writers queue here instead, in arrival order (tokio's mutex is fair), and only the head of
//! the queue asks SQLite for the lock. `busy_timeout` stays the backstop against other
//! processes, such as the CLI. Commits are told to the checkpoint task (`checkpoint.rs`),
//! which copies the log into the database file outside the queue.
//!
//! A write opened by `WriteTx::begin_at_commit` sends nothing before its commit. Between two
//! such commits the lock sat idle while the next writer's task woke, took a connection and
//! sent its batch (BENCHMARKS.md). So such a commit is queued here, and whoever gets the turn
//! commits every commit queued by then, in arrival order, in one transaction (up to
//! [`MOST_COMMITS`] commits and [`MOST_VALUES`] bound values), then answers each. Each
//! commit's statements go as a batch of their own inside it: the text of one write's batch
//! is the same for every write of its shape and stays prepared in sqlx's statement cache,
//! while a whole group's text, new for each mix of commits, was prepared again each time
//! (BENCHMARKS.md: a comment's notification statements made that cost a third of its time).
//!
//! A group that fails (a comment whose card was deleted meanwhile: its foreign key) is rolled
//! back whole, and each of its commits then runs on its own, so one write's refusal is its
//! own. The group runs as a task of its own: a client gone while its write leads a group
//! cancels nothing, and a commit whose writer is dropped while still queued is withdrawn,
//! committed whole or not at all. Tests: `a_group_commits_together_and_a_refusal_stays_its_own`,
//! `a_commit_dropped_while_queued_is_withdrawn`. PostgreSQL needs none of this: its writers of
//! different rows commit at once and share their WAL flushes.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use tokio::sync::{oneshot, OwnedMutexGuard};

use super::batch::{Batch, Deferred};
use super::checkpoint::Commits;
use super::outbox::{self, OnCommit, OutboxRow};
use super::prepared::Prepared;
use super::{Backend, Conn, Conns};
use crate::error::{Error, Result};

/// The queue of this process's SQLite writers.
///
/// SQLite has one write lock per database. Writers that race for it in
/// `BEGIN IMMEDIATE` are put to sleep by its busy handler and retry on a
/// back-off (up to 100 ms a sleep), so whoever retries at the right moment
/// wins and some writers wait for seconds. Inside one process, writers
/// instead queue here, in arrival order (tokio's mutex is fair), and only the
/// head of the queue asks SQLite for the lock. `busy_timeout` stays the
/// backstop against other processes, such as the CLI.
///
/// Commits are told to the checkpoint task (`checkpoint.rs`), which copies
/// the log into the database file outside the queue.
#[derive(Debug, Clone)]
pub(crate) struct WriteQueue {
    pub(super) turn: Arc<tokio::sync::Mutex<()>>,
    pub(super) commits: Arc<Commits>,
    /// The statements every connection of the pool prepared ([`Prepared`]).
    pub(super) prepared: Arc<Prepared>,
    /// SQLite: the commits of writes that sent nothing before, for the next
    /// turn to commit together ([`Group`]).
    pub(super) group: Arc<Group>,
    /// The pool a group's turn takes its connection from.
    pub(super) pool: Conns,
}

impl WriteQueue {
    /// An empty queue for a pool whose connections prepared `prepared`; for
    /// SQLite, with the checkpoint task of `pool` started.
    pub(crate) fn new(pool: &Conns, backend: Backend, prepared: Arc<Prepared>) -> WriteQueue {
        let queue = WriteQueue {
            turn: Arc::default(),
            commits: Arc::new(Commits::new()),
            prepared,
            group: Arc::default(),
            pool: pool.clone(),
        };
        if backend.is_embedded() {
            super::checkpoint::spawn(pool.clone(), &queue.commits, queue.turn.clone());
        }
        queue
    }

    /// SQLite: waits for this process's turn to write (after its earlier
    /// writers, in arrival order). PostgreSQL: no turn.
    pub(super) async fn wait(&self, backend: Backend) -> Option<Turn> {
        match backend.is_embedded() {
            true => Some(Turn {
                guard: self.turn.clone().lock_owned().await,
                commits: self.commits.clone(),
            }),
            false => None,
        }
    }
}

/// A writer's turn in the [`WriteQueue`], and whom its commit tells.
pub(super) struct Turn {
    pub(super) guard: OwnedMutexGuard<()>,
    pub(super) commits: Arc<Commits>,
}

/// What follows a commit once everything sent on `conn` was answered: the
/// connection goes to the next operation, the checkpoint (`commits`, SQLite)
/// and, when it wrote `events`, the feed are told.
pub(super) fn committed(
    conn: Conn,
    commits: Option<&Commits>,
    on_commit: &Arc<dyn OnCommit>,
    events: &[OutboxRow],
) {
    conn.give_back();
    if let Some(commits) = commits {
        commits.committed();
    }
    if !events.is_empty() {
        on_commit.committed();
    }
}

/// The most commits one group takes.
const MOST_COMMITS: usize = 64;

/// The most values a group binds: half of SQLite's limit of 32,766 bound
/// values a statement, whatever its commits' sizes (a first commit always
/// goes, whatever its size; `outbox::commit` splits a big one).
const MOST_VALUES: usize = 16_000;

/// The commits queued for the next turn.
#[derive(Debug, Default)]
pub(crate) struct Group {
    pending: Mutex<Vec<Pending>>,
    /// The number of the next commit queued.
    next: AtomicU64,
    /// How many transactions the turns sent (tests).
    #[cfg(test)]
    sent: std::sync::atomic::AtomicUsize,
}

/// One write's commit, queued: what it sends, and whom to answer.
#[derive(Debug)]
struct Pending {
    id: u64,
    deferred: Vec<Deferred>,
    events: Vec<OutboxRow>,
    answer: oneshot::Sender<Result<()>>,
}

impl Pending {
    /// How many values its statements bind.
    fn values(&self) -> usize {
        let deferred: usize = self.deferred.iter().map(|d| d.values.len()).sum();
        deferred + 4 * self.events.len()
    }
}

impl Group {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Pending>> {
        self.pending.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The commits queued first, up to [`MOST_COMMITS`] and [`MOST_VALUES`]
    /// (at least one when any is queued).
    fn take(&self) -> Vec<Pending> {
        let mut pending = self.lock();
        let (mut n, mut values) = (0, 0);
        for p in pending.iter() {
            let v = p.values();
            if n > 0 && (n == MOST_COMMITS || values + v > MOST_VALUES) {
                break;
            }
            n += 1;
            values += v;
        }
        pending.drain(..n).collect()
    }
}

impl WriteQueue {
    /// Commits `deferred` and `events` (a write that sent nothing before its
    /// commit) with the others queued by the time this process's write turn
    /// comes, and answers once they are durable.
    pub(crate) async fn commit_grouped(
        &self,
        deferred: Vec<Deferred>,
        events: Vec<OutboxRow>,
        on_commit: Arc<dyn OnCommit>,
    ) -> Result<()> {
        let (answer, mut answered) = oneshot::channel();
        let id = self.group.next.fetch_add(1, Ordering::Relaxed);
        self.group.lock().push(Pending {
            id,
            deferred,
            events,
            answer,
        });
        // Dropped before a turn took it (its client gone), it is withdrawn:
        // committed whole, or not at all, as a write dropped before its commit.
        let _queued = Queued {
            group: &self.group,
            id,
        };
        loop {
            let turn = tokio::select! {
                biased;
                done = &mut answered => {
                    return done.unwrap_or_else(|_| {
                        Err(Error::Internal("a grouped commit ended without an answer".into()))
                    });
                }
                turn = self.turn.clone().lock_owned() => turn,
            };
            let group = self.group.take();
            if group.is_empty() {
                // An earlier turn took this commit; its answer is there.
                continue;
            }
            tokio::spawn(self.clone().run(group, turn, on_commit.clone()));
        }
    }

    /// Commits `group` in one transaction, or each of its commits on its own
    /// when that fails, answers each, then gives the turn up.
    async fn run(
        self,
        mut group: Vec<Pending>,
        turn: OwnedMutexGuard<()>,
        on_commit: Arc<dyn OnCommit>,
    ) {
        // Every commit's statements and events, end to end (moved, not
        // copied): each commit's own are a span of them.
        let (mut deferred, mut events) = (Vec::new(), Vec::new());
        let mut spans = Vec::with_capacity(group.len());
        for p in &mut group {
            let (d, e) = (deferred.len(), events.len());
            deferred.append(&mut p.deferred);
            events.append(&mut p.events);
            spans.push((d..deferred.len(), e..events.len()));
        }
        let pieces: Vec<&[Deferred]> = spans.iter().map(|(d, _)| &deferred[d.clone()]).collect();
        if group.len() > 1 && self.commit_once(&pieces, &events, &on_commit).await.is_ok() {
            for p in group {
                let _ = p.answer.send(Ok(()));
            }
            drop(turn);
            return;
        }
        for (p, (d, e)) in group.into_iter().zip(spans) {
            let done = self
                .commit_once(&[&deferred[d]], &events[e], &on_commit)
                .await;
            let _ = p.answer.send(done);
        }
        drop(turn);
    }

    /// One transaction: `BEGIN`, each commit's statements (`pieces`), `events`
    /// and `COMMIT`; rolled back on the same connection when it fails. Each
    /// piece goes as one batch of its own, with `BEGIN` before the first and
    /// the events and `COMMIT` after the last: a write's statements are the
    /// same text whenever its shape is, so each batch stays in sqlx's
    /// statement cache, where a group's whole text, new for each mix of
    /// commits, would be prepared again each time.
    async fn commit_once(
        &self,
        pieces: &[&[Deferred]],
        events: &[OutboxRow],
        on_commit: &Arc<dyn OnCommit>,
    ) -> Result<()> {
        let backend = Backend::Sqlite;
        #[cfg(test)]
        self.group.sent.fetch_add(1, Ordering::Relaxed);
        let mut conn = self.pool.acquire().await?;
        let sent = async {
            let mut begin = Some(Deferred::new(backend.begin_write(), Vec::new()));
            let (last, init) = pieces.split_last().expect("a commit");
            for piece in init {
                let mut batch = Batch::new(true, None);
                for d in begin.take().iter().chain(piece.iter()) {
                    batch.push(&d.sql, &d.values)?;
                }
                if !batch.is_empty() {
                    batch.fetch_all(&mut conn).await?;
                }
            }
            let all: Vec<Deferred> = begin.into_iter().chain(last.iter().cloned()).collect();
            outbox::commit(backend, &all, events, &self.prepared, &mut conn).await
        };
        match sent.await {
            Ok(_) => {
                committed(conn, Some(&self.commits), on_commit, events);
                Ok(())
            }
            Err(e) => {
                if sqlx::raw_sql("ROLLBACK").execute(&mut *conn).await.is_err() {
                    // Never hand a connection inside a transaction back.
                    conn.close_on_drop();
                }
                Err(e)
            }
        }
    }
}

/// A commit in the queue, withdrawn when its writer is dropped first.
struct Queued<'a> {
    group: &'a Group,
    id: u64,
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        self.group.lock().retain(|p| p.id != self.id);
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::Ordering;

    use super::super::value::Value;
    use crate::ids::{CardId, WorkspaceId};
    use crate::testing::{card, workspace, TempBoard};

    fn term(doc: &str, ws: &WorkspaceId, card: &CardId) -> super::Deferred {
        super::Deferred::new(
            "INSERT INTO search_terms (doc_id, word, workspace_id, card_id) VALUES ($1, 'w', $2, $3)",
            vec![Value::text(doc), Value::text(ws), Value::text(card)],
        )
    }

    /// Commits queued while another write holds the turn go in one group,
    /// one transaction, when it ends; in a group where one of them fails (a
    /// duplicate key), it fails alone, and the others commit, each with its
    /// event, in the order they came.
    #[tokio::test]
    async fn a_group_commits_together_and_a_refusal_stays_its_own() {
        let board = TempBoard::sqlite("group").await;
        let ws = workspace(&board).await.id;
        let card = card(&board, &ws, "Card").await.id;
        for duplicate in [false, true] {
            let sent = board.writers.group.sent.load(Ordering::Relaxed);
            let refused = round(&board, &ws, &card, duplicate).await;
            let sent = board.writers.group.sent.load(Ordering::Relaxed) - sent;
            match duplicate {
                false => {
                    assert!(refused.is_empty());
                    assert_eq!(sent, 1, "eight commits, one transaction");
                }
                true => {
                    assert_eq!(refused, [5], "only the duplicate is refused");
                    assert_eq!(sent, 9, "the group, then each on its own");
                }
            }
        }
        board.close().await;
    }

    /// Eight commits queued behind the turn (the sixth repeating the fifth's
    /// key when `duplicate`), then the turn let go; checks what committed and
    /// returns the commits refused.
    async fn round(
        board: &TempBoard,
        ws: &WorkspaceId,
        card: &CardId,
        duplicate: bool,
    ) -> Vec<usize> {
        let round = if duplicate { "d" } else { "u" };
        let before: i64 = sqlx::query_scalar("SELECT COALESCE(MAX(seq), 0) FROM events")
            .fetch_one(&board.pool)
            .await
            .unwrap();
        // The turn, held so that every commit below queues.
        let turn = board.writers.turn.clone().lock_owned().await;
        let mut tasks = Vec::new();
        for n in 0..8 {
            let (b, ws, card) = ((**board).clone(), ws.clone(), card.clone());
            tasks.push(tokio::spawn(async move {
                let mut tx = b.write_at_commit().await.unwrap();
                let doc = format!("{round}{}", if duplicate && n == 5 { 4 } else { n });
                tx.defer(term(&doc, &ws, &card));
                let kind = ["a", "b", "c", "d", "e", "f", "g", "h"][n];
                tx.emit(crate::store::OutboxRow {
                    workspace: ws.clone(),
                    kind,
                    data: "{}".into(),
                    at: crate::time::now(),
                    position_of: None,
                    card: None,
                    other_card: None,
                });
                tx.commit().await
            }));
            // Queued in this order.
            while board.writers.group.lock().len() <= n {
                tokio::task::yield_now().await;
            }
        }
        drop(turn);
        let mut refused = Vec::new();
        for (n, t) in tasks.into_iter().enumerate() {
            if t.await.unwrap().is_err() {
                refused.push(n);
            }
        }
        let kinds: Vec<String> =
            sqlx::query_scalar("SELECT type FROM events WHERE seq > $1 ORDER BY seq")
                .bind(before)
                .fetch_all(&board.pool)
                .await
                .unwrap();
        let expected: Vec<&str> = ["a", "b", "c", "d", "e", "f", "g", "h"]
            .into_iter()
            .enumerate()
            .filter(|(n, _)| !refused.contains(n))
            .map(|(_, k)| k)
            .collect();
        assert_eq!(kinds, expected, "every commit that went, in order");
        let docs: i64 = sqlx::query_scalar(sqlx::AssertSqlSafe(format!(
            "SELECT COUNT(*) FROM search_terms WHERE doc_id LIKE '{round}_'"
        )))
        .fetch_one(&board.pool)
        .await
        .unwrap();
        assert_eq!(docs as usize, 8 - refused.len());
        refused
    }

    /// A commit whose writer is dropped while it waits for the turn is
    /// withdrawn: nothing of it is written, then or later.
    #[tokio::test]
    async fn a_commit_dropped_while_queued_is_withdrawn() {
        let board = TempBoard::sqlite("group-drop").await;
        let ws = workspace(&board).await.id;
        let card = card(&board, &ws, "Card").await.id;
        let turn = board.writers.turn.clone().lock_owned().await;
        let task = {
            let (b, ws, card) = ((*board).clone(), ws.clone(), card.clone());
            tokio::spawn(async move {
                let mut tx = b.write_at_commit().await.unwrap();
                tx.defer(term("gone", &ws, &card));
                tx.commit().await
            })
        };
        while board.writers.group.lock().is_empty() {
            tokio::task::yield_now().await;
        }
        task.abort();
        let _ = task.await;
        assert!(board.writers.group.lock().is_empty(), "withdrawn");
        drop(turn);
        let mut tx = board.write_at_commit().await.unwrap();
        tx.defer(term("kept", &ws, &card));
        tx.commit().await.unwrap();
        let docs: Vec<String> =
            sqlx::query_scalar("SELECT doc_id FROM search_terms WHERE doc_id IN ('gone', 'kept')")
                .fetch_all(&board.pool)
                .await
                .unwrap();
        assert_eq!(docs, ["kept"]);
        board.close().await;
    }
}
