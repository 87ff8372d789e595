//! Around every request: a request id (the client's `X-Request-Id` when it is
//! sane, else a new one) echoed in the response, one structured log line
//! (method, route template, status, latency, request id), and the metrics.

use std::sync::Arc;
use std::time::{Duration, Instant};

use warp::http::{HeaderMap, HeaderValue, Method};
use warp::reply::Response;
use warp::{Filter, Reply};

use crate::metrics::{route_template, Metrics};

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

/// A 405 names the methods the path has (RFC 9110 `Allow`).
fn allow(response: &mut Response, path: &str) {
    if let Some(route) = crate::openapi::find_route(path) {
        if let Ok(value) = HeaderValue::from_str(&route.methods.join(", ")) {
            response
                .headers_mut()
                .insert(warp::http::header::ALLOW, value);
        }
    }
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
        .and(warp::path::full())
        .and(warp::header::headers_cloned())
        .and(inner)
        .map(
            move |started: Instant,
                  method: Method,
                  path: warp::path::FullPath,
                  headers: HeaderMap,
                  reply: R| {
                let id = request_id(&headers);
                let mut response = reply.into_response();
                if let Ok(value) = HeaderValue::from_str(&id) {
                    response.headers_mut().insert(REQUEST_ID, value);
                }
                if response.status() == warp::http::StatusCode::METHOD_NOT_ALLOWED {
                    allow(&mut response, path.as_str());
                }
                let route = route_template(path.as_str());
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
