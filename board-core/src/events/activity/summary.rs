//! An activity item's `summary` (api.md §29): a short English sentence built from the event's
//! payload, the subject's previous state (for what an update changed) and today's names.
//! Seen from a card, that card is "the card"; in a workspace's feed, a card is named by its
//! title in quotes.

use std::collections::{HashMap, HashSet};

use serde_json::Value;

use super::row::Row;

/// Whether events of `kind` carry their subject in full: a card, or a
/// checklist item (an update's change is the difference with the previous).
pub(super) fn is_state(kind: &str) -> bool {
    matches!(
        kind,
        "card.created"
            | "card.updated"
            | "card.moved"
            | "card.archived"
            | "card.restored"
            | "checklist.created"
            | "checklist.updated"
    )
}

/// The previous state of `row`'s subject among `older` (the page's rows
/// after it, newest first).
pub(super) fn before<'r>(older: &'r [Row], row: &Row) -> Option<&'r Row> {
    if !is_state(&row.kind) {
        return None;
    }
    let id = row.subject("id")?;
    older
        .iter()
        .find(|r| is_state(&r.kind) && r.subject("id") == Some(id))
}

/// Adds the ids `row`'s summary may name: its actor, its cards, columns,
/// labels and people.
pub(super) fn named_ids<'r>(row: &'r Row, ids: &mut HashSet<&'r str>) {
    let subject = &row.data["subject"];
    let texts = [
        row.data["actorId"].as_str(),
        row.data["fromColumnId"].as_str(),
        subject["columnId"].as_str(),
        subject["accountId"].as_str(),
        row.card.as_deref(),
        row.other.as_deref(),
    ];
    ids.extend(texts.into_iter().flatten());
    for list in ["labelIds", "assigneeIds"] {
        if let Some(items) = subject[list].as_array() {
            ids.extend(items.iter().filter_map(Value::as_str));
        }
    }
}

/// `text` in typographic quotes.
fn quoted(text: &str) -> String {
    format!("“{text}”")
}

/// `parts` as one clause: "a", "a and b", "a, b and c".
fn joined(parts: &[String]) -> String {
    match parts {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// The items of the id list `key` of `subject`.
fn id_list<'v>(subject: &'v Value, key: &str) -> Vec<&'v str> {
    subject[key]
        .as_array()
        .map(|a| a.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default()
}

/// Where summaries are read: from one card's activity, or the feed.
pub(super) struct View<'a> {
    /// The card whose activity this is (`None`: a workspace's feed).
    pub(super) card: Option<&'a str>,
    /// Today's names, by id.
    pub(super) names: &'a HashMap<String, String>,
}

impl View<'_> {
    /// The name of `id`, in quotes, or `fallback`.
    fn name(&self, id: Option<&str>, fallback: &str) -> String {
        id.and_then(|id| self.names.get(id))
            .map_or_else(|| fallback.to_string(), |n| quoted(n))
    }

    /// A person's name, bare.
    fn person(&self, id: &str) -> String {
        self.names
            .get(id)
            .cloned()
            .unwrap_or_else(|| "a removed account".into())
    }

    /// How the card `id` is named: "the card" in its own activity, else its
    /// title (`title`, or today's), in quotes.
    fn card(&self, id: Option<&str>, title: Option<&str>) -> String {
        if id.is_some() && id == self.card {
            return "the card".into();
        }
        match title {
            Some(t) => quoted(t),
            None => self.name(id, "a card"),
        }
    }

    /// `" {prep} <the card>"` in the feed, nothing in the card's own activity.
    fn tail(&self, prep: &str, id: Option<&str>) -> String {
        match id.is_some() && id == self.card {
            true => String::new(),
            false => format!(" {prep} {}", self.card(id, None)),
        }
    }

    /// A column's name.
    fn column(&self, id: Option<&str>) -> String {
        self.name(id, "a removed column")
    }

    /// The summary of `row`, whose subject was `before` (when known).
    pub(super) fn summary(&self, row: &Row, before: Option<&Row>) -> String {
        let subject = &row.data["subject"];
        let id = row.card.as_deref();
        let title = subject["title"].as_str();
        let text = |key: &str| quoted(subject[key].as_str().unwrap_or(""));
        match row.kind.as_str() {
            "card.created" => format!(
                "created {} in {}",
                self.card(id, title),
                self.column(subject["columnId"].as_str())
            ),
            "card.updated" => self.card_changes(row, before, None),
            "card.moved" => {
                let moved = format!(
                    "from {} to {}",
                    self.column(row.data["fromColumnId"].as_str()),
                    self.column(subject["columnId"].as_str())
                );
                self.card_changes(row, before, Some(moved))
            }
            "card.archived" => format!("archived {}", self.card(id, title)),
            "card.restored" => format!("restored {}", self.card(id, title)),
            "card.deleted" => format!("deleted {}", self.card(id, None)),
            "comment.created" => format!("commented{}", self.tail("on", id)),
            "comment.updated" => format!("edited a comment{}", self.tail("on", id)),
            "comment.deleted" => format!("deleted a comment{}", self.tail("on", id)),
            "attachment.created" => {
                format!("attached {}{}", text("originalName"), self.tail("to", id))
            }
            "attachment.deleted" => format!("removed an attachment{}", self.tail("from", id)),
            "checklist.created" => format!(
                "added {} to the checklist{}",
                text("text"),
                self.tail("of", id)
            ),
            "checklist.updated" => {
                let was = before.map(|b| &b.data["subject"]);
                let change = match was {
                    Some(w) if w["text"] != subject["text"] => format!(
                        "changed the checklist item {} to {}",
                        quoted(w["text"].as_str().unwrap_or("")),
                        text("text")
                    ),
                    Some(w) if w["done"] != subject["done"] => match subject["done"].as_bool() {
                        Some(true) => format!("checked {}", text("text")),
                        _ => format!("unchecked {}", text("text")),
                    },
                    Some(_) => "reordered the checklist".into(),
                    None => format!("updated the checklist item {}", text("text")),
                };
                format!("{change}{}", self.tail("on", id))
            }
            "checklist.deleted" => format!("removed a checklist item{}", self.tail("from", id)),
            "relation.created" => {
                let (a, b) = (self.card(id, None), self.card(row.other.as_deref(), None));
                match subject["kind"].as_str() {
                    Some("PARENT") => format!("made {a} the parent of {b}"),
                    Some("BLOCKS") => format!("marked {a} as blocking {b}"),
                    Some("GENERATED") => format!("marked {b} as generated from {a}"),
                    _ => format!("linked {a} and {b}"),
                }
            }
            "relation.deleted" => format!(
                "removed the link between {} and {}",
                self.card(id, None),
                self.card(row.other.as_deref(), None)
            ),
            "column.created" => format!("added the column {}", text("name")),
            "column.updated" => format!("changed the column {}", text("name")),
            "columns.reordered" => "reordered the columns".into(),
            "column.deleted" => "deleted a column".into(),
            "label.created" => format!("added the label {}", text("name")),
            "label.updated" => format!("changed the label {}", text("name")),
            "label.deleted" => "deleted a label".into(),
            "settings.updated" => "changed the workspace's settings".into(),
            "member.added" => format!("added {} to the workspace", text("name")),
            "member.updated" => format!("changed the role of {}", text("name")),
            "member.removed" => match subject["name"].as_str() {
                Some(_) => format!("removed {} from the workspace", text("name")),
                None => "removed a member from the workspace".into(),
            },
            "project.created" => format!("created the project {}", text("name")),
            "project.updated" => format!("changed the project {}", text("name")),
            "import.completed" => "imported a Trello board".into(),
            other => format!("made a change ({other})"),
        }
    }

    /// A card's update or move (`moved`: "from A to B"): what changed since
    /// `before`, as one sentence.
    fn card_changes(&self, row: &Row, before: Option<&Row>, moved: Option<String>) -> String {
        let now = &row.data["subject"];
        let id = row.card.as_deref();
        let mut parts = Vec::new();
        let mut named = false;
        if let Some(moved) = moved {
            parts.push(format!(
                "moved {} {moved}",
                self.card(id, now["title"].as_str())
            ));
            named = true;
        }
        if let Some(was) = before.map(|b| &b.data["subject"]) {
            if was["title"] != now["title"] {
                let title = quoted(now["title"].as_str().unwrap_or(""));
                match named {
                    true => parts.push(format!("renamed it to {title}")),
                    false => {
                        let old = self.card(id, was["title"].as_str());
                        parts.push(format!("renamed {old} to {title}"));
                    }
                }
                named = true;
            }
            if was["description"] != now["description"] {
                parts.push("edited the description".into());
            }
            if was["dueAt"] != now["dueAt"] {
                parts.push(match now["dueAt"].as_str() {
                    Some(due) => format!("set the due date to {}", due.get(..10).unwrap_or(due)),
                    None => "removed the due date".into(),
                });
            }
            for (key, added, removed) in [
                ("labelIds", "added the label", "removed the label"),
                ("assigneeIds", "assigned", "unassigned"),
            ] {
                let (old, new) = (id_list(was, key), id_list(now, key));
                let name = |i: &str| match key {
                    "labelIds" => self.name(Some(i), "a removed label"),
                    _ => self.person(i),
                };
                for i in new.iter().filter(|i| !old.contains(i)) {
                    parts.push(format!("{added} {}", name(i)));
                }
                for i in old.iter().filter(|i| !new.contains(i)) {
                    parts.push(format!("{removed} {}", name(i)));
                }
            }
        }
        if parts.is_empty() {
            return format!("updated {}", self.card(id, now["title"].as_str()));
        }
        let tail = match named {
            true => String::new(),
            false => self.tail("on", id),
        };
        format!("{}{tail}", joined(&parts))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(seq: i64, kind: &str, card: &str, data: Value) -> Row {
        Row {
            seq,
            kind: kind.into(),
            at: String::new(),
            data,
            card: Some(card.into()),
            other: None,
        }
    }

    #[test]
    fn summaries_read_as_sentences() {
        let names: HashMap<String, String> = [
            ("todo", "To do"),
            ("done", "Done"),
            ("bug", "Bug"),
            ("ann", "Ann"),
            ("k", "Fix login"),
        ]
        .map(|(a, b)| (a.to_string(), b.to_string()))
        .into();
        let card = |title: &str, labels: Value, col: &str| {
            serde_json::json!({"id": "k", "title": title, "labelIds": labels,
                               "assigneeIds": ["ann"], "columnId": col, "description": ""})
        };
        let old = row(
            1,
            "card.created",
            "k",
            serde_json::json!({"subject": card("Fix", serde_json::json!([]), "todo")}),
        );
        let new = row(
            2,
            "card.updated",
            "k",
            serde_json::json!({"subject": card("Fix login", serde_json::json!(["bug"]), "todo")}),
        );
        let moved = row(
            3,
            "card.moved",
            "k",
            serde_json::json!({"fromColumnId": "todo", "subject": card("Fix login", serde_json::json!(["bug"]), "done")}),
        );
        let own = View {
            card: Some("k"),
            names: &names,
        };
        let feed = View {
            card: None,
            names: &names,
        };
        assert_eq!(own.summary(&old, None), "created the card in “To do”");
        assert_eq!(
            own.summary(&new, Some(&old)),
            "renamed the card to “Fix login” and added the label “Bug”"
        );
        assert_eq!(
            feed.summary(&new, Some(&old)),
            "renamed “Fix” to “Fix login” and added the label “Bug”"
        );
        assert_eq!(
            own.summary(&moved, Some(&new)),
            "moved the card from “To do” to “Done”"
        );
        assert_eq!(feed.summary(&new, None), "updated “Fix login”");
        let item = |done: bool| serde_json::json!({"subject": {"id": "i", "text": "Write tests", "done": done}});
        let open = row(4, "checklist.created", "k", item(false));
        let checked = row(5, "checklist.updated", "k", item(true));
        assert_eq!(own.summary(&checked, Some(&open)), "checked “Write tests”");
        assert_eq!(
            feed.summary(&checked, Some(&open)),
            "checked “Write tests” on “Fix login”"
        );
        let comment = row(
            6,
            "comment.created",
            "k",
            serde_json::json!({"subject": {}}),
        );
        assert_eq!(own.summary(&comment, None), "commented");
        assert_eq!(before(&[open], &checked).map(|r| r.seq), Some(4));
    }
}
