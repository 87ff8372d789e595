//! Trello's JSON export of a board (board menu → Print, export and share →
//! Export as JSON), as typed structs that ignore every field they do not
//! name. Only what an import reads is named: the lists, cards, labels,
//! members and checklists of the board, and of its actions the comments
//! (`commentCard`), the moves (`updateCard` with `listBefore` / `listAfter`)
//! and the creations (`createCard`).
//!
//! The lists and cards are read leniently ([`Entry`]) so that [`parse`] can
//! say which one is wrong; a malformed action, label, member or checklist
//! is passed over, as an export holds many kinds the import does not read.

use serde::de::IgnoredAny;
use serde::Deserialize;

/// An element of an array that may not have the expected shape: the element,
/// or nothing when it was not an object of that shape.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
pub(crate) enum Entry<T> {
    /// The element as expected.
    Ok(T),
    /// Anything else.
    Bad(IgnoredAny),
}

impl<T> Entry<T> {
    fn ok(&self) -> Option<&T> {
        match self {
            Entry::Ok(t) => Some(t),
            Entry::Bad(_) => None,
        }
    }
}

/// The board, as the export holds it.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct RawBoard {
    name: Option<String>,
    lists: Option<Vec<Entry<RawList>>>,
    cards: Option<Vec<Entry<RawCard>>>,
    #[serde(default)]
    labels: Vec<Entry<Label>>,
    #[serde(default)]
    members: Vec<Entry<Member>>,
    #[serde(default)]
    checklists: Vec<Entry<Checklist>>,
    #[serde(default)]
    actions: Vec<Entry<Action>>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawList {
    id: Option<String>,
    name: Option<String>,
    #[serde(default)]
    closed: bool,
    pos: Option<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct RawCard {
    id: Option<String>,
    name: Option<String>,
    id_list: Option<String>,
    #[serde(default)]
    desc: String,
    due: Option<String>,
    #[serde(default)]
    closed: bool,
    pos: Option<f64>,
    #[serde(default)]
    id_labels: Vec<String>,
    #[serde(default)]
    id_members: Vec<String>,
    #[serde(default)]
    attachments: Vec<Entry<Attachment>>,
}

/// A list of the board (a column here).
#[derive(Debug, Clone)]
pub(crate) struct List {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) closed: bool,
    pub(crate) pos: f64,
}

/// A card of the board.
#[derive(Debug, Clone)]
pub(crate) struct Card {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) id_list: String,
    pub(crate) desc: String,
    pub(crate) due: Option<String>,
    pub(crate) closed: bool,
    pub(crate) pos: f64,
    pub(crate) id_labels: Vec<String>,
    pub(crate) id_members: Vec<String>,
    pub(crate) attachments: Vec<Attachment>,
}

/// A file or link attached to a card; Trello keeps the file.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Attachment {
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) url: String,
}

/// A label of the board; its name may be empty, its colour null.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Label {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) name: String,
    pub(crate) color: Option<String>,
}

/// A member of the board (Trello exports no e-mail address).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Member {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) username: String,
    #[serde(default)]
    pub(crate) full_name: String,
}

/// A checklist of a card, with its items.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Checklist {
    pub(crate) id_card: String,
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) pos: f64,
    #[serde(default)]
    pub(crate) check_items: Vec<CheckItem>,
}

/// An item of a checklist: `state` is `complete` or `incomplete`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct CheckItem {
    pub(crate) id: String,
    #[serde(default)]
    pub(crate) name: String,
    #[serde(default)]
    pub(crate) state: String,
    #[serde(default)]
    pub(crate) pos: f64,
}

/// An action of the board's log (newest first in the file).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Action {
    pub(crate) id: String,
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) date: Option<String>,
    pub(crate) id_member_creator: Option<String>,
    #[serde(default)]
    pub(crate) data: ActionData,
    pub(crate) member_creator: Option<Member>,
}

/// The part of an action's `data` an import reads.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct ActionData {
    pub(crate) text: Option<String>,
    pub(crate) card: Option<Ref>,
    pub(crate) list_before: Option<Ref>,
    pub(crate) list_after: Option<Ref>,
}

/// An object an action names.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Ref {
    pub(crate) id: Option<String>,
}

/// A board export, checked: every list and card has what an import needs.
#[derive(Debug, Default)]
pub(crate) struct Export {
    pub(crate) name: String,
    pub(crate) lists: Vec<List>,
    pub(crate) cards: Vec<Card>,
    pub(crate) labels: Vec<Label>,
    pub(crate) members: Vec<Member>,
    pub(crate) checklists: Vec<Checklist>,
    pub(crate) actions: Vec<Action>,
}

/// Reads `bytes` as a Trello board export; `Err` says what is wrong (not
/// JSON, no `lists` or `cards` array, a list or card that is not an object
/// or lacks its `id`, `name` or `idList`, a card whose `idList` names no
/// list of the file), at most a few problems.
pub(crate) fn parse(bytes: &[u8]) -> Result<Export, String> {
    let raw: RawBoard = serde_json::from_slice(bytes).map_err(|e| match e.classify() {
        serde_json::error::Category::Data => {
            format!("the file is JSON but not a Trello board export: {e}")
        }
        _ => format!("the file is not JSON: {e}"),
    })?;
    let mut problems = Vec::new();
    let (Some(raw_lists), Some(raw_cards)) = (raw.lists, raw.cards) else {
        return Err(
            "the file has no `lists` or no `cards` array: export the board from Trello's \
             board menu (Print, export and share → Export as JSON)"
                .into(),
        );
    };
    let mut lists = Vec::with_capacity(raw_lists.len());
    for (i, entry) in raw_lists.into_iter().enumerate() {
        match entry {
            Entry::Ok(RawList {
                id: Some(id),
                name: Some(name),
                closed,
                pos,
            }) => lists.push(List {
                id,
                name,
                closed,
                pos: pos.unwrap_or(i as f64),
            }),
            Entry::Ok(l) => problems.push(format!(
                "lists[{i}] lacks its {}",
                missing(&[("id", l.id.is_some()), ("name", l.name.is_some())])
            )),
            Entry::Bad(_) => problems.push(format!("lists[{i}] is not a list object")),
        }
    }
    let mut cards = Vec::with_capacity(raw_cards.len());
    for (i, entry) in raw_cards.into_iter().enumerate() {
        match entry {
            Entry::Ok(RawCard {
                id: Some(id),
                name: Some(name),
                id_list: Some(id_list),
                desc,
                due,
                closed,
                pos,
                id_labels,
                id_members,
                attachments,
            }) => {
                if !lists.iter().any(|l| l.id == id_list) {
                    problems.push(format!(
                        "cards[{i}] names the list {id_list:?}, which is not in `lists`"
                    ));
                }
                cards.push(Card {
                    id,
                    name,
                    id_list,
                    desc,
                    due,
                    closed,
                    pos: pos.unwrap_or(i as f64),
                    id_labels,
                    id_members,
                    attachments: attachments.iter().filter_map(Entry::ok).cloned().collect(),
                })
            }
            Entry::Ok(c) => problems.push(format!(
                "cards[{i}] lacks its {}",
                missing(&[
                    ("id", c.id.is_some()),
                    ("name", c.name.is_some()),
                    ("idList", c.id_list.is_some())
                ])
            )),
            Entry::Bad(_) => problems.push(format!("cards[{i}] is not a card object")),
        }
    }
    if !problems.is_empty() {
        let more = problems.len().saturating_sub(5);
        problems.truncate(5);
        let mut text = format!(
            "the file is not a Trello board export: {}",
            problems.join("; ")
        );
        if more > 0 {
            text.push_str(&format!(" (and {more} more)"));
        }
        return Err(text);
    }
    Ok(Export {
        name: raw.name.unwrap_or_default(),
        lists,
        cards,
        labels: keep(raw.labels).collect(),
        members: keep(raw.members).collect(),
        checklists: keep(raw.checklists).collect(),
        actions: keep(raw.actions).collect(),
    })
}

/// The elements of `v` that had their expected shape.
fn keep<T>(v: Vec<Entry<T>>) -> impl Iterator<Item = T> {
    v.into_iter().filter_map(|e| match e {
        Entry::Ok(t) => Some(t),
        Entry::Bad(_) => None,
    })
}

/// The names of the fields not `present`, as `id` or `id and name`.
fn missing(fields: &[(&str, bool)]) -> String {
    let names: Vec<&str> = fields.iter().filter(|f| !f.1).map(|f| f.0).collect();
    names.join(" and ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_is_wrong_is_named() {
        let e = parse(b"not json").unwrap_err();
        assert!(e.contains("not JSON"), "{e}");
        let e = parse(br#"{"cards": []}"#).unwrap_err();
        assert!(e.contains("`lists`"), "{e}");
        let e = parse(
            br#"{"lists": [{"id": "l"}, 3], "cards": [{"id": "c", "name": "x", "idList": "m"}]}"#,
        )
        .unwrap_err();
        assert!(e.contains("lists[0] lacks its name"), "{e}");
        assert!(e.contains("lists[1] is not a list object"), "{e}");
        assert!(e.contains("cards[0] names the list \"m\""), "{e}");
    }

    #[test]
    fn unknown_fields_and_odd_actions_are_ignored() {
        let file = br#"{"name": "B", "extra": {"x": 1},
            "lists": [{"id": "l", "name": "To do", "closed": false, "pos": 1, "softLimit": null}],
            "cards": [{"id": "c", "name": "x", "idList": "l", "badges": {}}],
            "actions": [{"id": "a", "type": "addMemberToBoard", "data": {"text": 5}},
                        {"id": "b", "type": "commentCard", "date": "2024-01-01T00:00:00.000Z",
                         "data": {"text": "hi", "card": {"id": "c"}}}]}"#;
        let e = parse(file).unwrap();
        assert_eq!((e.lists.len(), e.cards.len(), e.actions.len()), (1, 1, 1));
        assert_eq!(e.name, "B");
    }
}
