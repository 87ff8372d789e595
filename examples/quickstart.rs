//! Using board-core from Rust: open a SQLite file, create a workspace (born
//! with its three columns), add a column and a card, move the card, and print its history.
//!
//! `cargo run --example quickstart [sqlite://path/to/file.db]`

use board_core::{Accent, Actor, Board, NewCard, NewColumn};

#[tokio::main]
async fn main() -> Result<(), board_core::Error> {
    let url = std::env::args().nth(1).unwrap_or_else(|| {
        let dir = std::env::temp_dir().join(format!("board-quickstart-{}", std::process::id()));
        format!("sqlite://{}/board.db", dir.display())
    });
    let board = Board::open(&url).await?;
    // The CLI and this example act as the installation's operator.
    let me = Actor::Operator;

    // A workspace is born with To do, Doing and Done (the done column).
    let ws = board.create_workspace("Quickstart").await?;
    let mut columns = board.list_columns(&me, Some(ws.id.as_str()), None).await?;
    // Another column, before Done.
    let review = NewColumn {
        tenant_id: ws.id.clone(),
        project_id: None,
        name: "Review".into(),
        color: Accent::Violet,
        done: false,
    };
    columns.push(board.create_column(&me, review.into()).await?);

    let card = board
        .create_card(
            &me,
            NewCard {
                tenant_id: ws.id.clone(),
                project_id: None,
                column_id: None,
                title: "Try board-core".into(),
            }
            .into(),
        )
        .await?;
    let card_id = board_core::CardId::from_path(&card.id)?;
    board.move_card(&me, &card_id, &columns[1].id).await?; // Doing
    board.move_card(&me, &card_id, &columns[3].id).await?; // Review
    board.move_card(&me, &card_id, &columns[2].id).await?; // Done

    println!("database: {url}");
    println!("card {:?} ({})", card.title, card.id);
    for entry in board.card_history(&me, &card_id).await? {
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
