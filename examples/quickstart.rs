//! Using board-core from Rust: open a SQLite file, create a workspace (born
//! with its three columns), add a column and a card, move the card, and print its history.
//!
//! `cargo run --release --example quickstart [sqlite://path/to/file.db]`
//! (without a URL, a temporary folder is used and removed at the end).

use board_core::{Accent, Actor, Board, Name, NewCard, NewColumn, SetQuery};

#[tokio::main]
async fn main() -> Result<(), board_core::Error> {
    let (url, temp_dir) = match std::env::args().nth(1) {
        Some(url) => (url, None),
        None => {
            let dir = std::env::temp_dir().join(format!("board-quickstart-{}", std::process::id()));
            (format!("sqlite://{}/board.db", dir.display()), Some(dir))
        }
    };
    let result = run(&url).await;
    if let Some(dir) = temp_dir {
        std::fs::remove_dir_all(dir).ok();
    }
    result
}

async fn run(url: &str) -> Result<(), board_core::Error> {
    let board = Board::open(url).await?;
    // The CLI and this example act as the installation's operator.
    let me = Actor::Operator;

    // A workspace is born with To do, Doing and Done (the done column).
    let ws = board
        .admin()
        .create_workspace(&Name::parse("Quickstart")?)
        .await?;
    let mut columns = board
        .list_columns(&me, Some(&SetQuery::workspace(ws.id.clone())))
        .await?;
    // Another column, before Done.
    let review = NewColumn::new(ws.id.clone(), Name::parse("Review")?).color(Accent::Violet);
    columns.push(board.create_column(&me, review).await?);

    let new = NewCard::new(ws.id.clone(), Name::parse("Try board-core")?);
    let card = board.create_card(&me, new).await?;
    board.move_card(&me, &card.id, &columns[1].id).await?; // Doing
    board.move_card(&me, &card.id, &columns[3].id).await?; // Review
    board.move_card(&me, &card.id, &columns[2].id).await?; // Done

    println!("database: {url}");
    println!("card {:?} ({})", card.title, card.id);
    for entry in board.card_history(&me, &card.id).await? {
        println!(
            "  {}  {:>6} -> {}",
            entry.moved_at,
            entry.from_name.as_deref().unwrap_or("(new)"),
            entry.to_name
        );
    }
    board.close().await;
    Ok(())
}
