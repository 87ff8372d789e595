//! The connections every operation takes ([`Conns`]): sqlx's pool opens them
//! and caps their number, and a connection an operation gives back whole goes
//! straight to the next operation, without sqlx's ping.
//!
//! sqlx pings every connection it takes back, before the next operation may
//! have it: a round trip to PostgreSQL, a hop to the connection's thread on
//! SQLite, for every statement run on the pool. An operation that ends well
//! hands its connection back here instead ([`Conn::give_back`]), to a stack of
//! its own (the most recent on top, whose caches are warm). A connection whose
//! operation failed or was dropped midway goes back to sqlx as before, which
//! rolls back what it left, pings it and closes it when it is broken.
//!
//! Every connection is taken here, so none can wait in sqlx's pool for a
//! connection that sits on this stack: a permit per connection the pool may
//! open, and a taker that finds the stack empty waits in sqlx's pool and for a
//! connection given back here, whichever comes first.
//!
//! A connection goes on the stack only once everything sent on it was answered: a statement
//! read to its last row, a write committed. One whose statement failed, whose reader stopped
//! midway, or whose future was dropped (a client gone) goes back to sqlx. A kept connection
//! that sat there for `IDLE_PING` or more is pinged before it is handed out. sqlx's acquire
//! runs as a task of its own, so one overtaken by a connection given back still finishes and
//! its connection is kept (dropped midway, it left PostgreSQL sessions behind). `close` hands
//! the kept connections back to sqlx first. A statement run on `&Conns` as an `Executor`
//! reaches its reader through a channel, `ROWS_PER_SEND` rows at a time.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::stream::{BoxStream, Stream};
use futures_util::{FutureExt, StreamExt};
use sqlx::any::{AnyQueryResult, AnyRow, AnyStatement, AnyTypeInfo};
use sqlx::pool::PoolConnection;
use sqlx::{Any, AnyConnection, AnyPool, Connection, Either, Execute, Executor, SqlStr};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::task::JoinHandle;

use super::IDLE_PING;

/// The pool's connections, handed from one operation straight to the next.
#[derive(Clone, Debug)]
pub(crate) struct Conns {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    pool: AnyPool,
    /// One per connection the pool may open: held with each connection taken.
    permits: Arc<Semaphore>,
    /// Connections given back whole, the most recent last, with when.
    kept: Mutex<Kept>,
    /// Told of each connection given back, for a taker waiting in sqlx's pool.
    given_back: Notify,
    acquire_timeout: Duration,
}

#[derive(Debug, Default)]
struct Kept {
    conns: Vec<(PoolConnection<Any>, Instant)>,
    /// Set by [`Conns::close`]: nothing is kept any more.
    closed: bool,
}

impl Conns {
    /// The connections of `pool`, taken within `acquire_timeout`.
    pub(crate) fn new(pool: AnyPool, acquire_timeout: Duration) -> Conns {
        let max = pool.options().get_max_connections() as usize;
        Conns::with_permits(pool, max, acquire_timeout)
    }

    fn with_permits(pool: AnyPool, max: usize, acquire_timeout: Duration) -> Conns {
        Conns {
            inner: Arc::new(Inner {
                pool,
                permits: Arc::new(Semaphore::new(max)),
                kept: Mutex::default(),
                given_back: Notify::new(),
                acquire_timeout,
            }),
        }
    }

    /// A connection: the one given back last, else one from sqlx's pool; an
    /// error (`PoolTimedOut`) after the acquire timeout.
    pub(crate) async fn acquire(&self) -> Result<Conn, sqlx::Error> {
        tokio::time::timeout(self.inner.acquire_timeout, self.take())
            .await
            .map_err(|_| sqlx::Error::PoolTimedOut)?
    }

    async fn take(&self) -> Result<Conn, sqlx::Error> {
        let permit = self.inner.permits.clone().acquire_owned().await;
        let permit = permit.map_err(|_| sqlx::Error::PoolClosed)?;
        // sqlx's acquire runs as a task of its own: one overtaken by a
        // connection given back still finishes (a connection it was opening
        // is not abandoned) and keeps what it got.
        let mut acquiring: Option<JoinHandle<Result<PoolConnection<Any>, sqlx::Error>>> = None;
        let conn = loop {
            let given_back = self.inner.given_back.notified();
            tokio::pin!(given_back);
            // Registered before the stack is looked at: a connection given
            // back after this look wakes it.
            given_back.as_mut().enable();
            if let Some(conn) = self.pop().await {
                if let Some(overtaken) = acquiring {
                    let inner = self.inner.clone();
                    tokio::spawn(async move {
                        if let Ok(Ok(conn)) = overtaken.await {
                            inner.keep(conn);
                        }
                    });
                }
                break conn;
            }
            let pool = &self.inner.pool;
            let task = acquiring.get_or_insert_with(|| tokio::spawn(pool.acquire()));
            tokio::select! {
                joined = task => break joined.map_err(|e| sqlx::Error::Io(e.into()))??,
                _ = given_back => continue,
            }
        };
        Ok(Conn {
            conn: Some(conn),
            home: self.inner.clone(),
            _permit: permit,
        })
    }

    /// The connection given back last; one kept for [`IDLE_PING`] or more is
    /// pinged first, and one that fails goes back to sqlx, which closes it.
    async fn pop(&self) -> Option<PoolConnection<Any>> {
        loop {
            let (mut conn, since) = self.inner.kept.lock().expect("kept").conns.pop()?;
            if since.elapsed() < IDLE_PING || conn.ping().await.is_ok() {
                return Some(conn);
            }
        }
    }

    /// Whether the pool was closed.
    pub(crate) fn is_closed(&self) -> bool {
        self.inner.pool.is_closed()
    }

    /// Open connections.
    pub(crate) fn size(&self) -> u32 {
        self.inner.pool.size()
    }

    /// Connections no operation holds: sqlx's idle ones and the kept ones.
    pub(crate) fn num_idle(&self) -> usize {
        self.inner.pool.num_idle() + self.inner.kept.lock().expect("kept").conns.len()
    }

    /// The most connections the pool opens.
    pub(crate) fn max(&self) -> u32 {
        self.inner.pool.options().get_max_connections()
    }

    /// Hands the kept connections back to sqlx, keeps none from now on, and
    /// closes the pool (waiting for the connections operations hold).
    pub(crate) async fn close(&self) {
        let kept = {
            let mut kept = self.inner.kept.lock().expect("kept");
            kept.closed = true;
            std::mem::take(&mut kept.conns)
        };
        drop(kept);
        // sqlx's pool says it is closed at once (what background tasks
        // check when a statement fails), before a taker is refused here.
        let closing = self.inner.pool.close();
        self.inner.permits.close();
        closing.await;
    }
}

/// A connection taken from [`Conns`]: it dereferences to the connection.
/// Dropped, it goes back to sqlx's pool; [`Conn::give_back`] hands it to the
/// next operation instead.
#[derive(Debug)]
pub(crate) struct Conn {
    conn: Option<PoolConnection<Any>>,
    home: Arc<Inner>,
    _permit: OwnedSemaphorePermit,
}

impl Inner {
    /// Keeps `conn` for the next operation (unless closed) and wakes a taker
    /// waiting in sqlx's pool.
    fn keep(&self, conn: PoolConnection<Any>) {
        let mut kept = self.kept.lock().expect("kept");
        if kept.closed {
            return;
        }
        kept.conns.push((conn, Instant::now()));
        drop(kept);
        self.given_back.notify_one();
    }
}

impl Conn {
    /// Hands the connection to the next operation: only after everything sent
    /// on it was answered (no statement or transaction left open).
    pub(crate) fn give_back(mut self) {
        if let Some(conn) = self.conn.take() {
            self.home.keep(conn);
        }
    }

    /// Closes the connection instead of handing it back when dropped.
    pub(crate) fn close_on_drop(&mut self) {
        if let Some(conn) = self.conn.as_mut() {
            conn.close_on_drop();
        }
    }
}

impl std::ops::Deref for Conn {
    type Target = AnyConnection;

    fn deref(&self) -> &AnyConnection {
        self.conn.as_deref().expect("a connection")
    }
}

impl std::ops::DerefMut for Conn {
    fn deref_mut(&mut self) -> &mut AnyConnection {
        self.conn.as_deref_mut().expect("a connection")
    }
}

/// A statement run on `&Conns` takes a connection for itself, as on a pool,
/// and gives it back when the statement's last row was read.
impl<'c> Executor<'c> for &'c Conns {
    type Database = Any;

    fn fetch_many<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> BoxStream<'e, Result<Either<AnyQueryResult, AnyRow>, sqlx::Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Any>,
    {
        let (sender, receiver) = tokio::sync::mpsc::channel(2);
        let produce = async move {
            let mut conn = self.acquire().await?;
            {
                // The rows already arrived, in one message: a message per row
                // made a read of 10,000 rows 10 % slower.
                let mut rows = conn.fetch_many(query).ready_chunks(ROWS_PER_SEND);
                while let Some(chunk) = rows.next().await {
                    let chunk = chunk.into_iter().collect::<Result<Vec<_>, _>>()?;
                    if sender.send(chunk).await.is_err() {
                        // The reader stopped: the statement is left unread,
                        // so the connection goes back to sqlx.
                        return Ok(());
                    }
                }
            }
            conn.give_back();
            Ok(())
        };
        Box::pin(Rows {
            produce: Some(produce.boxed()),
            receiver,
            ready: Vec::new().into_iter(),
        })
    }

    fn fetch_optional<'e, 'q: 'e, E>(
        self,
        query: E,
    ) -> futures_util::future::BoxFuture<'e, Result<Option<AnyRow>, sqlx::Error>>
    where
        'c: 'e,
        E: 'q + Execute<'q, Any>,
    {
        Box::pin(async move {
            let mut conn = self.acquire().await?;
            let row = conn.fetch_optional(query).await?;
            conn.give_back();
            Ok(row)
        })
    }

    fn prepare_with<'e>(
        self,
        sql: SqlStr,
        parameters: &'e [AnyTypeInfo],
    ) -> futures_util::future::BoxFuture<'e, Result<AnyStatement, sqlx::Error>>
    where
        'c: 'e,
    {
        Box::pin(async move {
            let mut conn = self.acquire().await?;
            let statement = conn.prepare_with(sql, parameters).await?;
            conn.give_back();
            Ok(statement)
        })
    }

    fn describe<'e>(
        self,
        sql: SqlStr,
    ) -> futures_util::future::BoxFuture<'e, Result<sqlx::Describe<Any>, sqlx::Error>>
    where
        'c: 'e,
    {
        Box::pin(async move { self.acquire().await?.describe(sql).await })
    }
}

/// The most rows sent to the reader at once.
const ROWS_PER_SEND: usize = 64;

type Row = Either<AnyQueryResult, AnyRow>;

/// The rows of a statement run on [`Conns`]: `produce` reads them from the
/// connection into the channel, and is driven by whoever reads this stream.
struct Rows<'e> {
    produce: Option<futures_util::future::BoxFuture<'e, Result<(), sqlx::Error>>>,
    receiver: tokio::sync::mpsc::Receiver<Vec<Row>>,
    /// The rows received and not yet read.
    ready: std::vec::IntoIter<Row>,
}

impl Stream for Rows<'_> {
    type Item = Result<Row, sqlx::Error>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        if let Some(row) = self.ready.next() {
            return Poll::Ready(Some(Ok(row)));
        }
        if let Some(produce) = self.produce.as_mut() {
            if let Poll::Ready(done) = produce.poll_unpin(cx) {
                self.produce = None;
                if let Err(e) = done {
                    return Poll::Ready(Some(Err(e)));
                }
            }
        }
        match self.receiver.poll_recv(cx) {
            Poll::Ready(Some(rows)) => {
                // `ready_chunks` sends no empty chunk.
                self.ready = rows.into_iter();
                Poll::Ready(self.ready.next().map(Ok))
            }
            // Every row was read, or none is left and nothing more comes.
            Poll::Ready(None) => Poll::Ready(None),
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt;
    use sqlx::any::AnyPoolOptions;

    async fn pool(max: u32) -> AnyPool {
        sqlx::any::install_default_drivers();
        AnyPoolOptions::new()
            .max_connections(max)
            .connect("sqlite::memory:")
            .await
            .unwrap()
    }

    fn kept(conns: &Conns) -> usize {
        conns.inner.kept.lock().unwrap().conns.len()
    }

    /// A taker that found no kept connection and waits in sqlx's pool, full
    /// because its one connection is held, takes that connection when it is
    /// given back here (it never returns to sqlx's pool). More permits than
    /// connections make the wait certain; fails (time-out) without the wait
    /// for a connection given back.
    #[tokio::test]
    async fn a_taker_waiting_in_the_pool_gets_a_connection_given_back() {
        let conns = Conns::with_permits(pool(1).await, 2, Duration::from_secs(5));
        let first = conns.acquire().await.unwrap();
        let waiting = tokio::spawn({
            let conns = conns.clone();
            async move { conns.acquire().await.map(Conn::give_back) }
        });
        tokio::time::sleep(Duration::from_millis(100)).await;
        first.give_back();
        let taken = tokio::time::timeout(Duration::from_secs(2), waiting).await;
        taken
            .expect("the waiting taker got no connection")
            .unwrap()
            .unwrap();
        assert_eq!(kept(&conns), 1);
    }

    /// A taker whose connection was still being opened when another one was
    /// given back takes that one, and the connection being opened is kept,
    /// not abandoned (PostgreSQL counted thousands of abandoned sessions a
    /// minute when the taker dropped sqlx's acquire).
    #[tokio::test]
    async fn a_connection_opened_for_an_overtaken_taker_is_kept() {
        sqlx::any::install_default_drivers();
        let slow = AnyPoolOptions::new()
            .max_connections(2)
            .after_connect(|_, _| {
                Box::pin(async {
                    tokio::time::sleep(Duration::from_millis(300)).await;
                    Ok(())
                })
            })
            .connect("sqlite::memory:")
            .await
            .unwrap();
        let conns = Conns::new(slow, Duration::from_secs(5));
        let first = conns.acquire().await.unwrap();
        let second = tokio::spawn({
            let conns = conns.clone();
            async move { conns.acquire().await.unwrap() }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        first.give_back();
        let second = tokio::time::timeout(Duration::from_millis(200), second)
            .await
            .expect("the taker did not take the connection given back")
            .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(conns.size(), 2);
        assert_eq!(kept(&conns), 1, "the connection opened meanwhile");
        drop(second);
    }

    /// A statement read to its end gives its connection back; one whose reader
    /// stopped midway, or that failed, leaves it to sqlx.
    #[tokio::test]
    async fn only_a_statement_read_to_its_end_gives_its_connection_back() {
        let conns = Conns::new(pool(2).await, Duration::from_secs(5));
        let rows = sqlx::query("SELECT 1 UNION ALL SELECT 2").fetch_all(&conns);
        assert_eq!(rows.await.unwrap().len(), 2);
        assert_eq!(kept(&conns), 1);
        let one: Option<i64> = sqlx::query_scalar("SELECT 1")
            .fetch_optional(&conns)
            .await
            .unwrap();
        assert_eq!(one, Some(1));
        assert_eq!(kept(&conns), 1, "the same connection, given back again");

        // More rows than are read ahead of the reader.
        let many =
            "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) \
                    SELECT i FROM n";
        let mut stream = sqlx::query(many).fetch(&conns);
        stream.next().await.unwrap().unwrap();
        drop(stream);
        assert_eq!(kept(&conns), 0, "a statement left unread");
        assert!(sqlx::query("SELECT * FROM nowhere")
            .fetch_all(&conns)
            .await
            .is_err());
        assert_eq!(kept(&conns), 0, "a failed statement");
    }

    /// Closing hands the kept connections back to sqlx and keeps none after.
    #[tokio::test]
    async fn close_does_not_wait_for_kept_connections() {
        let conns = Conns::new(pool(2).await, Duration::from_secs(5));
        let conn = conns.acquire().await.unwrap();
        conn.give_back();
        let held = conns.acquire().await.unwrap();
        let closing = tokio::spawn({
            let conns = conns.clone();
            async move { conns.close().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        held.give_back();
        tokio::time::timeout(Duration::from_secs(2), closing)
            .await
            .expect("close waited for a kept connection")
            .unwrap();
        assert_eq!(kept(&conns), 0);
        assert!(conns.acquire().await.is_err());
    }
}
