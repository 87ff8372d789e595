//! Trello board exports built for tests and benchmarks, in the shape Trello
//! writes them (board menu → Print, export and share → Export as JSON), from
//! its documented objects: a board with `lists`, `cards`, `labels`,
//! `members`, `checklists` and `actions` (newest first), each object with the
//! fields Trello writes around the ones an import reads, ids 24 hexadecimal
//! digits whose first eight are the object's creation time.

use serde_json::{json, Value};

/// A board export under construction.
#[derive(Debug, Clone)]
pub struct TrelloBoard {
    id: String,
    name: String,
    next: u64,
    /// The Unix time of the objects made next (each id advances it a second).
    clock: i64,
    lists: Vec<Value>,
    cards: Vec<Value>,
    /// Each card's index in `cards`, by id.
    card_at: std::collections::HashMap<String, usize>,
    labels: Vec<Value>,
    members: Vec<Value>,
    checklists: Vec<Value>,
    /// Oldest first here; written newest first, as Trello does.
    actions: Vec<Value>,
}

/// An ISO time as Trello writes it, from Unix seconds.
fn iso(secs: i64) -> String {
    board_core::Timestamp::from_millis(secs * 1000).to_string()
}

impl TrelloBoard {
    /// An empty board named `name`, its objects made from 2024-03-01 on.
    pub fn new(name: &str) -> TrelloBoard {
        let mut b = TrelloBoard {
            id: String::new(),
            name: name.to_string(),
            next: 0,
            clock: 1_709_280_000,
            lists: Vec::new(),
            cards: Vec::new(),
            card_at: Default::default(),
            labels: Vec::new(),
            members: Vec::new(),
            checklists: Vec::new(),
            actions: Vec::new(),
        };
        b.id = b.new_id();
        b
    }

    /// A new object id, a second after the last.
    fn new_id(&mut self) -> String {
        self.next += 1;
        self.clock += 1;
        format!("{:08x}{:016x}", self.clock, self.next)
    }

    /// The time of the last object made.
    pub fn now(&self) -> String {
        iso(self.clock)
    }

    fn board_ref(&self) -> Value {
        json!({"id": self.id, "name": self.name, "shortLink": "aBcD1234"})
    }

    fn list_ref(&self, list: &str) -> Value {
        let l = self.lists.iter().find(|l| l["id"] == list).expect("list");
        json!({"id": list, "name": l["name"]})
    }

    fn card_ref(&self, card: &str) -> &Value {
        &self.cards[self.card_at[card]]
    }

    fn card_mut(&mut self, card: &str) -> &mut Value {
        let at = self.card_at[card];
        &mut self.cards[at]
    }

    /// Adds a member; returns its id.
    pub fn member(&mut self, username: &str, full_name: &str) -> String {
        let id = self.new_id();
        self.members.push(json!({
            "id": id, "username": username, "fullName": full_name,
            "initials": full_name.chars().take(1).collect::<String>(),
            "avatarHash": null, "avatarUrl": null, "memberType": "normal",
            "confirmed": true, "activityBlocked": false, "idMemberReferrer": null,
            "nonPublic": {}, "nonPublicAvailable": true
        }));
        id
    }

    /// Adds a label (`name` may be empty, `color` null); returns its id.
    pub fn label(&mut self, name: &str, color: Option<&str>) -> String {
        let id = self.new_id();
        self.labels.push(json!({
            "id": id, "idBoard": self.id, "name": name, "color": color, "uses": 0
        }));
        id
    }

    /// Adds a list, closed or not; returns its id.
    pub fn list(&mut self, name: &str, closed: bool) -> String {
        let id = self.new_id();
        let pos = 16_384 * (self.lists.len() as i64 + 1);
        self.lists.push(json!({
            "id": id, "name": name, "closed": closed, "color": null, "idBoard": self.id,
            "pos": pos, "subscribed": false, "softLimit": null,
            "limits": {"cards": {"openPerList": {"status": "ok", "disableAt": 5000, "warnAt": 4000}}},
            "creationMethod": null, "idOrganization": "0123456789abcdef01234567"
        }));
        id
    }

    /// Adds a card at the end of `list`, created by `by` (a member id); returns its id.
    pub fn card(&mut self, list: &str, name: &str, desc: &str, by: &str) -> String {
        let id = self.new_id();
        let pos = 16_384.0 * (self.cards.len() as f64 + 1.0);
        let date = self.now();
        self.card_at.insert(id.clone(), self.cards.len());
        self.cards.push(json!({
            "id": id, "name": name, "desc": desc, "closed": false, "idList": list,
            "idBoard": self.id, "pos": pos, "due": null, "dueComplete": false, "start": null,
            "dueReminder": null, "idLabels": [], "labels": [], "idMembers": [],
            "idChecklists": [], "attachments": [], "idShort": self.cards.len() + 1,
            "shortLink": format!("s{}", self.next), "shortUrl": "https://trello.com/c/aBcD1234",
            "url": "https://trello.com/c/aBcD1234/1-card", "dateLastActivity": date,
            "subscribed": false, "manualCoverAttachment": false, "isTemplate": false,
            "cardRole": null, "idAttachmentCover": null, "idMembersVoted": [],
            "badges": {"attachments": 0, "comments": 0, "checkItems": 0, "checkItemsChecked": 0,
                       "description": !desc.is_empty(), "due": null, "votes": 0},
            "cover": {"idAttachment": null, "color": null, "size": "normal", "brightness": "dark"},
            "customFieldItems": [], "pluginData": []
        }));
        let action = json!({
            "type": "createCard", "idMemberCreator": by, "memberCreator": self.who(by),
            "data": {"card": {"id": id, "name": name, "idShort": self.cards.len(),
                              "shortLink": format!("s{}", self.next)},
                     "list": self.list_ref(list), "board": self.board_ref()}
        });
        self.action(action);
        id
    }

    /// Sets fields of a card (`closed`, `due`, `pos`, …).
    pub fn set(&mut self, card: &str, field: &str, value: Value) {
        self.card_mut(card)[field] = value;
    }

    /// Puts the label on the card.
    pub fn label_card(&mut self, card: &str, label: &str) {
        let l = self
            .labels
            .iter()
            .find(|l| l["id"] == label)
            .expect("label")
            .clone();
        let c = self.card_mut(card);
        c["idLabels"].as_array_mut().unwrap().push(json!(label));
        c["labels"].as_array_mut().unwrap().push(l);
    }

    /// Makes the member a member of the card.
    pub fn assign(&mut self, card: &str, member: &str) {
        let c = self.card_mut(card);
        c["idMembers"].as_array_mut().unwrap().push(json!(member));
    }

    /// Attaches a link or a file Trello keeps.
    pub fn attach(&mut self, card: &str, name: &str, url: &str) {
        let id = self.new_id();
        let date = self.now();
        let c = self.card_mut(card);
        c["attachments"].as_array_mut().unwrap().push(json!({
            "id": id, "bytes": 1234, "date": date, "edgeColor": null, "idMember": null,
            "isUpload": true, "mimeType": "application/pdf", "name": name, "previews": [],
            "url": url, "pos": 16384, "fileName": name
        }));
    }

    /// Adds a checklist of `items` (`(name, complete)`) to the card; returns its id.
    pub fn checklist(&mut self, card: &str, name: &str, items: &[(&str, bool)]) -> String {
        let id = self.new_id();
        let mut check_items = Vec::new();
        for (i, (text, complete)) in items.iter().enumerate() {
            let item = self.new_id();
            check_items.push(json!({
                "id": item, "name": text, "nameData": {"emoji": {}}, "idChecklist": id,
                "state": if *complete { "complete" } else { "incomplete" },
                "pos": 16_384 * (i as i64 + 1), "due": null, "dueReminder": null, "idMember": null
            }));
        }
        let pos = 16_384 * (self.checklists.len() as i64 + 1);
        self.checklists.push(json!({
            "id": id, "name": name, "idBoard": self.id, "idCard": card, "pos": pos,
            "limits": {}, "checkItems": check_items
        }));
        let c = self.card_mut(card);
        c["idChecklists"].as_array_mut().unwrap().push(json!(id));
        id
    }

    /// A member as an action's `memberCreator` (a deleted account when unknown).
    fn who(&self, member: &str) -> Value {
        self.members
            .iter()
            .find(|m| m["id"] == member)
            .map(|m| {
                json!({"id": m["id"], "username": m["username"], "fullName": m["fullName"],
                       "initials": m["initials"], "avatarHash": null, "activityBlocked": false,
                       "idMemberReferrer": null, "nonPublic": {}, "nonPublicAvailable": true})
            })
            .unwrap_or_else(
                || json!({"id": member, "username": "deleted", "fullName": "Deleted account"}),
            )
    }

    fn action(&mut self, mut action: Value) -> String {
        let id = self.new_id();
        action["id"] = json!(id);
        action["date"] = json!(self.now());
        action["appCreator"] = Value::Null;
        action["limits"] = json!({});
        self.actions.push(action);
        id
    }

    /// `by` comments `text` on the card; returns the action's id.
    pub fn comment(&mut self, card: &str, by: &str, text: &str) -> String {
        let c = self.card_ref(card);
        let list = c["idList"].as_str().unwrap().to_string();
        let data = json!({
            "text": text, "textData": {"emoji": {}},
            "card": {"id": card, "name": c["name"], "idShort": c["idShort"], "shortLink": c["shortLink"]},
            "board": self.board_ref(), "list": self.list_ref(&list)
        });
        let action = json!({"type": "commentCard", "idMemberCreator": by,
                            "memberCreator": self.who(by), "data": data});
        self.action(action)
    }

    /// `by` moves the card to `list`.
    pub fn move_card(&mut self, card: &str, list: &str, by: &str) {
        let before = self.card_ref(card)["idList"].as_str().unwrap().to_string();
        let data = json!({
            "card": {"id": card, "idList": list, "idShort": 1, "shortLink": "x"},
            "old": {"idList": before}, "board": self.board_ref(),
            "listBefore": self.list_ref(&before), "listAfter": self.list_ref(list)
        });
        let action = json!({"type": "updateCard", "idMemberCreator": by,
                            "memberCreator": self.who(by), "data": data});
        self.action(action);
        self.set(card, "idList", json!(list));
    }

    /// The export as Trello writes it.
    pub fn to_value(&self) -> Value {
        let mut actions = self.actions.clone();
        actions.reverse();
        json!({
            "id": self.id, "name": self.name, "desc": "", "descData": null, "closed": false,
            "dateClosed": null, "idOrganization": "0123456789abcdef01234567",
            "idEnterprise": null, "pinned": false, "url": "https://trello.com/b/aBcD1234/board",
            "shortUrl": "https://trello.com/b/aBcD1234",
            "prefs": {"permissionLevel": "private", "voting": "disabled", "comments": "members",
                      "background": "blue", "cardCovers": true},
            "labelNames": {"green": "", "yellow": "", "orange": "", "red": "", "purple": "", "blue": ""},
            "limits": {}, "starred": false, "memberships": [], "shortLink": "aBcD1234",
            "subscribed": false, "powerUps": [], "dateLastActivity": self.now(),
            "dateLastView": self.now(), "idTags": [], "datePluginDisable": null,
            "creationMethod": null, "ixUpdate": "42", "templateGallery": null,
            "enterpriseOwned": false, "idBoardSource": null, "premiumFeatures": [],
            "idMemberCreator": null, "type": "board",
            "actions": actions, "cards": self.cards, "labels": self.labels,
            "lists": self.lists, "members": self.members, "checklists": self.checklists,
            "customFields": [], "pluginData": []
        })
    }

    /// The export's bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        serde_json::to_vec(&self.to_value()).expect("json")
    }
}
