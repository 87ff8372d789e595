//! Property tests over the request-body layer (cargo-fuzz needs a nightly
//! toolchain this project does not have): arbitrary bytes and arbitrary JSON
//! never panic and are either accepted with every rule holding, or refused with
//! a schema error (or 404 for ids that cannot exist).

use board_core::{
    CardPatch, ColumnOrder, ColumnPatch, DeleteColumn, Error, FromJson, Input, Name, NewCard,
    NewColumn, SettingsPatch,
};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

/// Keys the bodies use, plus a few they don't, so generated objects hit both.
const KEYS: &[&str] = &[
    "tenantId",
    "projectId",
    "columnId",
    "title",
    "name",
    "color",
    "done",
    "columnIds",
    "cards",
    "targetColumnId",
    "confirm",
    "columnScope",
    "columnManagement",
    "allowCrossProjectLinks",
    "targetId",
    "kind",
    "content",
    "attachmentIds",
    "x",
];

fn cuid_like() -> impl Strategy<Value = String> {
    prop_oneof![
        "[a-z][a-z0-9]{23}",
        "[a-zA-Z0-9 ]{0,30}",
        Just("APAGAR CARDS".to_string()),
        Just("slate".to_string()),
        Just("MOVE".to_string()),
        Just("DELETE".to_string()),
        Just("PROJECT".to_string()),
    ]
}

fn leaf() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(|n| json!(n)),
        any::<f64>().prop_map(|f| json!(f)),
        cuid_like().prop_map(Value::String),
        "\\PC{0,120}".prop_map(Value::String),
    ]
}

fn value() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((prop::sample::select(KEYS), inner), 0..8).prop_map(|kv| {
                Value::Object(
                    kv.into_iter()
                        .map(|(k, v)| (k.to_string(), v))
                        .collect::<Map<_, _>>(),
                )
            }),
        ]
    })
}

/// Objects made only of known keys, so the happy path is reached often.
fn body() -> impl Strategy<Value = Value> {
    prop::collection::vec((prop::sample::select(KEYS), leaf()), 0..8).prop_map(|kv| {
        Value::Object(
            kv.into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect::<Map<_, _>>(),
        )
    })
}

fn refused_cleanly(e: &Error) -> bool {
    match e {
        Error::Validation(v) => !v.is_empty(),
        Error::NotFound(_) => true,
        _ => false,
    }
}

fn name_ok(n: &str) -> bool {
    n == n.trim() && (1..=Name::MAX).contains(&n.chars().count()) && !n.contains('\0')
}

fn check_all(v: &Value) -> Result<(), TestCaseError> {
    macro_rules! each {
        ($($t:ty => $ok:expr),* $(,)?) => {$(
            match <$t>::from_json(v) {
                Ok(x) => {
                    let ok: fn(&$t) -> bool = $ok;
                    prop_assert!(ok(&x), "{} accepted a body breaking a rule: {v}", stringify!($t));
                }
                Err(e) => prop_assert!(refused_cleanly(&e), "{}: unexpected error {e:?}", stringify!($t)),
            }
        )*};
    }
    each! {
        NewCard => |c| name_ok(&c.title),
        CardPatch => |c| c.title.as_deref().is_none_or(name_ok),
        NewColumn => |c| name_ok(&c.name),
        ColumnPatch => |c| c.name.as_deref().is_none_or(name_ok),
        ColumnOrder => |o| !o.column_ids.is_empty(),
        DeleteColumn => |d| match &d.cards {
            board_core::CardsFate::Delete { confirm } => confirm == "APAGAR CARDS",
            board_core::CardsFate::Move { .. } => true,
        },
        SettingsPatch => |_| true,
        board_core::NewRelation => |_| true,
        board_core::CommentInput => |c| !c.content.trim().is_empty() && !c.content.contains('\0'),
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..256)) {
        match serde_json::from_slice::<Value>(&bytes) {
            Ok(v) => check_all(&v)?,
            // Not JSON (or blank): the one form error, whatever the input type.
            Err(_) => match Input::<NewCard>::from_body(&bytes).open() {
                Err(Error::Validation(e)) => prop_assert_eq!(e.form_errors.len(), 1),
                other => prop_assert!(false, "unexpected {other:?}"),
            },
        }
    }

    #[test]
    fn arbitrary_json_is_accepted_with_rules_or_refused(v in value()) {
        check_all(&v)?;
    }

    #[test]
    fn bodies_of_known_keys_are_accepted_with_rules_or_refused(v in body()) {
        check_all(&v)?;
    }

    #[test]
    fn unknown_keys_are_always_refused(mut v in body(), extra in "[a-z]{12,16}") {
        v.as_object_mut().unwrap().insert(extra, json!(1));
        for result in [
            NewCard::from_json(&v).err(),
            NewColumn::from_json(&v).err(),
            ColumnPatch::from_json(&v).err(),
            SettingsPatch::from_json(&v).err(),
        ] {
            match result {
                Some(Error::Validation(e)) => prop_assert!(
                    e.form_errors.iter().any(|m| m.contains("Unrecognized")),
                    "{e:?}"
                ),
                other => prop_assert!(false, "accepted or wrong error: {other:?}"),
            }
        }
    }

    #[test]
    fn text_holding_nul_is_refused(before in "[a-z ]{0,8}", after in "[a-z ]{0,8}") {
        let text = format!("{before}\u{0}{after}");
        let card = json!({"tenantId": "ckv7q2x0a0000abcdefghijk", "title": text});
        prop_assert!(NewCard::from_json(&card).is_err());
        let comment = json!({"content": text});
        prop_assert!(board_core::CommentInput::from_json(&comment).is_err());
    }

    #[test]
    fn valid_names_round_trip(name in "[ ]{0,3}[a-zA-Zé0-9][a-zA-Zé0-9 ]{0,60}[ ]{0,3}") {
        let body = json!({"tenantId": "ckv7q2x0a0000abcdefghijk", "title": name});
        let card = NewCard::from_json(&body).unwrap();
        prop_assert_eq!(card.title, name.trim());
    }
}
