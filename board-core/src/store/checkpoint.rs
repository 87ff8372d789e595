//! SQLite's WAL checkpoints, moved out of the writers' way.
//!
//! In WAL mode a commit appends its pages to the `-wal` file; a checkpoint
//! copies them back into the database file and syncs it (with `synchronous =
//! NORMAL`, the only `fsync` a write pays). By default SQLite runs it inside
//! the `COMMIT` that takes the log past 1,000 pages, so that writer holds the
//! process's write turn (`WriteQueue`) through the copy and the sync, and every
//! writer queued behind it waits too. A comment writes some 27 pages (the
//! row, the search index's rows and the event, with their indexes), so one
//! comment in about 40 paid tens of milliseconds, and every writer behind it.
//!
//! Here, pool connections run with `wal_autocheckpoint = 0`, and one task per
//! [`crate::Board`] checkpoints instead: woken by commits, at most every
//! [`GATHER`], with `PRAGMA wal_checkpoint(PASSIVE)`, which takes no write lock,
//! so writers go on while it copies and syncs. Only when the log has grown past
//! [`LOG_LIMIT`] frames regardless does the task checkpoint again under the
//! write turn. SQLite rewinds the log when a writer starts with the whole log
//! copied, which a steady stream of writes may never leave it; under the turn
//! no writer of this process can add to the log between the copy and the next
//! writer, which then rewinds it, so the log stays bounded. (A `RESTART`
//! checkpoint would also wait for readers, holding the turn meanwhile.)

use std::sync::Arc;
use std::time::Duration;

use sqlx::Row;
use tokio::sync::{watch, Mutex};

use super::Conns;

/// How long the task lets commits gather before it checkpoints them: a
/// checkpoint copies a page written many times once.
pub(crate) const GATHER: Duration = Duration::from_millis(100);

/// The log size (frames: pages written) past which the task checkpoints
/// under the write turn and rewinds the log: 16,384 pages of 4 KiB, 64 MiB
/// (1,024 in unit tests, so that a test reaches it quickly).
#[cfg(not(test))]
pub(crate) const LOG_LIMIT: i64 = 16_384;
#[cfg(test)]
pub(crate) const LOG_LIMIT: i64 = 1_024;

/// Told of every commit by the write transactions of one board (SQLite).
#[derive(Debug)]
pub(crate) struct Commits(watch::Sender<u64>);

impl Commits {
    /// A new signal, with no task listening yet.
    pub(crate) fn new() -> Commits {
        Commits(watch::channel(0).0)
    }

    /// A transaction committed: its pages are in the log.
    pub(crate) fn committed(&self) {
        self.0.send_modify(|n| *n = n.wrapping_add(1));
    }
}

/// Starts the checkpoint task of a board's SQLite pool. It ends once every
/// holder of `commits` is gone (the board and its clones dropped) or the
/// pool is closed.
pub(crate) fn spawn(pool: Conns, commits: &Commits, turn: Arc<Mutex<()>>) {
    let mut woken = commits.0.subscribe();
    tokio::spawn(async move {
        while woken.changed().await.is_ok() {
            tokio::time::sleep(GATHER).await;
            woken.borrow_and_update();
            if pool.is_closed() {
                break;
            }
            if let Err(e) = checkpoint(&pool, &turn).await {
                if pool.is_closed() {
                    break;
                }
                tracing::warn!(error = %e, "SQLite checkpoint failed; retried after the next commit");
            }
        }
    });
}

/// One passive checkpoint, and another under the write turn when the log is
/// past [`LOG_LIMIT`], so that the next writer rewinds it.
async fn checkpoint(pool: &Conns, turn: &Mutex<()>) -> Result<(), sqlx::Error> {
    if passive(pool).await? > LOG_LIMIT {
        let _turn = turn.lock().await;
        passive(pool).await?;
    }
    Ok(())
}

/// Runs `PRAGMA wal_checkpoint(PASSIVE)` and returns the log's size in frames.
async fn passive(pool: &Conns) -> Result<i64, sqlx::Error> {
    let row = sqlx::query("PRAGMA wal_checkpoint(PASSIVE)")
        .fetch_one(pool)
        .await?;
    row.try_get::<i64, _>(1)
}

#[cfg(test)]
mod tests {
    use crate::testing::{card, workspace, TempBoard};
    use crate::{Actor, CommentInput, CommentText};

    /// The WAL header's salts: SQLite changes them each time a writer rewinds
    /// the log, which it does only once a checkpoint has copied the whole log
    /// into the database file.
    fn salts(wal: &std::path::Path) -> Vec<u8> {
        std::fs::read(wal).unwrap()[16..24].to_vec()
    }

    /// Commits do not checkpoint (`wal_autocheckpoint = 0`), the task does:
    /// after a burst of writes and a pause, the log has been copied, so the
    /// next write rewinds it. Without the task nothing would copy the log and
    /// it would grow for ever.
    #[tokio::test]
    async fn the_task_checkpoints_what_commits_leave_in_the_log() {
        let board = TempBoard::sqlite("checkpoint").await;
        let ws = workspace(&board).await;
        let card = card(&board, &ws.id, "Card").await;
        let comment = |i: usize| {
            CommentInput::new(CommentText::parse(&format!("comment number {i}")).unwrap())
        };
        let wal = board.dir.join("b.db-wal");
        tokio::time::sleep(super::GATHER * 3).await;
        board
            .create_comment(&Actor::Operator, &card.id, comment(0))
            .await
            .unwrap();
        let before = salts(&wal);
        for i in 0..200 {
            board
                .create_comment(&Actor::Operator, &card.id, comment(i))
                .await
                .unwrap();
        }
        tokio::time::sleep(super::GATHER * 3).await;
        board
            .create_comment(&Actor::Operator, &card.id, comment(201))
            .await
            .unwrap();
        assert!(
            salts(&wal) != before,
            "the log was not copied and rewound after the pause"
        );
        let autocheckpoint: i64 = sqlx::query_scalar("PRAGMA wal_autocheckpoint")
            .fetch_one(&board.pool)
            .await
            .unwrap();
        assert_eq!(autocheckpoint, 0, "commits must not checkpoint");
        board.close().await;
    }

    /// Writers that never pause never leave the log fully copied when the
    /// next one starts, so SQLite would never rewind it: past [`LOG_LIMIT`]
    /// the task copies it under the write turn, and the log stays bounded.
    /// It overshoots by what the writers add between two looks of the task,
    /// which depends on the machine: 3,800–4,600 pages here, also beside a
    /// disk-bound job (2,400–5,400 when the stream was 2,400 comments, and
    /// 10,590 then once in CI, where the disk is shared with the other jobs
    /// and the copy's sync is slow while the writers, who do not sync, go
    /// on). Without that step, these 4,000 comments grow the log to about
    /// 80,000 pages, so the bound sits between the two.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_steady_stream_of_writes_keeps_the_log_bounded() {
        let board = TempBoard::sqlite("checkpoint").await;
        let ws = workspace(&board).await;
        let card = card(&board, &ws.id, "Card").await;
        let mut writers = Vec::new();
        for w in 0..4 {
            let (board, card) = (board.board.clone(), card.id.clone());
            writers.push(tokio::spawn(async move {
                for i in 0..1000 {
                    let text = format!("writer {w} comment {i} with a few more words");
                    let input = CommentInput::new(CommentText::parse(&text).unwrap());
                    board
                        .create_comment(&Actor::Operator, &card, input)
                        .await
                        .unwrap();
                }
            }));
        }
        for w in writers {
            w.await.unwrap();
        }
        let bytes = std::fs::metadata(board.dir.join("b.db-wal")).unwrap().len();
        let pages = i64::try_from(bytes / 4096).unwrap();
        assert!(
            pages < 24 * super::LOG_LIMIT,
            "the log grew to {pages} pages, past 24 × {}",
            super::LOG_LIMIT
        );
        board.close().await;
    }
}
