//! The horizon of the outbox: the seq up to which every event is either
//! committed, and visible, or never will be.
//!
//! On SQLite it is the last seq written: seqs are taken under the database
//! write lock, held until commit, so events commit in seq order.
//!
//! On PostgreSQL a write takes its events' seqs from the sequence
//! `events_seq` as it commits, with no lock, so that writers of different
//! rows never queue behind one another's COMMIT. A seq taken is not visible
//! until its transaction commits, and a smaller seq may commit after a
//! larger one. A reader that read up to the largest visible seq would skip
//! that smaller one for ever. So a reader advances only past *fences*:
//!
//! 1. it reads the sequence's last value `S`, then
//! 2. the transaction ids (xids) running in this database (`backend_xid` of
//!    `pg_stat_activity`), `R`.
//!
//! A write takes its xid before its seq (its commit message starts with
//! `pg_current_xact_id()`), so every write that holds a seq up to `S` and has
//! not finished is in `R`. Once none of `R` runs any more, every seq up to
//! `S` is committed or rolled back: the fence `(S, R)` has cleared, and a
//! read up to `S` misses nothing. Fences clear in order: a transaction that
//! still runs, and ran at an earlier fence, also ran at every later one.
//!
//! The cost is two small reads per wake-up of the reader, and a delay of the
//! running transactions' length: with none running, a fence clears at once.
//! Events wait for every write transaction running in the same database when
//! they were taken, including long ones that write no event (a `board copy`
//! into it, an import); an open transaction that has written and then sits
//! idle holds the feed until it ends.
//!
//! Servers of an earlier build, which took `MAX(seq) + 1`, must not write
//! beside this one on the same database: their seqs would collide with the
//! sequence's, or lie below what streams have passed. Stop them before the
//! upgrade, as for any migration; nothing enforces this.
//!
//! Tests: `a_smaller_seq_that_commits_late_is_delivered_first_and_never_skipped`
//! (tests/e2e/events.rs) holds a seq in an open transaction while a later
//! change commits; the stream must send nothing, then both in seq order.
//! `many_writers_on_two_servers_give_every_stream_every_event_in_seq_order`
//! (board-server/tests/server.rs) races writers on two server processes.

use std::collections::VecDeque;

use sqlx::Row;

use crate::error::Result;
use crate::store::{Backend, Conns};

/// How many fences are kept before the newest ones are merged (a fence
/// that waits on a long transaction; merging only makes one wait longer).
const FENCES: usize = 64;

/// The reader's horizon: on PostgreSQL, the fences not cleared yet.
#[derive(Debug)]
pub(crate) struct Horizon {
    backend: Backend,
    fences: VecDeque<Fence>,
}

/// A seq, and the transactions that ran when it was read.
#[derive(Debug)]
struct Fence {
    seq: i64,
    running: Vec<String>,
}

impl Horizon {
    /// A horizon with no fence yet.
    pub(crate) fn new(backend: Backend) -> Horizon {
        Horizon {
            backend,
            fences: VecDeque::new(),
        }
    }

    /// Sets a fence at the current seq, clears the fences whose transactions
    /// have all finished, and returns the seq of the last one cleared: every
    /// event up to it is committed or never will be. `None`: none cleared
    /// (PostgreSQL, transactions still run; [`Horizon::waiting`] is then true).
    pub(crate) async fn advance(&mut self, pool: &Conns) -> Result<Option<i64>> {
        let seq = last_seq(pool, self.backend).await?;
        let Some(running_writes) = self.backend.running_writes_sql() else {
            // Writes commit in seq order.
            return Ok(Some(seq));
        };
        // After the seq, never before: a write with a seq up to it took its
        // xid earlier, so it is listed here unless it has finished.
        let rows = sqlx::query(running_writes).fetch_all(pool).await?;
        let running = rows
            .iter()
            .map(|r| r.try_get::<String, _>("x"))
            .collect::<std::result::Result<Vec<_>, _>>()?;
        let full = self.fences.len() >= FENCES;
        match self.fences.back_mut() {
            Some(last) if full => {
                last.seq = seq;
                last.running.extend(running.iter().cloned());
            }
            _ => self.fences.push_back(Fence {
                seq,
                running: running.clone(),
            }),
        }
        let mut cleared = None;
        while let Some(fence) = self.fences.front() {
            if fence.running.iter().any(|x| running.contains(x)) {
                break;
            }
            cleared = Some(fence.seq);
            self.fences.pop_front();
        }
        Ok(cleared)
    }

    /// Whether a fence waits for transactions to finish: the reader then
    /// looks again soon, without being woken.
    pub(crate) fn waiting(&self) -> bool {
        !self.fences.is_empty()
    }
}

/// The last seq taken: PostgreSQL, the sequence's last value (committed or
/// not); SQLite, the last seq written (or, with none retained, the last
/// pruned).
pub(crate) async fn last_seq(pool: &Conns, backend: Backend) -> Result<i64> {
    let sql = backend.last_seq_sql();
    let row = sqlx::query(sql).fetch_one(pool).await?;
    Ok(row.try_get("s")?)
}
