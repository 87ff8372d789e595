//! Request counters and latency histograms per route, in Prometheus text format.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;

/// Upper bounds (seconds) of the latency histogram buckets.
const BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 10.0,
];

#[derive(Debug, Default)]
struct Histogram {
    counts: [u64; BUCKETS.len()],
    sum: f64,
    count: u64,
}

/// What the server has served since it started.
#[derive(Debug, Default)]
pub struct Metrics {
    /// (method, route, status) → requests.
    requests: Mutex<BTreeMap<(String, String, u16), u64>>,
    /// (method, route) → latency histogram.
    latency: Mutex<BTreeMap<(String, String), Histogram>>,
}

impl Metrics {
    /// Records one finished request.
    pub fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        *self
            .requests
            .lock()
            .expect("metrics lock")
            .entry((method.to_string(), route.to_string(), status))
            .or_default() += 1;
        let mut latency = self.latency.lock().expect("metrics lock");
        let h = latency
            .entry((method.to_string(), route.to_string()))
            .or_default();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                h.counts[i] += 1;
            }
        }
        h.sum += seconds;
        h.count += 1;
    }

    /// The Prometheus text exposition, with the database pool's use.
    pub fn render(&self, pool_size: u32, pool_idle: usize, pool_max: u32) -> String {
        let mut out = String::new();
        out.push_str(
            "# HELP board_http_requests_total HTTP requests by method, route and status.\n",
        );
        out.push_str("# TYPE board_http_requests_total counter\n");
        for ((method, route, status), n) in self.requests.lock().expect("metrics lock").iter() {
            let _ = writeln!(
                out,
                "board_http_requests_total{{method=\"{method}\",route=\"{route}\",status=\"{status}\"}} {n}"
            );
        }
        out.push_str(
            "# HELP board_http_request_duration_seconds Request latency by method and route.\n",
        );
        out.push_str("# TYPE board_http_request_duration_seconds histogram\n");
        for ((method, route), h) in self.latency.lock().expect("metrics lock").iter() {
            let labels = format!("method=\"{method}\",route=\"{route}\"");
            for (bound, n) in BUCKETS.iter().zip(h.counts) {
                let _ = writeln!(
                    out,
                    "board_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {n}"
                );
            }
            let _ = writeln!(
                out,
                "board_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}\n\
                 board_http_request_duration_seconds_sum{{{labels}}} {}\n\
                 board_http_request_duration_seconds_count{{{labels}}} {}",
                h.count, h.sum, h.count
            );
        }
        let _ = write!(
            out,
            "# HELP board_db_pool_connections Open database connections.\n\
             # TYPE board_db_pool_connections gauge\n\
             board_db_pool_connections {pool_size}\n\
             # HELP board_db_pool_idle_connections Idle database connections.\n\
             # TYPE board_db_pool_idle_connections gauge\n\
             board_db_pool_idle_connections {pool_idle}\n\
             # HELP board_db_pool_max_connections The pool's connection limit.\n\
             # TYPE board_db_pool_max_connections gauge\n\
             board_db_pool_max_connections {pool_max}\n"
        );
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_histograms() {
        let m = Metrics::default();
        m.observe("GET", "/api/columns", 200, 0.003);
        m.observe("GET", "/api/columns", 200, 0.2);
        m.observe("GET", "/api/columns", 401, 0.0005);
        let text = m.render(2, 1, 16);
        assert!(text.contains(
            "board_http_requests_total{method=\"GET\",route=\"/api/columns\",status=\"200\"} 2"
        ));
        assert!(text.contains("status=\"401\"} 1"));
        assert!(text.contains("route=\"/api/columns\",le=\"0.005\"} 2"));
        assert!(text.contains(
            "board_http_request_duration_seconds_count{method=\"GET\",route=\"/api/columns\"} 3"
        ));
        assert!(text.contains("board_db_pool_connections 2"));
    }
}
