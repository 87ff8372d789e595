//! The reference for HTTP overhead in `BENCHMARKS.md`: a bare warp server with
//! one route that answers `{"status":"ok"}` and touches nothing else (no
//! database, no request id, no log line, no metrics).
//!
//! ```sh
//! cargo run --release --example bare_warp -- 127.0.0.1:18091 &
//! wrk -t2 -c32 -d10s --latency http://127.0.0.1:18091/healthz
//! ```

use std::net::SocketAddr;

use warp::Filter;

#[tokio::main]
async fn main() {
    let addr: SocketAddr = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:18091".into())
        .parse()
        .expect("an address such as 127.0.0.1:18091");
    let route = warp::path!("healthz")
        .and(warp::get())
        .map(|| warp::reply::json(&serde_json::json!({"status": "ok"})));
    // Bound before it says so: a client that starts on that line finds it
    // listening (printed before the bind, it refused the first connections).
    let server = warp::serve(route).bind(addr).await;
    println!("bare warp listening on http://{addr}");
    server.run().await;
}
