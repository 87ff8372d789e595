//! A webhook receiver on 127.0.0.1 that the test controls: it answers each
//! POST as told (2xx, another status, a hang, a dropped connection), and
//! records every request, and whether two were ever in flight at once.
//! HTTP/1.1 with keep-alive, by hand: a request head, a `Content-Length`
//! body, an answer.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How the receiver answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// `200`.
    Accept,
    /// This status.
    Status(u16),
    /// No answer: the connection is held open for 60 s.
    Hang,
    /// The connection is closed without an answer.
    Drop,
}

/// One request the receiver read.
#[derive(Debug, Clone)]
pub struct Hit {
    /// `X-Board-Delivery`, as a number (-1 when absent).
    pub seq: i64,
    /// `X-Board-Event`.
    pub event: String,
    /// `X-Board-Timestamp`.
    pub timestamp: String,
    /// `X-Board-Signature`.
    pub signature: String,
    /// `Content-Type`.
    pub content_type: String,
    /// The body.
    pub body: String,
    /// The answer's status (`None`: no answer).
    pub status: Option<u16>,
    /// When the request head was read.
    pub at: Instant,
}

#[derive(Debug)]
struct State {
    mode: Mode,
    /// Answers `Status(500)` to this many requests first, then as `mode`.
    fail_next: usize,
    /// Waits this long before answering.
    delay: Duration,
    hits: Vec<Hit>,
    in_flight: usize,
    overlaps: usize,
}

/// The receiver; it stops when dropped.
pub struct Receiver {
    /// `http://127.0.0.1:PORT/hook`
    pub url: String,
    state: Arc<Mutex<State>>,
    task: JoinHandle<()>,
}

impl Drop for Receiver {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl Receiver {
    /// Starts a receiver that answers 200.
    pub async fn start() -> Receiver {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let url = format!("http://{}/hook", listener.local_addr().expect("addr"));
        let state = Arc::new(Mutex::new(State {
            mode: Mode::Accept,
            fail_next: 0,
            delay: Duration::ZERO,
            hits: Vec::new(),
            in_flight: 0,
            overlaps: 0,
        }));
        let shared = state.clone();
        let task = tokio::spawn(async move {
            while let Ok((socket, _)) = listener.accept().await {
                tokio::spawn(serve(socket, shared.clone()));
            }
        });
        Receiver { url, state, task }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Answers as `mode` from now on.
    pub fn set_mode(&self, mode: Mode) {
        self.state().mode = mode;
    }

    /// Answers 500 to the next `n` requests.
    pub fn fail_next(&self, n: usize) {
        self.state().fail_next = n;
    }

    /// Waits `delay` before each answer.
    pub fn set_delay(&self, delay: Duration) {
        self.state().delay = delay;
    }

    /// Every request so far.
    pub fn hits(&self) -> Vec<Hit> {
        self.state().hits.clone()
    }

    /// The seqs answered 2xx, in the order they came.
    pub fn accepted(&self) -> Vec<i64> {
        self.hits()
            .iter()
            .filter(|h| h.status.is_some_and(|s| (200..300).contains(&s)))
            .map(|h| h.seq)
            .collect()
    }

    /// How many requests arrived while another was in flight.
    pub fn overlaps(&self) -> usize {
        self.state().overlaps
    }

    /// Waits up to `within` until `done` holds for the accepted seqs; returns them.
    pub async fn wait_for(&self, within: Duration, done: impl Fn(&[i64]) -> bool) -> Vec<i64> {
        let end = Instant::now() + within;
        loop {
            let got = self.accepted();
            if done(&got) || Instant::now() > end {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

/// Reads requests from one connection and answers them.
async fn serve(mut socket: TcpStream, state: Arc<Mutex<State>>) {
    let mut buf: Vec<u8> = Vec::new();
    loop {
        let Some(head_end) = read_head(&mut socket, &mut buf).await else {
            return;
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).to_string();
        let header = |name: &str| {
            head.lines()
                .find_map(|l| {
                    let (k, v) = l.split_once(':')?;
                    k.trim()
                        .eq_ignore_ascii_case(name)
                        .then(|| v.trim().to_string())
                })
                .unwrap_or_default()
        };
        let length: usize = header("content-length").parse().unwrap_or(0);
        let mut body = buf[head_end + 4..].to_vec();
        while body.len() < length {
            let mut chunk = [0u8; 8192];
            match socket.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => body.extend_from_slice(&chunk[..n]),
            }
        }
        buf = body.split_off(length);
        let (mode, delay, index) = {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            s.in_flight += 1;
            if s.in_flight > 1 {
                s.overlaps += 1;
            }
            let mode = if s.fail_next > 0 {
                s.fail_next -= 1;
                Mode::Status(500)
            } else {
                s.mode
            };
            s.hits.push(Hit {
                seq: header("x-board-delivery").parse().unwrap_or(-1),
                event: header("x-board-event"),
                timestamp: header("x-board-timestamp"),
                signature: header("x-board-signature"),
                content_type: header("content-type"),
                body: String::from_utf8_lossy(&body).to_string(),
                status: None,
                at: Instant::now(),
            });
            (mode, s.delay, s.hits.len() - 1)
        };
        if !delay.is_zero() {
            tokio::time::sleep(delay).await;
        }
        let status = match mode {
            Mode::Accept => Some(200),
            Mode::Status(s) => Some(s),
            Mode::Hang => {
                // Until the client gives up (closes) or 60 s pass.
                let mut byte = [0u8; 1];
                tokio::time::timeout(Duration::from_secs(60), socket.read(&mut byte))
                    .await
                    .ok();
                None
            }
            Mode::Drop => None,
        };
        let answered = match status {
            Some(s) => {
                let answer = format!("HTTP/1.1 {s} X\r\nContent-Length: 2\r\n\r\nok");
                socket.write_all(answer.as_bytes()).await.is_ok()
            }
            None => false,
        };
        {
            let mut s = state.lock().unwrap_or_else(|e| e.into_inner());
            s.in_flight -= 1;
            if answered {
                s.hits[index].status = status;
            }
        }
        if !answered {
            return;
        }
    }
}

/// Reads until a request head ends; its end's offset in `buf`.
async fn read_head(socket: &mut TcpStream, buf: &mut Vec<u8>) -> Option<usize> {
    loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            return Some(i);
        }
        let mut chunk = [0u8; 8192];
        match socket.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => buf.extend_from_slice(&chunk[..n]),
        }
    }
}
