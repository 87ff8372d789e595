//! Printing a workspace's live events from Rust: the same feed `GET
//! /api/events` streams, read through board-core.
//!
//! `cargo run --example events -- DATABASE_URL WORKSPACE [AFTER_SEQ]`
//!
//! WORKSPACE is a name or an id. With AFTER_SEQ, the retained events after it
//! come first (a `reset` line when some are no longer kept), then the live
//! ones; without it, only what is committed from now on. Make a change with
//! the server or `board card create …` in another terminal and watch it
//! arrive; Ctrl-C stops.

use board_core::{Actor, Board, FeedItem};

#[tokio::main]
async fn main() -> Result<(), board_core::Error> {
    let mut args = std::env::args().skip(1);
    let (Some(url), Some(workspace)) = (args.next(), args.next()) else {
        eprintln!("usage: events DATABASE_URL WORKSPACE [AFTER_SEQ]");
        std::process::exit(2);
    };
    let after = args
        .next()
        .map(|s| s.parse::<i64>())
        .transpose()
        .unwrap_or_else(|_| {
            eprintln!("AFTER_SEQ is a whole number");
            std::process::exit(2);
        });
    let mut options = board_core::Options::new(url);
    options.create_missing = false;
    let board = Board::open_with(options).await?;
    let ws = board.admin().find_workspace(&workspace).await?;
    // The operator reaches every workspace; a server subscribes as the
    // account behind the request's credential.
    let mut feed = board.subscribe(&Actor::Operator, &ws.id, after).await?;
    eprintln!("following {} ({}); Ctrl-C stops", ws.name, ws.id);
    loop {
        match feed.next().await? {
            FeedItem::Reset => println!("reset: events after {after:?} are no longer kept"),
            FeedItem::Event(e) => println!("{:>6}  {:<18} {}", e.seq, e.kind, e.data),
        }
    }
}
