//! A server-sent events client for the tests of `GET /api/events`: reads the
//! stream frame by frame, as a browser's `EventSource` would.

use std::time::Duration;

use serde_json::Value;

/// One event of the stream (comment lines such as `: keep-alive` are skipped).
#[derive(Debug, Clone)]
pub struct Frame {
    /// `id:`, the seq (none on `reset`).
    pub id: Option<i64>,
    /// `event:`, the type.
    pub event: String,
    /// `data:`, parsed as JSON.
    pub data: Value,
}

/// An open event stream.
pub struct EventStream {
    res: reqwest::Response,
    buf: String,
    ended: bool,
}

impl EventStream {
    /// Opens `GET {base}{path}` with `token` (and `Last-Event-ID` when given);
    /// panics unless the answer is 200 `text/event-stream`.
    pub async fn open(
        http: &reqwest::Client,
        base: &str,
        token: &str,
        path: &str,
        last_event_id: Option<&str>,
    ) -> EventStream {
        let mut req = http.get(format!("{base}{path}")).bearer_auth(token);
        if let Some(id) = last_event_id {
            req = req.header("last-event-id", id);
        }
        let res = req.send().await.expect("open the event stream");
        assert_eq!(res.status().as_u16(), 200, "GET {path}");
        let kind = res.headers()["content-type"].to_str().unwrap().to_string();
        assert!(kind.starts_with("text/event-stream"), "{kind}");
        EventStream {
            res,
            buf: String::new(),
            ended: false,
        }
    }

    /// The next event within `wait`; `None` when none came or the stream ended.
    pub async fn next(&mut self, wait: Duration) -> Option<Frame> {
        let deadline = tokio::time::Instant::now() + wait;
        loop {
            while let Some(end) = self.buf.find("\n\n") {
                let block: String = self.buf.drain(..end + 2).collect();
                if let Some(frame) = parse(&block) {
                    return Some(frame);
                }
            }
            if self.ended {
                return None;
            }
            match tokio::time::timeout_at(deadline, self.res.chunk()).await {
                Err(_) => return None,
                Ok(Ok(Some(bytes))) => self.buf.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(Ok(None)) | Ok(Err(_)) => self.ended = true,
            }
        }
    }

    /// The next `n` events, each within `wait` (panics when one is missing).
    pub async fn take(&mut self, n: usize, wait: Duration) -> Vec<Frame> {
        let mut out = Vec::new();
        for i in 0..n {
            let frame = self.next(wait).await;
            out.push(
                frame.unwrap_or_else(|| panic!("event {} of {n} did not come: got {out:?}", i + 1)),
            );
        }
        out
    }

    /// True when the server ends the stream within `wait`.
    pub async fn ends_within(&mut self, wait: Duration) -> bool {
        let deadline = tokio::time::Instant::now() + wait;
        while !self.ended {
            match tokio::time::timeout_at(deadline, self.res.chunk()).await {
                Err(_) => return false,
                Ok(Ok(Some(bytes))) => self.buf.push_str(&String::from_utf8_lossy(&bytes)),
                Ok(Ok(None)) | Ok(Err(_)) => self.ended = true,
            }
        }
        true
    }
}

fn parse(block: &str) -> Option<Frame> {
    let (mut id, mut event, mut data) = (None, None, String::new());
    for line in block.lines() {
        let (field, value) = line.split_once(':').unwrap_or((line, ""));
        let value = value.strip_prefix(' ').unwrap_or(value);
        match field {
            "id" => id = value.parse().ok(),
            "event" => event = Some(value.to_string()),
            "data" => data.push_str(value),
            _ => {} // a comment (`: keep-alive`) or an unknown field
        }
    }
    let event = event?;
    Some(Frame {
        id,
        event,
        data: serde_json::from_str(&data).unwrap_or(Value::Null),
    })
}
