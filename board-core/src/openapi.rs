//! OpenAPI schemas of the wire types (feature `openapi`), for board-server's
//! `/api/openapi.json`. The types themselves derive `utoipa::ToSchema`, the
//! ids share the `Cuid` schema (in `ids.rs`) and names and comments take theirs
//! from [`Name`](crate::Name) and [`CommentText`](crate::CommentText) (in
//! `text.rs`); this module holds the pieces a derive cannot express. It depends
//! on those types, never the other way.

use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::RefOr;
use utoipa::PartialSchema;

use crate::cards::inputs::schema as inputs;
use crate::cards::{CardPatch, NewCard};
use crate::checklist::{ItemPatch, NewItem};
use crate::columns::{Accent, ColumnOrder, DeleteColumn, CONFIRM_DELETE_CARDS, MAX_REORDER};
use crate::ids::{AccountId, CardId, ChecklistItemId, ColumnId, LabelId, ProjectId, WorkspaceId};
use crate::labels::{LabelPatch, NewLabel};
use crate::text::Name;

fn string_const(value: &str) -> ObjectBuilder {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .enum_values(Some([value]))
}

impl PartialSchema for DeleteColumn {
    /// `{"cards": "MOVE", "targetColumnId": id}` or
    /// `{"cards": "DELETE", "confirm": "APAGAR CARDS"}`. The field that the
    /// other choice needs may be sent too and is ignored.
    fn schema() -> RefOr<Schema> {
        let target = ColumnId::schema();
        let confirm = string_const(CONFIRM_DELETE_CARDS);
        let any_confirm = ObjectBuilder::new().schema_type(SchemaType::Type(Type::String));
        let choice =
            |cards: &str, required: &str, confirm: ObjectBuilder, target: RefOr<Schema>| {
                ObjectBuilder::new()
                    .property("cards", string_const(cards))
                    .property("targetColumnId", target)
                    .property("confirm", confirm)
                    .required("cards")
                    .required(required)
                    .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            };
        OneOfBuilder::new()
            .item(choice(
                "MOVE",
                "targetColumnId",
                any_confirm,
                target.clone(),
            ))
            .item(choice("DELETE", "confirm", confirm, target))
            .description(Some(
                "What happens to the column's cards: MOVE them to another column of \
                 the set, or DELETE them (confirm with the exact string).",
            ))
            .into()
    }
}

impl utoipa::ToSchema for DeleteColumn {}

impl PartialSchema for ColumnOrder {
    /// `{"columnIds": [id, ...]}`: 1 to [`MAX_REORDER`] ids, no duplicates.
    fn schema() -> RefOr<Schema> {
        let ids = ArrayBuilder::new()
            .items(ColumnId::schema())
            .min_items(Some(1))
            .max_items(Some(MAX_REORDER))
            .unique_items(true)
            .description(Some(
                "Columns of one set, in their new order; they take the positions \
                 they held together",
            ));
        ObjectBuilder::new()
            .property("columnIds", ids)
            .required("columnIds")
            .additional_properties(Some(AdditionalProperties::FreeForm(false)))
            .description(Some("The body of `PATCH /api/columns/order`."))
            .into()
    }
}

impl utoipa::ToSchema for ColumnOrder {}

/// The wire shape of [`NewCard`], whose `placement` is two fields, but for
/// its plain inputs (`title`, `description`, `dueAt`: `cards/inputs.rs`).
#[derive(utoipa::ToSchema)]
#[schema(
    rename_all = "camelCase",
    description = "The body of `POST /api/cards`. At most one of `beforeId` and `afterId` \
                   (both: 422 `formErrors`)."
)]
#[allow(dead_code)] // a schema only
struct NewCardBody {
    /// The workspace.
    #[schema(rename = "tenantId")]
    workspace_id: WorkspaceId,
    /// The project, if any.
    project_id: Option<ProjectId>,
    /// The column; default: the first column of the set in effect.
    column_id: Option<ColumnId>,
    /// Place the card directly above this card of its column (422
    /// `INVALID_ANCHOR` when it is not another card of that column).
    before_id: Option<CardId>,
    /// Place the card directly below this card of its column (422
    /// `INVALID_ANCHOR` when it is not another card of that column).
    /// Without either, the card goes to the end of its column.
    after_id: Option<CardId>,
    /// Labels of the workspace (else 422 `INVALID_LABEL`).
    #[schema(nullable = false)]
    label_ids: Option<Vec<LabelId>>,
    /// Members of the workspace, any role, in the order assigned (else 422
    /// `NOT_A_MEMBER`).
    #[schema(nullable = false)]
    assignee_ids: Option<Vec<AccountId>>,
}

/// The wire shape of [`CardPatch`], whose `placement` is two fields, but for
/// its plain inputs (`cards/inputs.rs`).
#[derive(utoipa::ToSchema)]
#[schema(
    rename_all = "camelCase",
    description = "The body of `PATCH /api/cards/{id}`. At most one of `beforeId` and \
                   `afterId` (both: 422 `formErrors`)."
)]
#[allow(dead_code)] // a schema only
struct CardPatchBody {
    /// Column to move to (another column of the set in effect).
    #[schema(nullable = false)]
    column_id: Option<ColumnId>,
    /// Place the card directly above this card of the target column (`columnId`,
    /// else the card's own); 422 `INVALID_ANCHOR` when it is not another card of it.
    before_id: Option<CardId>,
    /// Place the card directly below this card of the target column; 422
    /// `INVALID_ANCHOR` when it is not another card of it. Without either, a move
    /// to another column goes to its end, and the card otherwise keeps its place.
    after_id: Option<CardId>,
}

/// The wire shape of [`NewLabel`].
#[derive(utoipa::ToSchema)]
#[schema(
    rename_all = "camelCase",
    description = "The body of `POST /api/labels`."
)]
#[allow(dead_code)] // a schema only
struct NewLabelBody {
    /// The workspace.
    #[schema(rename = "tenantId")]
    workspace_id: WorkspaceId,
    /// Its name, unique in the workspace ignoring case (else 409 `NAME_TAKEN`).
    name: Name,
    /// Its colour token; default `slate`.
    #[schema(nullable = false)]
    color: Option<Accent>,
}

/// The wire shape of [`LabelPatch`].
#[derive(utoipa::ToSchema)]
#[schema(
    rename_all = "camelCase",
    description = "The body of `PATCH /api/labels/{id}`. At most one of `beforeId` and `afterId`."
)]
#[allow(dead_code)] // a schema only
struct LabelPatchBody {
    /// New name.
    #[schema(nullable = false)]
    name: Option<Name>,
    /// New colour token.
    #[schema(nullable = false)]
    color: Option<Accent>,
    /// Put it directly before this other label of its workspace.
    #[schema(nullable = false)]
    before_id: Option<LabelId>,
    /// Put it directly after this other label of its workspace.
    #[schema(nullable = false)]
    after_id: Option<LabelId>,
}

/// The wire shape of [`NewItem`].
#[derive(utoipa::ToSchema)]
#[schema(
    rename_all = "camelCase",
    description = "The body of `POST /api/cards/{id}/checklist`. At most one of `beforeId` \
                   and `afterId`."
)]
#[allow(dead_code)] // a schema only
struct NewItemBody {
    /// What is to be done: trimmed, 1 to 1,000 characters, no control character.
    #[schema(min_length = 1, max_length = 1000)]
    text: String,
    /// Put it directly before this other item of the card.
    #[schema(nullable = false)]
    before_id: Option<ChecklistItemId>,
    /// Put it directly after this other item of the card; without either, at the end.
    #[schema(nullable = false)]
    after_id: Option<ChecklistItemId>,
}

/// The wire shape of [`ItemPatch`].
#[derive(utoipa::ToSchema)]
#[schema(
    rename_all = "camelCase",
    description = "The body of `PATCH /api/checklist/{id}`. At most one of `beforeId` and `afterId`."
)]
#[allow(dead_code)] // a schema only
struct ItemPatchBody {
    /// New text.
    #[schema(nullable = false, min_length = 1, max_length = 1000)]
    text: Option<String>,
    /// Checked (records who and when) or not (clears both).
    #[schema(nullable = false)]
    done: Option<bool>,
    /// Put it directly before this other item of the card.
    #[schema(nullable = false)]
    before_id: Option<ChecklistItemId>,
    /// Put it directly after this other item of the card.
    #[schema(nullable = false)]
    after_id: Option<ChecklistItemId>,
}

/// A core input whose schema is the derived schema of its wire shape; with
/// `inputs`, that of a card's body, which adds the plain inputs declared in
/// `cards/inputs.rs` as a create or a patch reads them.
macro_rules! schema_of {
    ($input:ty, $wire:ty, $name:literal, inputs: $how:ident) => {
        impl PartialSchema for $input {
            fn schema() -> RefOr<Schema> {
                let mut body = <$wire as PartialSchema>::schema();
                inputs::add_inputs(&mut body, stringify!($how) == "create");
                body
            }
        }

        impl utoipa::ToSchema for $input {
            fn name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }

            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                <$wire as utoipa::ToSchema>::schemas(schemas);
                crate::cards::inputs::referred(schemas);
            }
        }
    };
    ($input:ty, $wire:ty, $name:literal) => {
        impl PartialSchema for $input {
            fn schema() -> RefOr<Schema> {
                <$wire as PartialSchema>::schema()
            }
        }

        impl utoipa::ToSchema for $input {
            fn name() -> std::borrow::Cow<'static, str> {
                $name.into()
            }

            fn schemas(schemas: &mut Vec<(String, RefOr<Schema>)>) {
                <$wire as utoipa::ToSchema>::schemas(schemas)
            }
        }
    };
}

schema_of!(NewCard, NewCardBody, "NewCard", inputs: create);
schema_of!(CardPatch, CardPatchBody, "CardPatch", inputs: patch);
schema_of!(NewLabel, NewLabelBody, "NewLabel");
schema_of!(LabelPatch, LabelPatchBody, "LabelPatch");
schema_of!(NewItem, NewItemBody, "NewChecklistItem");
schema_of!(ItemPatch, ItemPatchBody, "ChecklistItemPatch");

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use utoipa::PartialSchema;

    use crate::columns::{Accent, ColumnPatch, NewColumn};
    use crate::comments::CommentInput;
    use crate::text::{name_pattern, COMMENT_PATTERN};
    use crate::{CardPatch, CommentText, Name, NewCard, RelationKind};

    fn json<T: PartialSchema>() -> Value {
        serde_json::to_value(T::schema()).unwrap()
    }

    /// The card bodies' schemas (written beside the inputs, as their wire
    /// shapes) name exactly the keys the validator reads: a body with every
    /// property parses, and a placement is a pair of card ids.
    #[test]
    fn card_bodies_name_the_keys_the_validator_reads() {
        use crate::validate::FromJson;
        let every_key = |schema: Value| {
            let props = schema["properties"].as_object().unwrap().clone();
            for key in ["beforeId", "afterId"] {
                // Nullable, as the validator reads them: `oneOf` the id and null.
                let id = &props[key]["oneOf"][0]["$ref"];
                assert_eq!(id, "#/components/schemas/Cuid", "{key}");
            }
            let body: serde_json::Map<String, Value> = props
                .keys()
                .filter(|k| *k != "afterId") // one of the two
                .map(|k| {
                    let v = match k.as_str() {
                        "title" | "description" => Value::from("t"),
                        "dueAt" => Value::from("2026-11-21T23:43:00.000Z"),
                        "labelIds" | "assigneeIds" => Value::from(Vec::<String>::new()),
                        _ => Value::from("ckv7q2x0a0000abcdefghijk"),
                    };
                    (k.clone(), v)
                })
                .collect();
            Value::Object(body)
        };
        NewCard::from_json(&every_key(json::<NewCard>())).unwrap();
        CardPatch::from_json(&every_key(json::<CardPatch>())).unwrap();
    }

    /// The limits in the schemas are the validator's: each is written once,
    /// in `Name` and `CommentText`, and every name or comment field refers to
    /// that one schema.
    #[test]
    fn limits_match_the_validation() {
        let name = json::<Name>();
        assert_eq!(name["maxLength"], Name::MAX);
        assert_eq!(name["minLength"], 1);
        assert_eq!(name["pattern"], name_pattern());
        assert!(Name::parse(&"x".repeat(Name::MAX)).is_ok());
        assert!(Name::parse(&"x".repeat(Name::MAX + 1)).is_err());
        let comment = json::<CommentText>();
        assert_eq!(comment["maxLength"], CommentText::MAX);
        assert_eq!(comment["minLength"], 1);
        assert_eq!(comment["pattern"], COMMENT_PATTERN);
        for (schema, field, to) in [
            (json::<NewColumn>(), "name", "Name"),
            (json::<ColumnPatch>(), "name", "Name"),
            (json::<NewCard>(), "title", "Name"),
            (json::<CardPatch>(), "title", "Name"),
            (json::<CommentInput>(), "content", "CommentText"),
        ] {
            assert_eq!(
                schema["properties"][field]["$ref"],
                format!("#/components/schemas/{to}"),
                "{field}: {schema}"
            );
        }
        assert_eq!(
            json::<CommentInput>()["required"],
            serde_json::json!(["content"])
        );
    }

    /// `wipLimit` (api.md §20) is the one `WipLimit` schema, whose bounds are
    /// the validator's, nullable wherever the body reads `null` as "no limit".
    #[test]
    fn wip_limits_match_the_validation() {
        use crate::settings::SettingsPatch;
        use crate::wip::{WipLimit, WipLimits};
        let limit = json::<WipLimit>();
        assert_eq!(limit["minimum"], WipLimit::MIN);
        assert_eq!(limit["maximum"], WipLimit::MAX);
        assert!(WipLimit::new(WipLimit::MIN.into()).is_some());
        assert!(WipLimit::new(i64::from(WipLimit::MIN) - 1).is_none());
        assert!(WipLimit::new(i64::from(WipLimit::MAX) + 1).is_none());
        for schema in [
            json::<NewColumn>(),
            json::<ColumnPatch>(),
            json::<crate::Column>(),
        ] {
            let field = schema["properties"]["wipLimit"].to_string();
            assert!(
                field.contains("#/components/schemas/WipLimit") && field.contains("null"),
                "{schema}"
            );
        }
        assert_eq!(
            json::<WipLimits>()["enum"],
            serde_json::json!(WipLimits::ALL)
        );
        let patch = json::<SettingsPatch>();
        assert!(
            !patch["properties"]["wipLimits"]
                .to_string()
                .contains("null"),
            "absent, never null: {patch}"
        );
    }

    #[test]
    fn enums_list_every_wire_value() {
        assert_eq!(json::<Accent>()["enum"], serde_json::json!(Accent::ALL));
        assert_eq!(
            json::<RelationKind>()["enum"],
            serde_json::json!(RelationKind::ALL)
        );
    }

    #[test]
    fn ids_and_optional_fields() {
        let card = json::<NewCard>();
        assert_eq!(card["required"], serde_json::json!(["tenantId", "title"]));
        let patch = json::<CardPatch>();
        assert!(patch.get("required").is_none(), "{patch}");
        assert!(
            !patch["properties"]["title"].to_string().contains("null"),
            "absent, never null: {patch}"
        );
    }
}
