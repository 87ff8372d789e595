//! Around every request: a request id (the client's `X-Request-Id` when it is
//! sane, else a new one) echoed in the response, one structured log line
//! (method, route template, status, latency, request id), and the metrics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use warp::http::{HeaderMap, HeaderValue, Method};
use warp::reply::Response;
use warp::{Filter, Reply};

use crate::metrics::Metrics;
use crate::routes::RouteTemplate;

/// The request header (and response header) that carries the request id.
pub const REQUEST_ID: &str = "x-request-id";

fn request_id(headers: &HeaderMap) -> String {
    headers
        .get(REQUEST_ID)
        .and_then(|v| v.to_str().ok())
        .filter(|v| !v.is_empty() && v.len() <= 128 && v.bytes().all(|b| b.is_ascii_graphic()))
        .map(str::to_string)
        .unwrap_or_else(cuid2::create_id)
}

/// A latency in milliseconds for the log, rounded to the microsecond: a number
/// with at most 3 decimals (`0.421`, not `0.42100699999999996`).
fn latency_ms(elapsed: Duration) -> f64 {
    (elapsed.as_nanos() as f64 / 1000.0).round() / 1000.0
}

/// Wraps `inner` (which never rejects) with the request id, the log and the metrics.
pub fn wrap<F, R>(
    inner: F,
    metrics: Arc<Metrics>,
) -> impl Filter<Extract = (Response,), Error = std::convert::Infallible> + Clone
where
    F: Filter<Extract = (R,), Error = std::convert::Infallible> + Clone + Send + Sync + 'static,
    R: Reply,
{
    warp::any()
        .map(Instant::now)
        .and(warp::method())
        .and(warp::header::headers_cloned())
        .and(inner)
        .map(
            move |started: Instant, method: Method, headers: HeaderMap, reply: R| {
                let id = request_id(&headers);
                let mut response = reply.into_response();
                if let Ok(value) = HeaderValue::from_str(&id) {
                    response.headers_mut().insert(REQUEST_ID, value);
                }
                let route = response
                    .extensions()
                    .get::<RouteTemplate>()
                    .map_or("other", |t| t.0);
                let status = response.status().as_u16();
                let elapsed = started.elapsed();
                metrics.observe(method.as_str(), route, status, elapsed.as_secs_f64());
                tracing::info!(
                    method = %method,
                    route = %route,
                    status,
                    latency_ms = latency_ms(elapsed),
                    request_id = %id,
                    "request"
                );
                response
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latency_is_logged_to_the_microsecond() {
        assert_eq!(
            latency_ms(Duration::from_nanos(421_007)).to_string(),
            "0.421"
        );
        assert_eq!(
            latency_ms(Duration::from_nanos(421_500)).to_string(),
            "0.422"
        );
        assert_eq!(latency_ms(Duration::from_nanos(12)).to_string(), "0");
        assert_eq!(
            latency_ms(Duration::from_micros(1_234_567)).to_string(),
            "1234.567"
        );
        assert_eq!(format!("{:?}", latency_ms(Duration::from_millis(3))), "3.0");
    }
}
