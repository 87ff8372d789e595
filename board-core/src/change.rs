//! What a write emits: the [`Change`] an operation hands its write transaction
//! ([`crate::store::WriteTx::emit`]), the outbox row of one event of api.md §11 (type,
//! workspace, actor, the resource after the change), built from the actor and the subject.
//! It sits below the resources, which all emit one; reading the outbox back and delivering it
//! is `events`' and `webhooks`' work.
//!
//! One operation, one event per change it makes: deleting a column is one `column.deleted`,
//! however many cards it moved; an upload writes one `attachment.created` per file; a
//! placement that renumbers cards emits `cards.repositioned` before the placed card's
//! `card.moved`, in the same commit.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::access::Actor;
use crate::ids::{CardId, WorkspaceId};

/// The cards a change of `kind` with `subject` concerns, read from the
/// subject: a card's own id, the `cardId` of a comment or a checklist item,
/// both cards of a link. Every other change concerns no card (a deletion's
/// subject is `{id}`: its operation names the card, [`Change::on_card`]).
fn cards_of(kind: &str, subject: &Value) -> [Option<CardId>; 2] {
    let id = |key: &str| {
        subject
            .get(key)
            .and_then(Value::as_str)
            .map(|s| CardId::from_db(s.to_string()))
    };
    match kind.split('.').next() {
        Some("card") => [id("id"), None],
        Some("comment" | "checklist") => [id("cardId"), None],
        Some("relation") => [id("sourceId"), id("targetId")],
        _ => [None, None],
    }
}

/// A change an operation describes for the outbox: the store's row, built
/// here from the actor and the resource (`Change::new`, `Change::deleted`).
pub(crate) use crate::store::OutboxRow as Change;

impl Change {
    /// The change `kind` in `workspace` by `actor`, with `subject` (the
    /// resource after the change, in its API shape) and `extra` fields of
    /// `data` (`fromColumnId`, …).
    pub(crate) fn new(
        kind: &'static str,
        workspace: &WorkspaceId,
        actor: &Actor,
        subject: &impl Serialize,
        extra: &[(&str, Value)],
    ) -> Change {
        let at = crate::time::now();
        let mut data = Map::new();
        data.insert("type".into(), Value::from(kind));
        data.insert("tenantId".into(), serde_json::json!(workspace));
        data.insert("at".into(), serde_json::json!(at));
        data.insert("actorId".into(), serde_json::json!(actor.account()));
        data.insert(
            "subject".into(),
            serde_json::to_value(subject).unwrap_or(Value::Null),
        );
        for (k, v) in extra {
            data.insert((*k).to_string(), v.clone());
        }
        let [card, other_card] = cards_of(kind, &data["subject"]);
        Change {
            workspace: workspace.clone(),
            kind,
            data: Value::Object(data).to_string(),
            at,
            position_of: None,
            card,
            other_card,
        }
    }

    /// This change concerns `card` (and a link's `other` card), for the
    /// activity of api.md §29: for the changes whose subject does not name
    /// their card (an attachment, a deletion's `{id}`).
    pub(crate) fn on_card(mut self, card: &CardId, other: Option<&CardId>) -> Change {
        self.card = Some(card.clone());
        self.other_card = other.cloned();
        self
    }

    /// A deletion: the subject is `{id}`.
    pub(crate) fn deleted(
        kind: &'static str,
        workspace: &WorkspaceId,
        actor: &Actor,
        id: &impl Serialize,
    ) -> Change {
        Change::new(
            kind,
            workspace,
            actor,
            &serde_json::json!({ "id": id }),
            &[],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_carries_the_contract_fields() {
        let c = Change::new(
            "card.moved",
            &WorkspaceId::from_db("w".into()),
            &Actor::Operator,
            &serde_json::json!({"id": "c"}),
            &[("fromColumnId", Value::from("a"))],
        );
        let data: Value = serde_json::from_str(&c.data).unwrap();
        assert_eq!(data["type"], "card.moved");
        assert_eq!(data["tenantId"], "w");
        assert_eq!(data["actorId"], Value::Null);
        assert_eq!(data["subject"]["id"], "c");
        assert_eq!(data["fromColumnId"], "a");
        assert_eq!(data["at"], c.at.as_str());
        assert_eq!(c.card.as_ref().map(AsRef::as_ref), Some("c"));
        assert_eq!(c.other_card, None);
    }

    #[test]
    fn a_change_names_the_cards_it_concerns() {
        let ws = WorkspaceId::from_db("w".into());
        let of = |kind, subject: Value| {
            let c = Change::new(kind, &ws, &Actor::Operator, &subject, &[]);
            [c.card, c.other_card].map(|c| c.map(|c| c.as_ref().to_string()))
        };
        let link = serde_json::json!({"id": "r", "sourceId": "a", "targetId": "b"});
        assert_eq!(
            of("relation.created", link),
            [Some("a".into()), Some("b".into())]
        );
        let item = serde_json::json!({"id": "i", "cardId": "k"});
        assert_eq!(of("checklist.updated", item), [Some("k".into()), None]);
        let label = serde_json::json!({"id": "l"});
        assert_eq!(of("label.created", label), [None, None]);
    }
}
