//! The reference for HTTP overhead in `BENCHMARKS.md`: a bare warp server with
//! one route that answers `{"status":"ok"}` and touches nothing else (no
//! database, no request id, no log line, no metrics).
//!
//! Given a database URL as well, it also serves `GET /one?id=ID`: one
//! statement per request (`SELECT id FROM workspaces WHERE id = $1`, the
//! primary key of a board database) on a pool of 16 connections, answered as
//! `{"id":…}`. That is the least a route that reads the database once can do:
//! `examples/latency` sets `GET /api/columns` beside both.
//!
//! ```sh
//! cargo run --release --example bare_warp -- 127.0.0.1:18091 &
//! wrk -t2 -c32 -d10s --latency http://127.0.0.1:18091/healthz
//! ```

use std::collections::HashMap;
use std::net::SocketAddr;

use sqlx::any::AnyPoolOptions;
use warp::Filter;

#[tokio::main]
async fn main() {
    let mut args = std::env::args().skip(1);
    let addr: SocketAddr = args
        .next()
        .unwrap_or_else(|| "127.0.0.1:18091".into())
        .parse()
        .expect("an address such as 127.0.0.1:18091");
    let healthz = warp::path!("healthz")
        .and(warp::get())
        .map(|| warp::reply::json(&serde_json::json!({"status": "ok"})));
    let pool = match args.next() {
        Some(url) => {
            sqlx::any::install_default_drivers();
            // As the server's pool: 16 connections, none pinged when taken.
            let pool = AnyPoolOptions::new()
                .max_connections(16)
                .test_before_acquire(false)
                .connect(&url)
                .await
                .expect("connect");
            Some(pool)
        }
        None => None,
    };
    let one = warp::path!("one")
        .and(warp::get())
        .and(warp::query::<HashMap<String, String>>())
        .and_then(move |q: HashMap<String, String>| {
            let pool = pool.clone();
            async move {
                let (Some(pool), Some(id)) = (pool, q.get("id")) else {
                    return Err(warp::reject::not_found());
                };
                let id: Option<String> =
                    sqlx::query_scalar("SELECT id FROM workspaces WHERE id = $1")
                        .bind(id)
                        .fetch_optional(&pool)
                        .await
                        .map_err(|_| warp::reject::not_found())?;
                Ok(warp::reply::json(&serde_json::json!({ "id": id })))
            }
        });
    // Bound before it says so: a client that starts on that line finds it
    // listening (printed before the bind, it refused the first connections).
    let server = warp::serve(healthz.or(one)).bind(addr).await;
    println!("bare warp listening on http://{addr}");
    server.run().await;
}
