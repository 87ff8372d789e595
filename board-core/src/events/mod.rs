//! Live events (api.md §11): the outbox every write appends to, and the
//! feed that reads it back in commit order.
//!
//! **Writing.** An operation describes its change as a [`Change`](crate::change::Change) and hands it
//! to its write transaction ([`crate::store::WriteTx::emit`]); the transaction
//! writes it with one statement sent together with `COMMIT`
//! ([`Backend::commit_statement`](crate::store::Backend::commit_statement)).
//! Its seq is the next rowid (`MAX(seq) + 1`) under the database write lock
//! (SQLite), so events commit in seq order; or the next value of the sequence
//! `events_seq` (PostgreSQL), taken with no lock, so
//! writers of different rows never queue behind one another's commit. A
//! refused or rolled-back change writes nothing. After a PostgreSQL commit
//! with events, this process sends `NOTIFY board_events` (one at a time:
//! commits made while one is sent share the next).
//!
//! **Order.** A seq is taken as the write commits, after everything it read:
//! a change that could see another one (the same card, a card it names, …)
//! has the larger seq. Readers deliver in seq order, and only up to the
//! [`horizon`]: the seq below which every event is committed or never will
//! be. On SQLite that is the last seq written; on PostgreSQL, where a smaller
//! seq may commit after a larger one, it waits for the transactions that
//! could still hold one.
//!
//! **Reading.** Each [`crate::Board`] has one reader task (started by the first
//! subscriber) that reads the outbox up to the horizon and fans
//! every event out to all subscribers through a broadcast channel: a few
//! queries per wake-up, whatever the number of streams. It wakes on this
//! process's own commits at once, on `NOTIFY` from other processes
//! (PostgreSQL), every [`POLL`] in any case (SQLite: another process such as
//! the CLI), and every [`RECHECK`] while the horizon waits for transactions.
//!
//! **Seqs.** SQLite: the next rowid (`MAX(seq) + 1`) under the database write lock; retention
//! never removes the newest event, so the head never goes back, and seqs have no holes.
//! PostgreSQL (migration 0007): `nextval('events_seq')` as the write commits. Seqs only grow;
//! a rolled-back commit leaves a hole (rare: a refused request never reaches the commit). A
//! seq is taken after everything the write read, so of two changes where one could see the
//! other, the later has the larger seq; changes that touch nothing in common take their seqs'
//! order. A lock held until commit for the seq would queue every event-writing transaction
//! through its `COMMIT` and WAL flush (BENCHMARKS.md).
//!
//! **Delivery.** The reader reads `events WHERE seq > last AND seq <= horizon` (one indexed
//! query for all streams) and broadcasts each event with the seq of the event before it; the
//! streams filter by workspace. After a PostgreSQL commit with events, the process sends
//! `NOTIFY board_events` from a task of its own, one at a time (`Feed::committed`); the reader
//! `LISTEN`s on a connection of its own.
//!
//! **A stream** ([`Board::subscribe`] → [`Subscription`]) subscribes to the broadcast first,
//! then reads the workspace's retained events after its resume point (`Last-Event-ID` wins
//! over `?after=`) up to the reader's position, then delivers live events above the last seq
//! it sent: no gap, no duplicate. A live event whose predecessor lies above its last seq (it
//! joined late, or lagged past the channel's [`CHANNEL`] events) sends it back to the outbox
//! for the events in between. A resume from before `event_log.pruned_through` starts with
//! `event: reset`. Every [`ACCESS_RECHECK`] the stream authenticates its credential again and
//! checks the workspace's reach (`Board::still_reaches`); it ends when either fails.
//!
//! **Retention** ([`Admin::prune_events`], the server's `--events-retention`, 24 h, at start
//! and hourly with the sweep) never passes the newest event, nor one above the position of
//! an active webhook (`webhooks`). A stream resumes only after it; the rows themselves stay
//! for `--activity-retention` (90 days), which a card's activity reads (`activity`). Both
//! retentions an installation runs with pass [`check_retention`] first.
//!
//! Servers of an earlier build, which took `MAX(seq) + 1` on PostgreSQL, must not write beside
//! this one on one database (`horizon.rs`).

pub(crate) mod activity;
pub(crate) mod horizon;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicBool, AtomicI64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use serde_json::{Map, Value};
use sqlx::any::AnyRow;
use sqlx::Row;
use tokio::sync::{broadcast, Notify};

use crate::access::{Actor, Role};
use crate::board::{Admin, Board};
use crate::error::{Error, Result};
use crate::ids::{AccountId, WorkspaceId};
use crate::store::{Backend, OnCommit};
use horizon::Horizon;

/// How often the reader looks at the outbox without being woken: the bound
/// on how late another process's commit (without `NOTIFY`) is seen.
pub const POLL: Duration = Duration::from_millis(250);

/// How soon the reader looks again while the horizon waits for running
/// transactions (PostgreSQL).
pub const RECHECK: Duration = Duration::from_millis(2);

/// How often a [`Subscription`] checks again that its actor may still follow
/// its workspace (api.md §11: a revoked credential's stream ends within 60 s).
pub const ACCESS_RECHECK: Duration = Duration::from_secs(30);

/// The shortest events' retention an installation may choose (api.md §11): a
/// client away for up to a day resumes its stream without a reset.
pub const MIN_RETENTION: Duration = Duration::from_secs(24 * 3600);

/// Why an operator's choice of retentions is refused ([`check_retention`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RetentionError {
    /// Events would be kept less than [`MIN_RETENTION`].
    #[error(
        "events are kept at least {}h, so that a stream resumes after a day away; \
         give {}h or more (e.g. 36h, 7d)",
        MIN_RETENTION.as_secs() / 3600,
        MIN_RETENTION.as_secs() / 3600
    )]
    EventsTooShort,
    /// The activity would be kept less long than the events it reads.
    #[error(
        "the activity is kept {activity}s, less than the events' {events}s: a card's \
         activity reads the events, so keep it at least as long"
    )]
    ActivityShorter {
        /// The events' retention, in seconds.
        events: u64,
        /// The activity's retention, in seconds.
        activity: u64,
    },
}

/// Checks an events' retention: at least [`MIN_RETENTION`].
pub fn check_events_retention(events: Duration) -> std::result::Result<(), RetentionError> {
    match events < MIN_RETENTION {
        true => Err(RetentionError::EventsTooShort),
        false => Ok(()),
    }
}

/// Checks the retentions an installation runs with (the server's
/// `--events-retention` and `--activity-retention`, given to
/// [`Admin::prune_events`]): events at least [`MIN_RETENTION`], and the
/// activity, which reads the events, at least as long as they.
pub fn check_retention(
    events: Duration,
    activity: Duration,
) -> std::result::Result<(), RetentionError> {
    check_events_retention(events)?;
    match activity < events {
        true => Err(RetentionError::ActivityShorter {
            events: events.as_secs(),
            activity: activity.as_secs(),
        }),
        false => Ok(()),
    }
}

/// How many events the broadcast channel holds for a slow subscriber; one
/// that falls further behind reads the outbox again from where it was.
const CHANNEL: usize = 4096;

/// How many events one read of the outbox takes.
pub(crate) const BATCH: i64 = 1000;

/// One committed change, as the stream sends it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Event {
    /// Its place in the installation's order (only grows).
    pub seq: i64,
    /// The type (`card.moved`).
    pub kind: String,
    /// The workspace it happened in.
    pub workspace_id: WorkspaceId,
    /// The one account whose streams it goes to (`notification.created`,
    /// api.md §26), on every workspace's stream of that account; `None` for
    /// an event of the workspace, for its streams and webhooks.
    pub account_id: Option<AccountId>,
    /// The `data` line: `{seq, type, tenantId, at, actorId, subject, …}` as
    /// one line of JSON.
    pub data: String,
}

impl Event {
    fn from_row(row: &AnyRow) -> Result<Event> {
        let seq: i64 = row.try_get("seq")?;
        let stored: String = row.try_get("data")?;
        let mut data: Map<String, Value> = serde_json::from_str(&stored)
            .map_err(|e| Error::Internal(format!("an unreadable event {seq}: {e}")))?;
        data.insert("seq".into(), Value::from(seq));
        Ok(Event {
            seq,
            kind: row.try_get("type")?,
            workspace_id: row.try_get("workspace_id")?,
            account_id: row
                .try_get::<Option<String>, _>("account_id")?
                .map(AccountId::from_db),
            data: Value::Object(data).to_string(),
        })
    }
}

/// The feed of one [`Board`]: the broadcast of every event read from the
/// outbox, the reader's wake-up, and (PostgreSQL) the `NOTIFY` to other
/// processes.
#[derive(Debug, Clone)]
pub(crate) struct Feed(Arc<FeedInner>);

#[derive(Debug)]
struct FeedInner {
    wake: Notify,
    /// Counts this process's commits with events, for the webhook worker.
    commits: tokio::sync::watch::Sender<u64>,
    sender: broadcast::Sender<Live>,
    /// Set once the reader runs, from the horizon it started at.
    started: tokio::sync::OnceCell<()>,
    /// Every event up to this seq has been broadcast (once started).
    pos: AtomicI64,
    /// PostgreSQL: the pool that sends `NOTIFY` after a commit with events.
    notify_pool: Option<crate::store::Conns>,
    /// A `NOTIFY` is being sent.
    sending: AtomicBool,
    /// A commit since the last `NOTIFY` began.
    due: AtomicBool,
}

/// One broadcast event, with the seq of the event broadcast before it: no
/// event lies between the two.
#[derive(Debug, Clone)]
struct Live {
    prev: i64,
    event: Arc<Event>,
}

impl OnCommit for Feed {
    /// Tells the reader this process committed an event, and (PostgreSQL)
    /// the other processes, by a `NOTIFY` sent after the commit: one at a
    /// time, so commits made while one is sent share the next.
    fn committed(&self) {
        self.0.wake.notify_one();
        self.0.commits.send_modify(|n| *n = n.wrapping_add(1));
        if self.0.notify_pool.is_some() {
            self.0.due.store(true, Ordering::SeqCst);
            if !self.0.sending.swap(true, Ordering::SeqCst) {
                tokio::spawn(self.clone().send_notifies());
            }
        }
    }
}

impl Feed {
    /// The feed of a board on `pool`.
    pub(crate) fn new(pool: &crate::store::Conns, backend: Backend) -> Feed {
        Feed(Arc::new(FeedInner {
            wake: Notify::new(),
            commits: tokio::sync::watch::channel(0).0,
            sender: broadcast::channel(CHANNEL).0,
            started: tokio::sync::OnceCell::new(),
            pos: AtomicI64::new(0),
            notify_pool: backend.has_notify().then(|| pool.clone()),
            sending: AtomicBool::new(false),
            due: AtomicBool::new(false),
        }))
    }

    /// Sends `NOTIFY board_events` until no commit is left without one.
    async fn send_notifies(self) {
        let Some(pool) = self.0.notify_pool.as_ref() else {
            return;
        };
        loop {
            self.0.due.store(false, Ordering::SeqCst);
            if !pool.is_closed() {
                if let Err(e) = sqlx::query("NOTIFY board_events").execute(pool).await {
                    tracing::warn!(error = %e, "event feed: NOTIFY failed; other servers poll");
                }
            }
            if self.0.due.load(Ordering::SeqCst) {
                continue;
            }
            self.0.sending.store(false, Ordering::SeqCst);
            // A commit between the check and the store saw `sending` still
            // set and left its NOTIFY to this task.
            if !self.0.due.load(Ordering::SeqCst) || self.0.sending.swap(true, Ordering::SeqCst) {
                return;
            }
        }
    }

    /// The seq up to which every event has been broadcast.
    fn pos(&self) -> i64 {
        self.0.pos.load(Ordering::SeqCst)
    }
}

/// What a stream receives next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeedItem {
    /// Events after the resume point are no longer retained: reload the board.
    Reset,
    /// The next event of the workspace.
    Event(Arc<Event>),
}

/// A workspace's events for one stream: the retained events after its resume
/// point, then the live ones, each once and in seq order.
#[derive(Debug)]
pub struct Subscription {
    board: Board,
    /// Who follows: checked again every `recheck` period, next at `check_at`.
    actor: Actor,
    recheck: Duration,
    check_at: tokio::time::Instant,
    workspace: WorkspaceId,
    /// The last seq delivered (or skipped as another workspace's).
    last: i64,
    pending: VecDeque<FeedItem>,
    live: broadcast::Receiver<Live>,
}

impl Subscription {
    /// The next item; waits for one. Fails, and the subscription should end,
    /// when its actor no longer may follow the workspace (a session's token
    /// revoked or expired, the membership gone: checked again every
    /// [`ACCESS_RECHECK`], or as [`Subscription::recheck_every`] sets), or
    /// when the outbox cannot be read.
    pub async fn next(&mut self) -> Result<FeedItem> {
        loop {
            let check_at = self.check_at;
            tokio::select! {
                item = self.next_event() => return item,
                _ = tokio::time::sleep_until(check_at) => {
                    self.check_at = tokio::time::Instant::now() + self.recheck;
                    self.board
                        .still_reaches(&self.actor, &self.workspace, Role::Viewer)
                        .await?;
                }
            }
        }
    }

    /// Checks the actor's access every `period` instead of every
    /// [`ACCESS_RECHECK`], the first time one `period` from now.
    pub fn recheck_every(&mut self, period: Duration) {
        self.recheck = period;
        self.check_at = tokio::time::Instant::now() + period;
    }

    /// The next item of the feed, without the access check.
    async fn next_event(&mut self) -> Result<FeedItem> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Ok(item);
            }
            match self.live.recv().await {
                Ok(live) if live.event.seq <= self.last => {}
                // No event lies between `prev` and this one, and this stream
                // has every event up to `last`.
                Ok(live) if live.prev <= self.last => {
                    self.last = live.event.seq;
                    if self.is_for_me(&live.event) {
                        return Ok(FeedItem::Event(live.event));
                    }
                }
                // The broadcast is ahead of this stream (it started after the
                // catch-up read): read what lies between from the outbox.
                Ok(live) => {
                    self.catch_up(live.prev).await?;
                    self.last = live.event.seq;
                    if self.is_for_me(&live.event) {
                        self.pending.push_back(FeedItem::Event(live.event));
                    }
                }
                Err(broadcast::error::RecvError::Lagged(_)) => {
                    let head = self.board.local::<Feed>().pos();
                    self.catch_up(head).await?;
                }
                Err(broadcast::error::RecvError::Closed) => {
                    return Err(Error::Internal("the event feed stopped".into()))
                }
            }
        }
    }

    /// Whether this stream sends `event`: an event of its workspace, or a
    /// private one of its account (from any workspace).
    fn is_for_me(&self, event: &Event) -> bool {
        match &event.account_id {
            Some(account) => self.actor.account() == Some(account),
            None => event.workspace_id == self.workspace,
        }
    }

    /// The seq of the last event delivered or passed over.
    pub fn last_seq(&self) -> i64 {
        self.last
    }

    /// Reads the workspace's events after `last` up to `head` (at or below
    /// the horizon) into `pending`.
    async fn catch_up(&mut self, head: i64) -> Result<()> {
        while self.last < head {
            let events = self
                .board
                .stream_events(&self.workspace, self.actor.account(), self.last, head)
                .await?;
            let full = events.len() as i64 == BATCH;
            match events.last() {
                Some(e) if full => self.last = e.seq,
                _ => self.last = head,
            }
            self.pending
                .extend(events.into_iter().map(|e| FeedItem::Event(Arc::new(e))));
        }
        Ok(())
    }
}

/// Live events (api.md §11): the operations of `events/mod.rs`.
impl Board {
    /// Subscribes `actor` (a Viewer of `workspace`) to its events after
    /// `after` (`None`: only those committed from now on). A resume from
    /// before what is retained starts with [`FeedItem::Reset`].
    pub async fn subscribe(
        &self,
        actor: &Actor,
        workspace: &WorkspaceId,
        after: Option<i64>,
    ) -> Result<Subscription> {
        self.require(&self.pool, actor, workspace, Role::Viewer)
            .await?;
        self.start_reader().await?;
        // Subscribed before the catch-up read: nothing falls between the two.
        let live = self.local::<Feed>().0.sender.subscribe();
        let head = self.local::<Feed>().pos();
        let pruned = self.pruned_through().await?;
        let mut sub = Subscription {
            board: self.clone(),
            actor: actor.clone(),
            recheck: ACCESS_RECHECK,
            check_at: tokio::time::Instant::now() + ACCESS_RECHECK,
            workspace: workspace.clone(),
            last: head,
            pending: VecDeque::new(),
            live,
        };
        if let Some(after) = after {
            if after < pruned {
                sub.pending.push_back(FeedItem::Reset);
            }
            // A seq seen on a server whose reader is ahead of this one's may
            // lie past `head`: the events up to it are not sent again. No
            // stream has seen a seq past the last one taken.
            let taken = horizon::last_seq(&self.pool, self.backend).await?;
            sub.last = after.max(pruned).min(head.max(taken));
            sub.catch_up(head).await?;
        }
        Ok(sub)
    }

    /// A signal that fires whenever this process commits events (another
    /// process's commits are seen by polling).
    pub(crate) fn event_signal(&self) -> EventSignal {
        EventSignal(self.local::<Feed>().0.commits.subscribe())
    }

    /// The last seq retention removed.
    async fn pruned_through(&self) -> Result<i64> {
        let row = sqlx::query("SELECT pruned_through FROM event_log WHERE id = 1")
            .fetch_one(&self.pool)
            .await?;
        Ok(row.try_get("pruned_through")?)
    }

    /// A stream's retained events after `after` up to `head`, in seq order
    /// (at most [`BATCH`]): those of `workspace`, and the private ones of
    /// `account`.
    async fn stream_events(
        &self,
        workspace: &WorkspaceId,
        account: Option<&AccountId>,
        after: i64,
        head: i64,
    ) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, workspace_id, type, data, account_id FROM events \
             WHERE seq > $2 AND seq <= $3 \
               AND ((workspace_id = $1 AND account_id IS NULL) OR account_id = $5) \
             ORDER BY seq LIMIT $4",
        )
        .bind(workspace)
        .bind(after)
        .bind(head)
        .bind(BATCH)
        .bind(account)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Event::from_row).collect()
    }

    /// The workspace's retained events after `after` up to `head`, in seq
    /// order (at most [`BATCH`]), without the private ones.
    pub(crate) async fn workspace_events(
        &self,
        workspace: &WorkspaceId,
        after: i64,
        head: i64,
    ) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, workspace_id, type, data, account_id FROM events \
             WHERE workspace_id = $1 AND account_id IS NULL AND seq > $2 AND seq <= $3 \
             ORDER BY seq LIMIT $4",
        )
        .bind(workspace)
        .bind(after)
        .bind(head)
        .bind(BATCH)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Event::from_row).collect()
    }

    /// Every retained event after `seq` up to `head`, of every workspace,
    /// in seq order (at most [`BATCH`]).
    async fn events_after_seq(&self, seq: i64, head: i64) -> Result<Vec<Event>> {
        let rows = sqlx::query(
            "SELECT seq, workspace_id, type, data, account_id FROM events \
             WHERE seq > $1 AND seq <= $2 ORDER BY seq LIMIT $3",
        )
        .bind(seq)
        .bind(head)
        .bind(BATCH)
        .fetch_all(&self.pool)
        .await?;
        rows.iter().map(Event::from_row).collect()
    }

    /// Starts this board's reader task once, at the horizon it reads first
    /// (after its `LISTEN`, so no later `NOTIFY` is missed): every subscriber
    /// waits for that, so what it reads from the outbox and what the reader
    /// broadcasts meet, and every later event is broadcast.
    async fn start_reader(&self) -> Result<()> {
        self.local::<Feed>()
            .0
            .started
            .get_or_try_init(|| async {
                let listener = match self.backend.has_notify() {
                    true => listen(&self.database_url).await,
                    false => None,
                };
                let mut horizon = Horizon::new(self.backend);
                let start = loop {
                    if let Some(seq) = horizon.advance(&self.pool).await? {
                        break seq;
                    }
                    tokio::time::sleep(RECHECK).await;
                };
                self.local::<Feed>().0.pos.store(start, Ordering::SeqCst);
                let board = self.clone();
                tokio::spawn(async move { board.read_outbox(horizon, listener, start).await });
                Ok::<(), Error>(())
            })
            .await?;
        Ok(())
    }

    /// The reader: reads the outbox up to the horizon whenever it is woken
    /// (own commit, `NOTIFY`), [`POLL`] has passed, or, while the horizon
    /// waits for transactions, [`RECHECK`] has; and broadcasts each event.
    async fn read_outbox(
        self,
        mut horizon: Horizon,
        mut listener: Option<sqlx::postgres::PgListener>,
        start: i64,
    ) {
        let mut read = Read {
            last: start,
            prev: start,
        };
        loop {
            if self.pool.is_closed() {
                return;
            }
            if let Err(e) = self.read_to_horizon(&mut horizon, &mut read).await {
                tracing::warn!(error = %e, "event feed: reading the outbox failed");
            }
            let wake = self.local::<Feed>().0.wake.notified();
            let pause = if horizon.waiting() { RECHECK } else { POLL };
            match listener.as_mut() {
                Some(l) => {
                    tokio::select! {
                        _ = wake => {}
                        n = l.recv() => if n.is_err() {
                            // Reconnects on the next recv; the poll covers the gap.
                            tokio::time::sleep(POLL).await;
                        },
                        _ = tokio::time::sleep(pause) => {}
                    }
                }
                None => {
                    tokio::select! {
                        _ = wake => {}
                        _ = tokio::time::sleep(pause) => {}
                    }
                }
            }
        }
    }

    /// Moves the horizon on and broadcasts the events up to it.
    async fn read_to_horizon(&self, horizon: &mut Horizon, read: &mut Read) -> Result<()> {
        let Some(bound) = horizon.advance(&self.pool).await? else {
            return Ok(());
        };
        while read.last < bound {
            let events = self.events_after_seq(read.last, bound).await?;
            let full = events.len() as i64 == BATCH;
            for event in events {
                let seq = event.seq;
                let live = Live {
                    prev: read.prev,
                    event: Arc::new(event),
                };
                // No subscriber is not an error.
                self.local::<Feed>().0.sender.send(live).ok();
                read.prev = seq;
                read.last = seq;
            }
            if !full {
                read.last = bound;
            }
            self.local::<Feed>()
                .0
                .pos
                .store(read.last, Ordering::SeqCst);
        }
        Ok(())
    }
}

/// Fires whenever this process commits events ([`Board::event_signal`]).
#[derive(Debug)]
pub(crate) struct EventSignal(tokio::sync::watch::Receiver<u64>);

impl EventSignal {
    /// Waits for a commit with events since the last wait (at once when one
    /// came meanwhile).
    pub(crate) async fn wait(&mut self) {
        if self.0.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

/// Where the reader is: every event up to `last` is broadcast, and `prev` is
/// the seq of the last one (or of the start).
#[derive(Debug)]
struct Read {
    last: i64,
    prev: i64,
}

/// A `LISTEN board_events` connection (PostgreSQL), or `None` when it cannot
/// be opened (the poll then carries the feed alone).
async fn listen(url: &str) -> Option<sqlx::postgres::PgListener> {
    let mut listener = sqlx::postgres::PgListener::connect(url)
        .await
        .map_err(|e| tracing::warn!(error = %e, "event feed: LISTEN failed; polling"))
        .ok()?;
    listener.listen("board_events").await.ok()?;
    Some(listener)
}

/// Live events (api.md §11) (the operator's side): the operations of `events/mod.rs`.
impl Admin<'_> {
    /// Ends the resumable past at the events written before `retention` ago
    /// (never the newest one, which carries the head, and none an active
    /// webhook has not delivered yet: at least once, never lost; a webhook
    /// failing for 24 h turns inactive, which bounds what is kept), keeping
    /// the last seq it passed (a resume from before it gets `reset`); and
    /// removes the events of that past written before `activity` ago (api.md
    /// §29: a card's activity reads them; `activity` is at least
    /// `retention`). Returns how many it removed.
    pub async fn prune_events(&self, retention: Duration, activity: Duration) -> Result<u64> {
        // On the clock the events' times come from (`tick`, which runs ahead of
        // the wall clock when writes come faster than one a millisecond), so
        // an event written before this call is always older than a zero
        // retention.
        let now = crate::time::tick();
        let before = |d: Duration| {
            let d = i64::try_from(d.as_millis()).unwrap_or(i64::MAX);
            crate::time::Timestamp::from_millis(now.saturating_sub(d))
        };
        let cutoff = before(retention);
        let mut tx = self.board.write_unlocked().await?;
        let row = sqlx::query(
            "UPDATE event_log SET pruned_through = COALESCE( \
                 (SELECT MAX(seq) FROM events WHERE at < $1 \
                    AND seq < (SELECT MAX(seq) FROM events) \
                    AND seq <= COALESCE((SELECT MIN(position) FROM webhooks WHERE active = 1), \
                                        (SELECT MAX(seq) FROM events))), pruned_through) \
             WHERE id = 1 RETURNING pruned_through",
        )
        .bind(&cutoff)
        .fetch_one(&mut *tx)
        .await?;
        let through: i64 = row.try_get("pruned_through")?;
        let done = sqlx::query("DELETE FROM events WHERE seq <= $1 AND at < $2")
            .bind(through)
            .bind(before(activity.max(retention)))
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(done.rows_affected())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retentions_keep_events_a_day_and_activity_as_long() {
        let day = Duration::from_secs(86_400);
        assert_eq!(check_retention(day, day), Ok(()));
        assert_eq!(check_retention(7 * day, 90 * day), Ok(()));
        let short = check_retention(day - Duration::from_secs(1), 90 * day).unwrap_err();
        assert_eq!(short, RetentionError::EventsTooShort);
        assert!(short.to_string().contains("at least 24h"), "{short}");
        let shorter = check_retention(2 * day, day).unwrap_err();
        assert_eq!(
            shorter,
            RetentionError::ActivityShorter {
                events: 172_800,
                activity: 86_400
            }
        );
    }
}
