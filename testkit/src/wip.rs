//! WIP limits (api.md §20): many moves raced into one HARD-limited column
//! (used by `tests/e2e/wip.rs` in-process and by `board-server/tests/server.rs`
//! across two server processes).

use std::sync::Arc;

use serde_json::json;

use crate::order::{numbered, race_patches};
use crate::App;

/// Creates `movers` cards in `from`, then moves them all at once into `to`
/// (a column of the `Default` set with a hard WIP limit of `limit`), spread
/// over the servers at `bases`. Checks that `to` ends with exactly `limit`
/// cards, and that exactly `limit` moves answered 200 and every other one 422
/// `WIP_LIMIT`.
pub async fn race_moves(
    app: Arc<App>,
    bases: &[String],
    from: &str,
    to: &str,
    movers: usize,
    limit: usize,
) {
    let cards = app.cards_at_end(from, &numbered("racer", movers)).await;
    let patches = cards
        .into_iter()
        .map(|c| (c, json!({ "columnId": to })))
        .collect();
    let answers: Vec<(u16, String)> = race_patches(&app, bases, patches)
        .await
        .into_iter()
        .map(|r| {
            (
                r.status,
                r.body["error"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    let held = app.column_order(to).await.len();
    assert!(
        held <= limit,
        "{held} cards in a column limited to {limit}: {answers:?}"
    );
    let accepted = answers.iter().filter(|(status, _)| *status == 200).count();
    let refused = answers
        .iter()
        .filter(|a| *a == &(422, "WIP_LIMIT".to_string()))
        .count();
    assert_eq!((accepted, refused), (limit, movers - limit), "{answers:?}");
    assert_eq!(held, limit);
}
