//! What the benchmarks of `examples/` share: every request timed, the
//! latencies summed up (p50, p99, the slowest) as the figures are printed.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Every request's latency and how many failed.
pub struct Run {
    /// Each request's latency.
    pub latencies: Vec<Duration>,
    /// How many failed.
    pub failures: usize,
    /// The run's wall-clock time.
    pub wall: Duration,
}

impl Run {
    /// Requests per second.
    pub fn rate(&self) -> f64 {
        self.latencies.len() as f64 / self.wall.as_secs_f64()
    }

    /// The latency at quantile `q` (0.5: the median).
    pub fn pick(&self, q: f64) -> Duration {
        let mut l = self.latencies.clone();
        l.sort();
        l[((l.len() as f64 * q).ceil() as usize).clamp(1, l.len()) - 1]
    }

    /// One printed line: req/s, p50, p99, the slowest and the failures.
    pub fn line(&self, what: &str) -> String {
        let slowest = self.latencies.iter().max().copied().unwrap_or_default();
        format!(
            "{what:<46} {:>8.0} req/s  p50 {:>7.2} ms  p99 {:>7.2} ms  slowest {:>7.1} ms  failed {}",
            self.rate(),
            self.pick(0.50).as_secs_f64() * 1e3,
            self.pick(0.99).as_secs_f64() * 1e3,
            slowest.as_secs_f64() * 1e3,
            self.failures
        )
    }
}

/// Runs `total` calls of `call(i)` from `connections` tasks; `call` says
/// whether the request succeeded.
pub async fn load<F, Fut>(connections: usize, total: usize, call: F) -> Run
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = bool> + Send,
{
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..connections {
        let (next, call) = (next.clone(), call.clone());
        tasks.push(tokio::spawn(async move {
            let (mut times, mut failed) = (Vec::new(), 0);
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= total {
                    break (times, failed);
                }
                let t = Instant::now();
                let ok = call(i).await;
                times.push(t.elapsed());
                failed += usize::from(!ok);
            }
        }));
    }
    let mut run = Run {
        latencies: Vec::new(),
        failures: 0,
        wall: Duration::ZERO,
    };
    for t in tasks {
        let (times, failed) = t.await.expect("a load task");
        run.latencies.extend(times);
        run.failures += failed;
    }
    run.wall = started.elapsed();
    run
}
