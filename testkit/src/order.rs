//! Cards in order (api.md §16): reading a column's order over HTTP, and the
//! race of many placements in one column, checked against the event stream
//! (used by `tests/e2e/order.rs` in-process and by `board-server/tests/server.rs`
//! across two server processes).

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::sync::Barrier;

use crate::sse::EventStream;
use crate::{App, Res};

/// The id of a JSON resource.
fn id(v: &Value) -> String {
    v["id"].as_str().expect("an id").to_string()
}

/// `n` titles: `{prefix} 0`, `{prefix} 1`, …
pub fn numbered(prefix: &str, n: usize) -> Vec<String> {
    (0..n).map(|i| format!("{prefix} {i}")).collect()
}

impl App {
    /// The cards of `column` (an id of the `Default` set) as `(id, position)`,
    /// top to bottom, from `GET /api/board`; checks that positions ascend
    /// strictly (unique within the column).
    pub async fn column_order(&self, column: &str) -> Vec<(String, i64)> {
        let r = self
            .call("GET", &format!("/api/board?tenant={}", self.tenant), None)
            .await;
        assert_eq!(r.status, 200, "{:?}", r.body);
        let col = r.body["columns"]
            .as_array()
            .expect("columns")
            .iter()
            .find(|c| c["id"] == column)
            .expect("the column is on the board");
        let cards: Vec<(String, i64)> = col["cards"]
            .as_array()
            .expect("cards")
            .iter()
            .map(|c| (id(c), c["position"].as_i64().expect("a position")))
            .collect();
        for pair in cards.windows(2) {
            assert!(
                pair[0].1 < pair[1].1,
                "positions ascend strictly: {cards:?}"
            );
        }
        cards
    }

    /// The ids of `column`'s cards, top to bottom.
    pub async fn column_ids(&self, column: &str) -> Vec<String> {
        self.column_order(column)
            .await
            .into_iter()
            .map(|(id, _)| id)
            .collect()
    }

    /// Creates one card per title at the end of `column`; returns their ids.
    pub async fn cards_at_end(&self, column: &str, titles: &[impl AsRef<str>]) -> Vec<String> {
        let mut ids = Vec::new();
        for title in titles {
            let body =
                json!({"tenantId": self.tenant, "title": title.as_ref(), "columnId": column});
            let r = self.call("POST", "/api/cards", Some(body)).await;
            assert_eq!(r.status, 201, "{:?}", r.body);
            ids.push(id(&r.body));
        }
        ids
    }
}

/// Races `movers` placements in `column` of `app`'s `Default` workspace, sent
/// round-robin to `bases` (servers on the app's database), all released at
/// once: mover `i` goes after (even `i`) or before (odd `i`) one of three
/// anchors, so gaps run out and windows are renumbered while others place.
///
/// Then checks, from the event stream replayed in seq order (each commit's
/// `cards.repositioned`, then its `card.moved`), that every placement that
/// answered 200 sat directly beside its anchor at its commit, and that the
/// replay ends on the board's order: positions unique, no card lost or
/// duplicated.
pub async fn race_placements(app: Arc<App>, bases: &[String], column: &str, movers: usize) {
    let anchors = app.cards_at_end(column, &numbered("anchor", 10)).await;
    let moving = app.cards_at_end(column, &numbered("mover", movers)).await;
    let before: Vec<(String, i64)> = app.column_order(column).await;
    let mut events = EventStream::open(
        &app.http,
        &app.base,
        &app.token,
        &format!("/api/events?tenant={}", app.tenant),
        None,
    )
    .await;

    // (mover, anchor, after?)
    let plan: Vec<(String, String, bool)> = moving
        .iter()
        .enumerate()
        .map(|(i, m)| (m.clone(), anchors[1 + (i / 2) % 3].clone(), i % 2 == 0))
        .collect();
    let patches = plan
        .iter()
        .map(|(mover, anchor, after)| {
            let side = if *after { "afterId" } else { "beforeId" };
            (mover.clone(), json!({ side: anchor }))
        })
        .collect();
    for r in race_patches(&app, bases, patches).await {
        assert_eq!(r.status, 200, "a racing placement failed: {:?}", r.body);
    }

    // Replay: one card.moved per placement, with any renumbering before it.
    let mut model: HashMap<String, i64> = before.iter().cloned().collect();
    let mut placed = 0;
    let mut last_seq = 0;
    while placed < plan.len() {
        let frame = events
            .next(Duration::from_secs(10))
            .await
            .unwrap_or_else(|| panic!("{placed} of {} placements streamed", plan.len()));
        let seq = frame.id.expect("a seq");
        assert!(seq > last_seq, "events in seq order");
        last_seq = seq;
        let subject = &frame.data["subject"];
        match frame.event.as_str() {
            "cards.repositioned" => {
                assert_eq!(subject["columnId"], column);
                for c in subject["cards"].as_array().expect("cards") {
                    model.insert(id(c), c["position"].as_i64().expect("a position"));
                }
            }
            "card.moved" => {
                assert_eq!(frame.data["fromColumnId"], column);
                let card = id(subject);
                let at = subject["position"].as_i64().expect("a position");
                model.insert(card.clone(), at);
                let (_, anchor, after) = plan.iter().find(|p| p.0 == card).expect("a mover");
                let a = model[anchor];
                let (lo, hi) = if *after { (a, at) } else { (at, a) };
                assert!(
                    lo < hi,
                    "{card} on the wrong side of its anchor at seq {seq}"
                );
                let between: Vec<_> = model.iter().filter(|(_, p)| lo < **p && **p < hi).collect();
                assert!(
                    between.is_empty(),
                    "{card} not beside its anchor at seq {seq}: {between:?}"
                );
                placed += 1;
            }
            other => panic!("unexpected event {other}"),
        }
    }
    let mut replayed: Vec<(String, i64)> = model.into_iter().collect();
    replayed.sort_by_key(|(_, p)| *p);
    let now = app.column_order(column).await;
    assert_eq!(
        now.len(),
        anchors.len() + moving.len(),
        "no card lost or duplicated"
    );
    assert_eq!(replayed, now, "the events replay to the board's order");
}

/// Sends every `(card, body)` of `patches` as `PATCH /api/cards/{card}` at
/// once, spread over the servers at `bases`, and returns the answers in order.
/// Each task first opens its connection (a `GET` of its card), then all wait
/// on one barrier, so the writes start together.
pub async fn race_patches(
    app: &Arc<App>,
    bases: &[String],
    patches: Vec<(String, Value)>,
) -> Vec<Res> {
    let barrier = Arc::new(Barrier::new(patches.len()));
    let mut tasks = Vec::new();
    for (i, (card, body)) in patches.into_iter().enumerate() {
        let (app, barrier, base) = (app.clone(), barrier.clone(), bases[i % bases.len()].clone());
        tasks.push(tokio::spawn(async move {
            let path = format!("/api/cards/{card}");
            let token = app.token.clone();
            assert_eq!(
                app.call_at(&base, &token, "GET", &path, None).await.status,
                200
            );
            barrier.wait().await;
            app.call_at(&base, &token, "PATCH", &path, Some(body)).await
        }));
    }
    let mut answers = Vec::new();
    for t in tasks {
        answers.push(t.await.expect("a racing task"));
    }
    answers
}
