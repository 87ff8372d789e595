//! Cards in order (api.md §16): where a placement puts a card in a column.
//!
//! Positions are integers, unique within a column (`cards_position`), spaced
//! [`SPACING`] apart when a card is appended or placed at the top. A card
//! placed between two neighbours takes the middle of their gap; when the gap
//! is used up, only a local window below the place is renumbered: the fewest
//! cards that, spread evenly up to the next card, leave gaps of at least
//! [`MIN_GAP`]. Everything here runs under the lock of the column's set, so the
//! neighbours read are the neighbours at commit.
//!
//! Appending and placing at the top take the last position + [`SPACING`] or the first −
//! [`SPACING`] (positions may be negative): one `MAX` or `MIN` on the `(column_id, position)`
//! index. A renumbering looks for its window among the next [`WINDOW`] cards (else among all
//! below the place, else every card below goes [`SPACING`] apart), and is two set-based
//! `UPDATE`s whatever the window's size: park the window and the placed card [`PARKED`]
//! higher, so the unique index never sees two cards on one position, then give each its place
//! by `ROW_NUMBER()` (`UPDATE … FROM`, SQLite ≥ 3.33). The renumbered cards are the
//! `cards.repositioned` event of the same commit, before the placed card's `card.moved`. A
//! hit on `cards_position` (a bug in the lock) is 409 `CONFLICT` ([`position_taken`]), never a
//! 500.
//!
//! Every write that changes a card's column or position holds its set's lock before it reads
//! the anchor and its neighbour, so two placements in one column run one after the other,
//! each on the neighbours the other left, on any number of server processes
//! (`testkit::order::race_placements` replays the event stream and checks each `card.moved`
//! against its anchor). The neighbours are read by one statement over the whole column,
//! excluding only the placed card.
//!
//! Why spaced integers: Deck renumbers a whole stack on every move, outside a transaction, and
//! lost moves; here a move renumbers nothing in the common case and a few cards in the rare
//! one, inside the placement's transaction. Vikunja's float positions halved down to 3e-285;
//! integers cannot decay, and a used-up gap is renumbered rather than split further. Planka
//! spaces floats and renumbers neighbours when a gap runs out (the same idea, with integers
//! and a wider gap here). Taiga's relative anchors are the contract's `beforeId`/`afterId`: a
//! client names a card, never a number. Fractional string keys (LexoRank) need no renumbering,
//! but grow without bound under repeated placements at one place, and the contract asks for
//! integers. Migration 0009 renumbered existing cards [`SPACING`] apart, in board order, and
//! made `cards_position (column_id, position)` unique.

use serde::Serialize;

use crate::error::{Error, Result, Rule};
use crate::ids::{CardId, ColumnId};
use crate::store::WriteTx;
use crate::validate::{self, Fields};

/// The distance between two cards appended one after the other.
pub(crate) const SPACING: i64 = 1 << 16;

/// The smallest gap a renumbering leaves: ten more placements at the same
/// place before the next one.
const MIN_GAP: i64 = 1 << 10;

/// The cards below a used-up gap read at first when looking for the window
/// to renumber; the rest of the column is read only if these do not suffice.
const WINDOW: i64 = 1024;

/// Where renumbered cards wait during the renumbering, so that the unique
/// index never sees two cards on one position: far above every real position
/// (those stay within ±2^61: 2^45 appends of [`SPACING`]).
const PARKED: i64 = 1 << 62;

/// Where a card goes in its column (api.md §16). The HTTP API takes
/// `beforeId` / `afterId`; the CLI also `--top` / `--bottom`.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("board-doc-place-{}", std::process::id()));
/// # let result = tokio::runtime::Runtime::new().unwrap().block_on(async {
/// use board_core::{Actor, Board, CardPatch, Name, NewCard, Options, Placement, SetQuery};
/// let mut options = Options::new(format!("sqlite://{}/p.db", dir.display()));
/// options.files_dir = dir.join("files");
/// let board = Board::open_with(options).await?;
/// let ws = board.admin().bootstrap().await?.expect("an empty database bootstraps").workspace.id;
/// let me = &Actor::Operator;
/// let a = board.create_card(me, NewCard::new(ws.clone(), Name::parse("A")?)).await?;
/// let top = NewCard::new(ws.clone(), Name::parse("B")?).placed(Some(Placement::Top));
/// let b = board.create_card(me, top).await?;
/// assert!(b.position < a.position);
/// let a = board.update_card(me, &a.id, CardPatch::default().placed(Placement::Before(b.id))).await?;
/// let cards = board.board(me, &SetQuery::workspace(ws)).await?.columns.remove(0).cards;
/// assert_eq!(cards[0].id, a.id);
/// # board.close().await;
/// # Ok::<(), board_core::Error>(())
/// # });
/// # std::fs::remove_dir_all(&dir).ok();
/// # result.unwrap();
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// Above every other card of the column.
    Top,
    /// Below every other card of the column.
    Bottom,
    /// Directly above this card, which must be another card of the column.
    Before(CardId),
    /// Directly below this card, which must be another card of the column.
    After(CardId),
}

impl Placement {
    /// Reads `beforeId` / `afterId` of a body; both at once is a `formErrors`
    /// entry.
    pub(crate) fn read(f: &mut Fields) -> Option<Placement> {
        let before = f.nullable("beforeId", validate::id(CardId::parse));
        let after = f.nullable("afterId", validate::id(CardId::parse));
        match (before, after) {
            (Some(_), Some(_)) => {
                f.form_error(
                    "Give either beforeId or afterId (the card directly below or above \
                     the new place), not both",
                );
                None
            }
            (Some(b), None) => Some(Placement::Before(b)),
            (None, Some(a)) => Some(Placement::After(a)),
            (None, None) => None,
        }
    }
}

/// A renumbered card's new position, as `cards.repositioned` lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, sqlx::FromRow)]
pub(crate) struct Moved {
    pub(crate) id: CardId,
    pub(crate) position: i64,
}

/// The subject of a `cards.repositioned` event.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Repositioned<'a> {
    pub(crate) column_id: &'a ColumnId,
    pub(crate) cards: &'a [Moved],
}

/// What a placement decided, under the set's lock.
#[derive(Debug)]
pub(crate) struct Spot {
    /// The card's new position; `None`: it already sits there and keeps its own.
    pub(crate) position: Option<i64>,
    /// The other cards of the column whose positions changed to make room.
    pub(crate) renumbered: Vec<Moved>,
}

/// Places `card` (a new card's fresh id, or a card moving into or within
/// `column`; `current` is its position when it already sits in `column`) by
/// `placement`: reads the neighbours of the place, and renumbers a window of
/// the column when their gap is used up. An anchor that is not another card
/// on the board in `column` (archived cards are not on it) is
/// `INVALID_ANCHOR`, and nothing has changed.
pub(crate) async fn place(
    tx: &mut WriteTx,
    column: &ColumnId,
    card: &CardId,
    current: Option<i64>,
    placement: &Placement,
) -> Result<Spot> {
    let (above, below) = neighbours(tx, column, card, placement).await?;
    let stays = current.is_some_and(|p| above.is_none_or(|a| a < p) && below.is_none_or(|b| p < b));
    let position = match (above, below) {
        _ if stays => None,
        (None, None) => Some(SPACING),
        (None, Some(b)) => Some(b - SPACING),
        (Some(a), None) => Some(a + SPACING),
        (Some(a), Some(b)) if b - a >= 2 => Some(a + (b - a) / 2),
        (Some(a), Some(_)) => return renumber(tx, column, card, a).await,
    };
    Ok(Spot {
        position,
        renumbered: Vec::new(),
    })
}

/// The positions directly above and below the place (`None`: the column's
/// edge), other than `card`'s own, in one statement.
async fn neighbours(
    tx: &mut WriteTx,
    column: &ColumnId,
    card: &CardId,
    placement: &Placement,
) -> Result<(Option<i64>, Option<i64>)> {
    let (anchor, agg, cmp) = match placement {
        Placement::Top | Placement::Bottom => {
            let agg = if *placement == Placement::Top {
                "MIN"
            } else {
                "MAX"
            };
            let sql =
                format!("SELECT {agg}(position) FROM cards WHERE column_id = $1 AND id <> $2");
            let edge: Option<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(sql))
                .bind(column)
                .bind(card)
                .fetch_one(&mut **tx)
                .await?;
            return Ok(match placement {
                Placement::Top => (None, edge),
                _ => (edge, None),
            });
        }
        Placement::Before(b) => (b, "MAX", "<"),
        Placement::After(a) => (a, "MIN", ">"),
    };
    let sql = format!(
        "SELECT a.position, (SELECT {agg}(n.position) FROM cards n \
             WHERE n.column_id = $1 AND n.id <> $2 AND n.position {cmp} a.position) \
         FROM cards a WHERE a.id = $3 AND a.column_id = $1 AND a.id <> $2 \
           AND a.archived_at IS NULL"
    );
    let (at, next): (i64, Option<i64>) = sqlx::query_as(sqlx::AssertSqlSafe(sql))
        .bind(column)
        .bind(card)
        .bind(anchor)
        .fetch_optional(&mut **tx)
        .await?
        .ok_or_else(|| {
            Error::rule(
                Rule::InvalidAnchor,
                "the anchor (beforeId / afterId) must be another card of the target column \
                 (the column given, else the card's own): not the card itself, nor a card \
                 that is deleted, archived or in another column",
            )
        })?;
    Ok(match placement {
        Placement::Before(_) => (next, Some(at)),
        _ => (Some(at), next),
    })
}

/// Makes room directly below position `above`, whose gap to the next card is
/// used up: the fewest cards below it that, spread evenly between `above` and
/// the card after them, leave gaps of at least [`MIN_GAP`] (or, when no such
/// card exists, every card below it, [`SPACING`] apart). Set-based: the
/// window's cards are parked above every position, then take their new ones
/// by rank; `card` itself, when it sits in the column, is parked too and
/// takes the first place of the window when its caller writes it.
async fn renumber(tx: &mut WriteTx, column: &ColumnId, card: &CardId, above: i64) -> Result<Spot> {
    let below = |limit: &str| {
        format!(
            "SELECT position FROM cards WHERE column_id = $1 AND id <> $2 AND position > $3 \
             ORDER BY position{limit}"
        )
    };
    let mut olds: Vec<i64> = sqlx::query_scalar(sqlx::AssertSqlSafe(below(&format!(
        " LIMIT {}",
        WINDOW + 1
    ))))
    .bind(column)
    .bind(card)
    .bind(above)
    .fetch_all(&mut **tx)
    .await?;
    let mut window = spread(above, &olds);
    if window.is_none() && olds.len() as i64 > WINDOW {
        olds = sqlx::query_scalar(sqlx::AssertSqlSafe(below("")))
            .bind(column)
            .bind(card)
            .bind(above)
            .fetch_all(&mut **tx)
            .await?;
        window = spread(above, &olds);
    }
    // No next card leaves room: the whole rest of the column, SPACING apart.
    let (end, gap) = window.unwrap_or((i64::MAX, SPACING));
    sqlx::query(
        "UPDATE cards SET position = position + $4 \
         WHERE column_id = $1 AND ((position > $2 AND position < $3) OR id = $5)",
    )
    .bind(column)
    .bind(above)
    .bind(end)
    .bind(PARKED)
    .bind(card)
    .execute(&mut **tx)
    .await
    .map_err(position_taken)?;
    let mut renumbered: Vec<Moved> = sqlx::query_as(
        "UPDATE cards SET position = $2 + (r.n + 1) * $3 \
         FROM (SELECT id, ROW_NUMBER() OVER (ORDER BY position) AS n FROM cards \
               WHERE column_id = $1 AND position > $4 AND id <> $5) r \
         WHERE cards.id = r.id RETURNING cards.id, cards.position",
    )
    .bind(column)
    .bind(above)
    .bind(gap)
    .bind(PARKED / 2)
    .bind(card)
    .fetch_all(&mut **tx)
    .await
    .map_err(position_taken)?;
    renumbered.sort_by_key(|m| m.position);
    // Only the cards whose position changed (the window's i-th card was at olds[i]).
    let mut i = 0;
    renumbered.retain(|m| {
        let same = olds.get(i) == Some(&m.position);
        i += 1;
        !same
    });
    Ok(Spot {
        position: Some(above + gap),
        renumbered,
    })
}

/// A write that hit `cards_position`, the unique index behind the set's lock
/// (two cards on one position of a column), as a 409 to retry; any other
/// error as it is.
pub(crate) fn position_taken(e: sqlx::Error) -> Error {
    let hit = match &e {
        sqlx::Error::Database(db) => {
            db.constraint() == Some("cards_position")
                || db.message().contains("cards.column_id, cards.position")
        }
        _ => false,
    };
    if hit {
        Error::Conflict(
            "another change took this place in the column at the same moment: \
             read the board again and retry"
                .into(),
        )
    } else {
        e.into()
    }
}

/// The window to renumber below `above`, given the positions below it in
/// order: `(end, gap)`, the first position left as it is and the new gap, for
/// the fewest cards that fit; `None` when none of `below` leaves room.
fn spread(above: i64, below: &[i64]) -> Option<(i64, i64)> {
    // k cards renumbered plus the placed one: k + 2 gaps up to below[k].
    (1..below.len()).find_map(|k| {
        let gap = (below[k] - above) / (k as i64 + 2);
        (gap >= MIN_GAP).then_some((below[k], gap))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::{card, workspace, TempBoard};

    /// The backstop behind the set's lock: a second card on one position of
    /// a column is refused by `cards_position` and reported as a 409 to retry.
    #[tokio::test]
    async fn a_taken_position_is_a_conflict() {
        let board = TempBoard::sqlite("position").await;
        let ws = workspace(&board).await.id;
        let a = card(&board, &ws, "a").await;
        let b = card(&board, &ws, "b").await;
        let mut tx = board.write_unlocked().await.unwrap();
        let hit = sqlx::query("UPDATE cards SET position = $1 WHERE id = $2")
            .bind(a.position)
            .bind(&b.id)
            .execute(&mut *tx)
            .await
            .map_err(position_taken);
        assert!(matches!(hit, Err(Error::Conflict(_))), "{hit:?}");
        drop(tx);
        board.close().await;
    }

    #[test]
    fn the_window_is_the_fewest_cards_that_leave_room() {
        // Halvings used up right below 0: 1, 2, 4, …, 2^16.
        let below: Vec<i64> = (0..=16).map(|i| 1 << i).collect();
        let (end, gap) = spread(0, &below).unwrap();
        assert!(gap >= MIN_GAP);
        let k = below.iter().position(|p| *p == end).unwrap();
        assert!(
            below[k - 1] / (k as i64 + 1) < MIN_GAP,
            "a smaller window had room"
        );
        assert_eq!(spread(0, &[1, 2, 3]), None);
    }
}
