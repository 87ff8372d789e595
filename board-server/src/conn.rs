//! The accept loop (api.md §21): HTTP/1.1 connections served by hyper, with
//! the timeouts and the connection cap warp's own server does not have.
//!
//! - A request head must be complete within `header` (10 s) of its first byte,
//!   or of the connection's opening for the first request.
//! - A request body may not pause longer than `body` (30 s) while the handler
//!   waits for it: the body then fails, so an upload stops and drops its
//!   temporary files like any refused upload.
//! - A keep-alive connection idle for `idle` (60 s) between requests is closed.
//! - Past `max_connections` open connections a new one is closed at once.
//!
//! A connection's phase (reading a head, busy with a request, idle) is kept
//! in [`Watch`]: its socket marks the first byte of a head, the service marks
//! the start of a request, and the response body, once handed over, marks the
//! start of the idle wait. A watchdog task closes the connection when the
//! phase's deadline passes. The errors hyper answers on its own (400, 414,
//! 431: a malformed or too large request head) are given the JSON body every
//! error has (`Watched::poll_write`).
//!
//! Only HTTP/1.1 is served: the timeouts above are HTTP/1.1's, and browsers speak HTTP/2 only
//! over TLS, which a reverse proxy in front terminates. hyper's own head timeout is off: it
//! runs from the start of a head's read, idle time included, so it would close a keep-alive
//! connection after 10 s instead of 60 s. Client disconnects and timeouts are logged at debug
//! level. Why each choice: `docs/decisions.md`, *Hostile clients*.

use std::convert::Infallible;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{ready, Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use http_body::{Body, Frame, SizeHint};
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Notify, Semaphore};
use tokio::time::Instant;

/// The limits of [`serve`] (from `Config`).
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Time for a request head (10 s).
    pub header: Duration,
    /// Longest gap between two body bytes while the handler reads (30 s).
    pub body: Duration,
    /// Longest idle wait between requests (60 s).
    pub idle: Duration,
    /// Connections open at once (10,000).
    pub max_connections: usize,
}

/// Serves `service` on `listener` until `shutdown` resolves; then stops
/// accepting, lets requests in flight finish (idle connections close at once)
/// and returns when every connection has ended.
pub async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) where
    S: Handler<Response = http::Response<B>>,
    S::Future: Send + 'static,
    B: Body<Data = Bytes> + Send + Unpin + 'static,
    B::Error: Into<Box<dyn std::error::Error + Send + Sync>>,
{
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let mut http = hyper::server::conn::http1::Builder::new();
    // The head timeout is the watchdog's: hyper's would also close a
    // keep-alive connection after 10 s of idling instead of 60 s.
    http.header_read_timeout(None).max_headers(100);
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(pair) => pair,
                Err(e) => {
                    accept_failed(&e).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            tracing::debug!(%peer, "connection closed at once: --max-connections reached");
            drop(stream);
            continue;
        };
        stream.set_nodelay(true).ok();
        let watch = Arc::new(Watch::new());
        let io = TokioIo::new(Watched::new(stream, watch.clone()));
        let service = Served {
            inner: service.clone(),
            watch: watch.clone(),
            gap: limits.body,
            peer,
        };
        let connection = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            tokio::select! {
                ended = connection => if let Err(e) = ended {
                    // A client that goes away is not the server's error.
                    tracing::debug!(%peer, error = %e, "connection ended");
                },
                () = watch.expired(limits) => {
                    tracing::debug!(%peer, "connection timed out");
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful.shutdown().await;
}

/// An `accept` that failed: out of file descriptors (EMFILE, ENFILE) or a
/// connection reset before it was taken. Logged, and retried after a pause,
/// so a full table does not spin the loop.
async fn accept_failed(e: &io::Error) {
    match e.kind() {
        io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset => {
            tracing::debug!(error = %e, "accept: connection gone");
        }
        _ => {
            tracing::warn!(error = %e, "accept failed; retrying in 100 ms");
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Raises this process's soft limit of open files to its hard limit, so that
/// `--max-connections` is not cut short by a soft limit of 1,024 (thousands of
/// held sockets answered `Too many open files` and took `/healthz` down).
/// Returns the limit in effect.
#[cfg(unix)]
#[allow(clippy::unnecessary_cast)] // `rlim_t` is u64 on Linux, not on every unix
pub fn raise_open_files_limit() -> Option<u64> {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return None;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                return Some(raised.rlim_cur as u64);
            }
        }
    }
    Some(limit.rlim_cur as u64)
}

/// Where a connection is: what its deadline counts from.
#[derive(Debug, Clone, Copy)]
enum Phase {
    /// Reading a request head (since its first byte, or the opening).
    Head(Instant),
    /// A request is being served: no deadline (its body has its own).
    Busy,
    /// Between requests, since the last response was handed over.
    Idle(Instant),
}

/// A connection's phase, shared by its socket, its service and its watchdog.
#[derive(Debug)]
struct Watch {
    phase: Mutex<Phase>,
    changed: Notify,
}

impl Watch {
    fn new() -> Watch {
        Watch {
            phase: Mutex::new(Phase::Head(Instant::now())),
            changed: Notify::new(),
        }
    }

    fn phase(&self) -> Phase {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn set(&self, phase: Phase) {
        *self.phase.lock().unwrap_or_else(|e| e.into_inner()) = phase;
        self.changed.notify_waiters();
    }

    /// Bytes arrived: an idle connection starts reading a head.
    fn bytes_read(&self) {
        if let Phase::Idle(_) = self.phase() {
            self.set(Phase::Head(Instant::now()));
        }
    }

    /// Resolves when the current phase's deadline has passed.
    async fn expired(&self, limits: Limits) {
        loop {
            // Registered before the phase is read, so no change is missed.
            let changed = self.changed.notified();
            let deadline = match self.phase() {
                Phase::Head(since) => Some(since + limits.header),
                Phase::Idle(since) => Some(since + limits.idle),
                Phase::Busy => None,
            };
            match deadline {
                Some(at) if at <= Instant::now() => return,
                Some(at) => {
                    tokio::select! {
                        () = tokio::time::sleep_until(at) => {}
                        () = changed => {}
                    }
                }
                None => changed.await,
            }
        }
    }
}

/// The service hyper calls: marks the connection busy, gives the handler a
/// body that fails after a gap, and a response body that marks the
/// connection idle once hyper has taken it.
#[derive(Clone)]
struct Served<S> {
    inner: S,
    watch: Arc<Watch>,
    gap: Duration,
    peer: std::net::SocketAddr,
}

/// The connection's peer, in each request's extensions: the client address
/// of a sign-in's throttle (api.md §23).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Peer(pub std::net::SocketAddr);

/// What the connections serve: warp's filter as a tower service.
pub trait Handler:
    tower_service::Service<http::Request<GapBody>, Error = Infallible> + Clone + Send + 'static
{
}

impl<S> Handler for S where
    S: tower_service::Service<http::Request<GapBody>, Error = Infallible> + Clone + Send + 'static
{
}

impl<S, B> hyper::service::Service<http::Request<Incoming>> for Served<S>
where
    S: Handler<Response = http::Response<B>>,
    S::Future: Send + 'static,
{
    type Response = http::Response<Handed<B>>;
    type Error = Infallible;
    type Future = Pin<Box<dyn Future<Output = Result<Self::Response, Infallible>> + Send>>;

    fn call(&self, req: http::Request<Incoming>) -> Self::Future {
        self.watch.set(Phase::Busy);
        let gap = self.gap;
        let mut req = req.map(|body| GapBody::new(body, gap));
        req.extensions_mut().insert(Peer(self.peer));
        let mut inner = self.inner.clone();
        let watch = self.watch.clone();
        Box::pin(async move {
            let res = tower_service::Service::call(&mut inner, req).await?;
            Ok(res.map(|body| Handed { body, watch }))
        })
    }
}

/// A response body that marks its connection idle when hyper drops it (its
/// last byte is then in hyper's write buffer).
pub struct Handed<B> {
    body: B,
    watch: Arc<Watch>,
}

impl<B> Drop for Handed<B> {
    fn drop(&mut self) {
        self.watch.set(Phase::Idle(Instant::now()));
    }
}

impl<B: Body + Unpin> Body for Handed<B> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// The request body as handlers see it: hyper's, failing once the client has
/// sent nothing for the body timeout while the handler waited for it.
pub struct GapBody {
    body: Incoming,
    gap: Duration,
    timer: Option<Pin<Box<tokio::time::Sleep>>>,
    timed_out: bool,
}

impl GapBody {
    fn new(body: Incoming, gap: Duration) -> GapBody {
        GapBody {
            body,
            gap,
            timer: None,
            timed_out: false,
        }
    }
}

/// The error of a body whose client paused too long.
#[derive(Debug, thiserror::Error)]
#[error("the client sent no byte of the request body for {} s", .0.as_secs())]
pub struct BodyTimeout(Duration);

impl Body for GapBody {
    type Data = Bytes;
    type Error = Box<dyn std::error::Error + Send + Sync>;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Self::Error>>> {
        let this = &mut *self;
        if this.timed_out {
            return Poll::Ready(Some(Err(BodyTimeout(this.gap).into())));
        }
        match Pin::new(&mut this.body).poll_frame(cx) {
            Poll::Ready(frame) => {
                this.timer = None;
                Poll::Ready(frame.map(|f| f.map_err(Into::into)))
            }
            Poll::Pending => {
                let gap = this.gap;
                let timer = this
                    .timer
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(gap)));
                ready!(timer.as_mut().poll(cx));
                this.timer = None;
                this.timed_out = true;
                Poll::Ready(Some(Err(BodyTimeout(gap).into())))
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

/// A client socket that tells its [`Watch`] when a head starts, and gives
/// hyper's own error answers the JSON body.
struct Watched {
    stream: TcpStream,
    watch: Arc<Watch>,
    /// hyper's own error answer, replaced: what is left to send of ours.
    answer: Option<(Vec<u8>, usize)>,
}

impl Watched {
    fn new(stream: TcpStream, watch: Arc<Watch>) -> Watched {
        Watched {
            stream,
            watch,
            answer: None,
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let before = buf.filled().len();
        let read = Pin::new(&mut self.stream).poll_read(cx, buf);
        if matches!(read, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            self.watch.bytes_read();
        }
        read
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        if this.answer.is_none() && !matches!(this.watch.phase(), Phase::Busy) {
            this.answer = early_error_answer(buf).map(|a| (a, 0));
        }
        let Some((answer, sent)) = this.answer.as_mut() else {
            return Pin::new(&mut this.stream).poll_write(cx, buf);
        };
        // hyper's answer is taken whole; ours goes out in its place.
        while *sent < answer.len() {
            *sent += ready!(Pin::new(&mut this.stream).poll_write(cx, &answer[*sent..]))?;
        }
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// The answer to send instead of `written`, when `written` is one hyper makes
/// on its own for a request head it could not read (no request was handed
/// to a handler, and it has no body): the same status, with the JSON error
/// body of the contract and `Connection: close`.
fn early_error_answer(written: &[u8]) -> Option<Vec<u8>> {
    let head = std::str::from_utf8(written.get(..written.len().min(512))?).ok()?;
    let status: u16 = head.strip_prefix("HTTP/1.")?.get(2..5)?.parse().ok()?;
    let (code, message) = match status {
        400 => (
            "BAD_REQUEST",
            "the request head could not be read as HTTP/1.1 (request line or a header is malformed)",
        ),
        414 => (
            "URI_TOO_LONG",
            "the request target is too long: at most 65,534 bytes",
        ),
        431 => (
            "HEADERS_TOO_LARGE",
            "the request head is too large: at most 100 headers and about 400 KB in all",
        ),
        _ => return None,
    };
    if head.to_ascii_lowercase().contains("\r\ncontent-type:") {
        return None;
    }
    let body = serde_json::json!({"error": code, "message": message}).to_string();
    let reason = http::StatusCode::from_u16(status)
        .ok()
        .and_then(|s| s.canonical_reason())
        .unwrap_or("");
    Some(
        format!(
            "HTTP/1.1 {status} {reason}\r\ncontent-type: application/json\r\n\
             cache-control: no-store\r\nx-content-type-options: nosniff\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        )
        .into_bytes(),
    )
}

#[cfg(test)]
mod tests {
    use super::early_error_answer;

    #[test]
    fn hypers_own_errors_get_the_json_body() {
        let hyper =
            b"HTTP/1.1 431 Request Header Fields Too Large\r\ncontent-length: 0\r\ndate: x\r\n\r\n";
        let ours = String::from_utf8(early_error_answer(hyper).unwrap()).unwrap();
        assert!(ours.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n"));
        assert!(
            ours.contains("content-type: application/json\r\n"),
            "{ours}"
        );
        assert!(
            ours.contains("cache-control: no-store\r\nx-content-type-options: nosniff\r\n"),
            "{ours}"
        );
        let body: serde_json::Value =
            serde_json::from_str(ours.split("\r\n\r\n").nth(1).unwrap()).unwrap();
        assert_eq!(body["error"], "HEADERS_TOO_LARGE");
        let handler = b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n\r\n{}";
        assert!(
            early_error_answer(handler).is_none(),
            "a handler's answer is kept"
        );
        assert!(early_error_answer(b"HTTP/1.1 200 OK\r\n\r\n").is_none());
    }
}
