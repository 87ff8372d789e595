//! What an import from Trello writes, decided from the export and what the
//! board already holds ([`Known`]), with no database: the rows of each table
//! ([`Plan`]) and the summary the answer gives. A dry run stops here.

use std::collections::{BTreeMap, HashMap, HashSet};

use super::file::{Action, Card, Export, Member};
use super::summary::{ImportSummary, UnmappedMember};
use crate::ids::{AccountId, CardId, ChecklistItemId, ColumnId, CommentId, HistoryId, LabelId};
use crate::names::name_key;
use crate::text::{ItemText, Name};
use crate::time::{format_millis, parse_time};

/// The distance between two positions (cards, labels, items).
const SPACING: i64 = 1 << 16;

/// The most items a card's checklist holds (api.md §24).
const MAX_ITEMS: i64 = crate::checklist::MAX_ITEMS;

/// A column of the set the cards go to.
#[derive(Debug, Clone)]
pub(crate) struct KnownColumn {
    pub(crate) id: ColumnId,
    pub(crate) name: String,
    pub(crate) done: bool,
    /// The last position of its cards (0 when it has none).
    pub(crate) end: i64,
    /// Its WIP limit, and the cards on the board in it (api.md §20).
    pub(crate) limit: Option<i64>,
    pub(crate) open: i64,
}

/// A card an earlier import brought, still on the board.
#[derive(Debug, Clone, Default)]
pub(crate) struct KnownCard {
    pub(crate) items: i64,
    pub(crate) last_item: i64,
}

/// What the board holds that an import decides from.
#[derive(Debug, Default)]
pub(crate) struct Known {
    /// The set's columns, by position.
    pub(crate) columns: Vec<KnownColumn>,
    /// The workspace's labels: name key → id.
    pub(crate) labels: HashMap<String, LabelId>,
    /// The last label position.
    pub(crate) last_label: i64,
    /// The position a new column of the set takes first.
    pub(crate) next_column: i64,
    /// The workspace's members: account id and name.
    pub(crate) members: Vec<(AccountId, String)>,
    /// Trello ids remembered for the set: (kind, Trello id) → local id.
    pub(crate) remembered: HashMap<(String, String), String>,
    /// The cards remembered that still exist, by local id.
    pub(crate) cards: HashMap<String, KnownCard>,
    /// Whether columns may be created.
    pub(crate) column_management: bool,
    /// Whether WIP limits refuse (`HARD`).
    pub(crate) hard_limits: bool,
}

/// Why a plan cannot be written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Refusal {
    /// A column is needed while column management is off.
    ColumnNeeded,
    /// A column would hold more cards than its hard WIP limit: its name,
    /// limit, cards held, and cards the import adds.
    WipLimit(String, i64, i64, i64),
}

/// What the caller chose.
#[derive(Debug)]
pub(crate) struct Choices<'a> {
    /// Trello member id or username → account (each a member, checked).
    pub(crate) members: &'a BTreeMap<String, AccountId>,
    /// The importing account: author of unmapped authors' comments.
    pub(crate) importer: Option<&'a AccountId>,
    /// The time of the import.
    pub(crate) now: &'a str,
}

/// A new card.
#[derive(Debug, Clone)]
pub(crate) struct NewCard {
    pub(crate) id: CardId,
    pub(crate) column: ColumnId,
    pub(crate) title: String,
    pub(crate) description: String,
    pub(crate) position: i64,
    pub(crate) created_at: String,
    pub(crate) created_by: Option<AccountId>,
    pub(crate) due_at: Option<String>,
    pub(crate) archived: bool,
    pub(crate) history: i64,
}

/// A history entry of a new card.
#[derive(Debug, Clone)]
pub(crate) struct NewEntry {
    pub(crate) card: CardId,
    pub(crate) seq: i64,
    pub(crate) from: Option<(String, ColumnId, String)>,
    pub(crate) to_name: String,
    pub(crate) to_column: ColumnId,
    pub(crate) to_done: bool,
    pub(crate) at: String,
    pub(crate) actor: Option<AccountId>,
    pub(crate) id: HistoryId,
}

/// A new comment; `seq` is `None` on a card of an earlier import (taken in SQL).
#[derive(Debug, Clone)]
pub(crate) struct NewComment {
    pub(crate) id: CommentId,
    pub(crate) card: String,
    pub(crate) seq: Option<i64>,
    pub(crate) content: String,
    pub(crate) author: Option<AccountId>,
    pub(crate) at: String,
}

/// A new checklist item.
#[derive(Debug, Clone)]
pub(crate) struct NewItem {
    pub(crate) id: ChecklistItemId,
    pub(crate) card: String,
    pub(crate) text: String,
    pub(crate) done: bool,
    pub(crate) position: i64,
}

/// Every row an import writes.
#[derive(Debug, Default)]
pub(crate) struct Plan {
    /// New columns: id, name, position in the set.
    pub(crate) columns: Vec<(ColumnId, String, i64)>,
    /// New labels: id, name, name key, accent, position.
    pub(crate) labels: Vec<(LabelId, String, String, &'static str, i64)>,
    pub(crate) cards: Vec<NewCard>,
    pub(crate) history: Vec<NewEntry>,
    pub(crate) comments: Vec<NewComment>,
    pub(crate) items: Vec<NewItem>,
    /// (card, label).
    pub(crate) card_labels: Vec<(CardId, LabelId)>,
    /// (card, account).
    pub(crate) assignees: Vec<(CardId, AccountId)>,
    /// Trello ids to remember: kind, Trello id, local id.
    pub(crate) remember: Vec<(&'static str, String, String)>,
    /// The columns that get cards.
    pub(crate) touched: Vec<ColumnId>,
    pub(crate) summary: ImportSummary,
}

/// The Trello colour's nearest accent token (api.md §24's palette).
pub(crate) fn accent_of(color: Option<&str>) -> &'static str {
    let base = color.unwrap_or("").split('_').next().unwrap_or("");
    match base {
        "green" => "green",
        "yellow" => "yellow",
        "orange" => "orange",
        "red" => "red",
        "purple" => "purple",
        "blue" => "blue",
        "sky" => "sky",
        "lime" => "lime",
        "pink" => "pink",
        "black" => "slate",
        _ => "gray",
    }
}

/// A name as board keeps names: control characters dropped, trimmed, and cut
/// at a word when over `max` characters (an ellipsis marks the cut); `None`
/// when nothing visible is left. The second value says whether it was cut.
pub(crate) fn clean_name(raw: &str, max: usize) -> Option<(String, bool)> {
    let kept: String = raw.chars().filter(|c| !c.is_control()).collect();
    let t = kept.trim();
    if t.chars().count() <= max {
        return ItemText::parse(t).ok().map(|_| (t.to_string(), false));
    }
    let head: String = t.chars().take(max - 1).collect();
    let cut = match head.rfind(char::is_whitespace) {
        Some(at) if at > head.len() / 2 => head[..at].trim_end().to_string(),
        _ => head,
    };
    let name = format!("{cut}…");
    ItemText::parse(&name).ok().map(|_| (name, true))
}

/// An action's date as board writes times; `None` when it has none or it is
/// not a time.
fn date_of(a: &Action) -> Option<String> {
    a.date.as_deref().and_then(parse_time).map(format_millis)
}

/// When the Trello object `id` was made: the first four bytes of its id (a
/// 24-digit hexadecimal object id) are the Unix time of its creation.
fn date_of_id(id: &str) -> Option<String> {
    if id.len() != 24 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let secs = i64::from_str_radix(&id[..8], 16).ok()?;
    Some(format_millis(secs * 1000))
}

/// The members of the export and the authors of its actions, by Trello id.
fn people(export: &Export) -> Vec<Member> {
    let mut seen = HashSet::new();
    let mut out = Vec::new();
    let creators = export
        .actions
        .iter()
        .filter_map(|a| a.member_creator.clone());
    for m in export.members.iter().cloned().chain(creators) {
        if seen.insert(m.id.clone()) {
            out.push(m);
        }
    }
    out
}

/// The account each Trello member is: mapped explicitly, or a member of the
/// workspace whose name is its full name or username (ignoring case).
fn map_members(
    people: &[Member],
    choices: &Choices<'_>,
    known: &Known,
) -> (HashMap<String, AccountId>, Vec<UnmappedMember>) {
    let by_key: HashMap<String, &AccountId> = known
        .members
        .iter()
        .map(|(id, name)| (name_key(name), id))
        .collect();
    let mut mapped = HashMap::new();
    let mut unmapped = Vec::new();
    for m in people {
        let explicit = choices
            .members
            .get(&m.id)
            .or_else(|| choices.members.get(&m.username));
        let by_name = || {
            [&m.full_name, &m.username]
                .into_iter()
                .filter(|n| !n.trim().is_empty())
                .find_map(|n| by_key.get(&name_key(n)).map(|a| (*a).clone()))
        };
        match explicit.cloned().or_else(by_name) {
            Some(a) => {
                mapped.insert(m.id.clone(), a);
            }
            None => unmapped.push(UnmappedMember {
                id: m.id.clone(),
                username: m.username.clone(),
                full_name: m.full_name.clone(),
            }),
        }
    }
    (mapped, unmapped)
}

/// Decides every row of the import of `export` into a board that holds
/// `known`, or why it cannot be.
pub(crate) fn plan(export: &Export, known: &Known, choices: &Choices<'_>) -> Result<Plan, Refusal> {
    let mut p = Plan::default();
    let s = &mut p.summary;
    s.board.name = export.name.clone();
    let remembered =
        |kind: &str, id: &str| known.remembered.get(&(kind.to_string(), id.to_string()));

    // Lists → columns: remembered, else by name, else new at the end.
    let mut lists: Vec<_> = export.lists.iter().enumerate().collect();
    lists.sort_by(|a, b| a.1.pos.total_cmp(&b.1.pos).then(a.0.cmp(&b.0)));
    let mut columns: Vec<KnownColumn> = known.columns.clone();
    let mut next_position = 0;
    let mut list_column: HashMap<&str, usize> = HashMap::new();
    let mut list_order: HashMap<&str, usize> = HashMap::new();
    let key = |n: &str| n.trim().to_lowercase();
    for (order, (_, list)) in lists.iter().enumerate() {
        list_order.insert(&list.id, order);
        let at = remembered("list", &list.id)
            .and_then(|c| columns.iter().position(|k| k.id.as_str() == c))
            .or_else(|| {
                let name = clean_name(&list.name, Name::MAX).map(|n| n.0);
                let name = name.unwrap_or_else(|| "Untitled list".into());
                columns.iter().position(|k| key(&k.name) == key(&name))
            });
        let at = match at {
            Some(at) => {
                s.columns.matched += 1;
                at
            }
            None => {
                if !known.column_management {
                    return Err(Refusal::ColumnNeeded);
                }
                let name = clean_name(&list.name, Name::MAX)
                    .map_or_else(|| "Untitled list".to_string(), |n| n.0);
                let id = ColumnId::new();
                let position = known.next_column + next_position;
                next_position += 1;
                p.columns.push((id.clone(), name.clone(), position));
                columns.push(KnownColumn {
                    id,
                    name,
                    done: false,
                    end: 0,
                    limit: None,
                    open: 0,
                });
                s.columns.created += 1;
                columns.len() - 1
            }
        };
        if remembered("list", &list.id).is_none() {
            p.remember
                .push(("list", list.id.clone(), columns[at].id.to_string()));
        }
        list_column.insert(&list.id, at);
    }
    let list_closed: HashSet<&str> = export
        .lists
        .iter()
        .filter(|l| l.closed)
        .map(|l| l.id.as_str())
        .collect();

    // Labels: by name (unnamed ones by colour), created when missing.
    let mut labels = known.labels.clone();
    let mut label_of: HashMap<&str, LabelId> = HashMap::new();
    let mut last_label = known.last_label;
    for l in &export.labels {
        let raw = if l.name.trim().is_empty() {
            l.color.clone().unwrap_or_else(|| "no colour".into())
        } else {
            l.name.clone()
        };
        let name = clean_name(&raw, Name::MAX).map_or_else(|| "label".to_string(), |n| n.0);
        let k = name_key_label(&name);
        let id = match remembered("label", &l.id)
            .map(|id| LabelId::from_db(id.clone()))
            .filter(|id| labels.values().any(|v| v == id))
        {
            Some(id) => {
                s.labels.matched += 1;
                id
            }
            None => match labels.get(&k) {
                Some(id) => {
                    s.labels.matched += 1;
                    id.clone()
                }
                None => {
                    let id = LabelId::new();
                    last_label += SPACING;
                    let accent = accent_of(l.color.as_deref());
                    p.labels
                        .push((id.clone(), name, k.clone(), accent, last_label));
                    labels.insert(k, id.clone());
                    s.labels.created += 1;
                    id
                }
            },
        };
        if remembered("label", &l.id).is_none() {
            p.remember.push(("label", l.id.clone(), id.to_string()));
        }
        label_of.insert(&l.id, id);
    }

    // Members.
    let people = people(export);
    let (mapped, unmapped) = map_members(&people, choices, known);
    s.unmapped_members = unmapped;
    let person: HashMap<&str, &Member> = people.iter().map(|m| (m.id.as_str(), m)).collect();

    // The actions of each card, oldest first.
    let mut actions: HashMap<&str, Vec<&Action>> = HashMap::new();
    for a in &export.actions {
        if let Some(card) = a.data.card.as_ref().and_then(|c| c.id.as_deref()) {
            actions.entry(card).or_default().push(a);
        }
    }
    for list in actions.values_mut() {
        list.sort_by_key(|a| date_of(a).unwrap_or_default());
    }

    // Cards, in list order then by pos, after each column's cards.
    let mut cards: Vec<(usize, &Card)> = export.cards.iter().enumerate().collect();
    cards.sort_by(|a, b| {
        let la = list_order.get(a.1.id_list.as_str());
        let lb = list_order.get(b.1.id_list.as_str());
        la.cmp(&lb)
            .then(a.1.pos.total_cmp(&b.1.pos))
            .then(a.0.cmp(&b.0))
    });
    let mut touched = HashSet::new();
    let mut local_card: HashMap<&str, (String, bool)> = HashMap::new();
    let mut skipped_moves = 0;
    let mut adding: HashMap<usize, i64> = HashMap::new();
    for (_, card) in &cards {
        if let Some(local) = remembered("card", &card.id) {
            s.cards.skipped += 1;
            if known.cards.contains_key(local) {
                local_card.insert(&card.id, (local.clone(), false));
            }
            continue;
        }
        let at = list_column[card.id_list.as_str()];
        let id = CardId::new();
        let column = &mut columns[at];
        column.end += SPACING;
        let position = column.end;
        touched.insert(column.id.clone());
        let (title, cut) = clean_name(&card.name, Name::MAX)
            .unwrap_or_else(|| ("Untitled card".to_string(), false));
        let mut description = String::new();
        if cut {
            description.push_str(&strip_nul(card.name.trim()));
            description.push_str("\n\n");
        }
        description.push_str(&strip_nul(&card.desc));
        let links: Vec<_> = card
            .attachments
            .iter()
            .filter(|a| !a.url.is_empty())
            .collect();
        if !links.is_empty() {
            if !description.is_empty() {
                description.push_str("\n\n");
            }
            description.push_str("Attachments:\n");
            for a in &links {
                let name = if a.name.trim().is_empty() {
                    &a.url
                } else {
                    &a.name
                };
                let name = name.replace('[', "\\[").replace(']', "\\]");
                description.push_str(&format!("- [{}](<{}>)\n", name.trim(), a.url));
            }
            s.attachment_links += links.len() as u64;
        }
        let own = actions
            .get(card.id.as_str())
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        let creation = own.iter().find(|a| a.kind == "createCard");
        let created_at = creation
            .and_then(|a| date_of(a))
            .or_else(|| date_of_id(&card.id))
            .unwrap_or_else(|| choices.now.to_string());
        let actor_of = |a: &Action| {
            a.id_member_creator
                .as_deref()
                .and_then(|m| mapped.get(m).cloned())
                .or_else(|| choices.importer.cloned())
        };
        let created_by = creation
            .and_then(|a| actor_of(a))
            .or_else(|| choices.importer.cloned());
        let due_at = card.due.as_deref().and_then(parse_time).map(format_millis);
        if card.due.is_some() && due_at.is_none() {
            s.warnings.push(format!(
                "card {:?}: its due date is not a time, left out",
                title
            ));
        }
        let archived = card.closed || list_closed.contains(card.id_list.as_str());
        if !archived {
            *adding.entry(at).or_insert(0) += 1;
        }

        // History: the first column, then each move, ending in the current one.
        let moves: Vec<(&Action, usize, usize)> = own
            .iter()
            .filter(|a| a.kind == "updateCard")
            .filter_map(|a| {
                let before = a.data.list_before.as_ref()?.id.as_deref()?;
                let after = a.data.list_after.as_ref()?.id.as_deref()?;
                match (list_column.get(before), list_column.get(after)) {
                    (Some(&b), Some(&f)) => Some((*a, b, f)),
                    _ => {
                        skipped_moves += 1;
                        None
                    }
                }
            })
            .filter(|m| m.1 != m.2)
            .collect();
        let first = moves.first().map_or(at, |m| m.1);
        let mut entries = vec![(first, created_at.clone(), created_by.clone(), false)];
        for (a, _, to) in &moves {
            let when = date_of(a).unwrap_or_else(|| created_at.clone());
            entries.push((*to, when, actor_of(a), true));
        }
        if entries.last().map(|e| e.0) != Some(at) {
            entries.push((
                at,
                choices.now.to_string(),
                choices.importer.cloned(),
                false,
            ));
        }
        let mut previous: Option<(String, ColumnId, String)> = None;
        for (seq, (col, when, actor, counted)) in entries.iter().enumerate() {
            let c = &columns[*col];
            p.history.push(NewEntry {
                id: HistoryId::new(),
                card: id.clone(),
                seq: seq as i64 + 1,
                from: previous.clone(),
                to_name: c.name.clone(),
                to_column: c.id.clone(),
                to_done: c.done,
                at: when.clone(),
                actor: actor.clone(),
            });
            previous = Some((c.name.clone(), c.id.clone(), when.clone()));
            if *counted {
                s.history_entries += 1;
            }
        }
        let mut marked = HashSet::new();
        for l in &card.id_labels {
            if let Some(label) = label_of.get(l.as_str()) {
                if marked.insert(label) {
                    p.card_labels.push((id.clone(), label.clone()));
                }
            }
        }
        let mut assigned = HashSet::new();
        for m in &card.id_members {
            if let Some(a) = mapped.get(m) {
                if assigned.insert(a.clone()) {
                    p.assignees.push((id.clone(), a.clone()));
                }
            }
        }
        s.cards.created += 1;
        if archived {
            s.cards.archived += 1;
        }
        p.remember.push(("card", card.id.clone(), id.to_string()));
        local_card.insert(&card.id, (id.to_string(), true));
        p.cards.push(NewCard {
            id,
            column: columns[at].id.clone(),
            title,
            description,
            position,
            created_at,
            created_by,
            due_at,
            archived,
            history: entries.len() as i64,
        });
    }
    if known.hard_limits {
        for (at, n) in &adding {
            let c = &columns[*at];
            if let Some(limit) = c.limit.filter(|l| c.open + n > *l) {
                return Err(Refusal::WipLimit(c.name.clone(), limit, c.open, *n));
            }
        }
    }
    if skipped_moves > 0 {
        s.warnings.push(format!(
            "{skipped_moves} moves name a list the file does not hold: they were left out"
        ));
    }

    // Checklists, in checklist then item order.
    let mut by_card: BTreeMap<&str, Vec<&super::file::Checklist>> = BTreeMap::new();
    for c in &export.checklists {
        by_card.entry(c.id_card.as_str()).or_default().push(c);
    }
    for (card, lists) in by_card.iter_mut() {
        let Some((local, new)) = local_card.get(card) else {
            continue;
        };
        lists.sort_by(|a, b| a.pos.total_cmp(&b.pos));
        let had = if *new {
            KnownCard::default()
        } else {
            known.cards[local].clone()
        };
        let (mut count, mut last) = (had.items, had.last_item);
        let mut left_out = Vec::new();
        let several = lists.len() > 1;
        for list in lists.iter() {
            let mut items: Vec<_> = list.check_items.iter().collect();
            items.sort_by(|a, b| a.pos.total_cmp(&b.pos));
            for item in items {
                if remembered("item", &item.id).is_some() {
                    continue;
                }
                let raw = if several {
                    format!("{}: {}", list.name.trim(), item.name)
                } else {
                    item.name.clone()
                };
                let Some((text, _)) = clean_name(&raw, ItemText::MAX) else {
                    continue;
                };
                if count >= MAX_ITEMS {
                    left_out.push(text);
                    continue;
                }
                count += 1;
                last += SPACING;
                let id = ChecklistItemId::new();
                p.remember.push(("item", item.id.clone(), id.to_string()));
                p.items.push(NewItem {
                    id,
                    card: local.clone(),
                    text,
                    done: item.state == "complete",
                    position: last,
                });
                s.checklist_items += 1;
            }
        }
        if !left_out.is_empty() {
            s.warnings.push(format!(
                "a card's checklist holds at most {MAX_ITEMS} items: {} items of Trello card {card} \
                 were left out: {}",
                left_out.len(),
                left_out.join("; ")
            ));
        }
    }

    // Comments, oldest first, with their authors or an attribution line.
    let mut comments: Vec<&Action> = export
        .actions
        .iter()
        .filter(|a| a.kind == "commentCard")
        .collect();
    comments.sort_by_key(|a| date_of(a).unwrap_or_default());
    let mut seqs: HashMap<String, i64> = HashMap::new();
    for a in comments {
        let Some(card) = a.data.card.as_ref().and_then(|c| c.id.as_deref()) else {
            continue;
        };
        let Some((local, new)) = local_card.get(card) else {
            continue;
        };
        if remembered("comment", &a.id).is_some() {
            continue;
        }
        let text = strip_nul(a.data.text.as_deref().unwrap_or(""));
        if text.trim().is_empty() {
            continue;
        }
        let at = date_of(a).unwrap_or_else(|| choices.now.to_string());
        let author = a
            .id_member_creator
            .as_deref()
            .and_then(|m| mapped.get(m))
            .cloned();
        let content = match &author {
            Some(_) => text,
            None => {
                let who = a
                    .id_member_creator
                    .as_deref()
                    .and_then(|m| person.get(m))
                    .map_or_else(|| "someone".to_string(), |m| who(m));
                format!("*{who}, on Trello, {at}:*\n\n{text}")
            }
        };
        let seq = new.then(|| {
            let n = seqs.entry(local.clone()).or_insert(0);
            *n += 1;
            *n
        });
        let id = CommentId::new();
        p.remember.push(("comment", a.id.clone(), id.to_string()));
        p.comments.push(NewComment {
            id,
            card: local.clone(),
            seq,
            content,
            author: author.or_else(|| choices.importer.cloned()),
            at,
        });
        s.comments += 1;
    }
    p.touched = touched.into_iter().collect();
    Ok(p)
}

/// How an unmapped author is named: full name and username.
fn who(m: &Member) -> String {
    match (m.full_name.trim(), m.username.trim()) {
        ("", "") => "someone".to_string(),
        (name, "") => name.to_string(),
        ("", user) => format!("@{user}"),
        (name, user) => format!("{name} (@{user})"),
    }
}

/// `text` without NUL, which no backend stores as text.
fn strip_nul(text: &str) -> String {
    text.replace('\0', "")
}

/// A label name's unique key (as `labels.rs` folds it).
pub(crate) fn name_key_label(name: &str) -> String {
    name.to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_names_are_cut_at_a_word() {
        let long = format!("{} end", "word ".repeat(30));
        let (name, cut) = clean_name(&long, 100).unwrap();
        assert!(
            cut && name.chars().count() <= 100 && name.ends_with("word…"),
            "{name}"
        );
        assert_eq!(clean_name(" a\u{7}b ", 100).unwrap(), ("ab".into(), false));
        assert!(clean_name("\u{200B} ", 100).is_none());
    }

    #[test]
    fn colours_map_to_accents() {
        assert_eq!(accent_of(Some("green_dark")), "green");
        assert_eq!(accent_of(Some("black")), "slate");
        assert_eq!(accent_of(None), "gray");
    }

    #[test]
    fn object_ids_hold_their_time() {
        assert_eq!(
            date_of_id("5f0c5c8f1a2b3c4d5e6f7a8b").as_deref(),
            Some("2020-07-13T13:07:27.000Z")
        );
        assert_eq!(date_of_id("nope"), None);
    }
}
