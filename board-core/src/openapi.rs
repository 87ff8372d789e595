//! OpenAPI schemas of the wire types (feature `openapi`), for board-server's
//! `/api/openapi.json`. The types themselves derive `utoipa::ToSchema`; this
//! module holds the pieces a derive cannot express.

use utoipa::openapi::schema::{
    AdditionalProperties, ArrayBuilder, ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type,
};
use utoipa::openapi::RefOr;
use utoipa::PartialSchema;

use crate::columns::{ColumnOrder, DeleteColumn, CONFIRM_DELETE_CARDS, MAX_REORDER};
use crate::ids::ColumnId;

/// The pattern every id matches (cuid2: 24 characters, `[a-z][a-z0-9]{23}`).
pub const CUID_PATTERN: &str = "^[a-z][a-z0-9]{23}$";

/// The pattern of a name or a comment: at least one character that is not
/// blank (names are trimmed, comments must not be blank), and no NUL.
/// The derive attributes repeat it (they take literals only); a test checks.
pub const TEXT_PATTERN: &str = r"^[^\x00]*[^\s\x00][^\x00]*$";

/// The schema of an id: a string matching [`CUID_PATTERN`].
pub fn cuid() -> RefOr<Schema> {
    ObjectBuilder::new()
        .schema_type(SchemaType::Type(Type::String))
        .pattern(Some(CUID_PATTERN))
        .description(Some("A cuid2 id"))
        .into()
}

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

#[cfg(test)]
mod tests {
    use serde_json::Value;
    use utoipa::PartialSchema;

    use crate::columns::{Accent, ColumnPatch, NewColumn};
    use crate::comments::{CommentInput, COMMENT_MAX};
    use crate::validate::NAME_MAX;
    use crate::{CardPatch, NewCard, RelationKind};

    fn json<T: PartialSchema>() -> Value {
        serde_json::to_value(T::schema()).unwrap()
    }

    /// The limits written in the derive attributes are the validator's.
    #[test]
    fn limits_match_the_validation() {
        for (schema, field) in [
            (json::<NewColumn>(), "name"),
            (json::<ColumnPatch>(), "name"),
            (json::<NewCard>(), "title"),
            (json::<CardPatch>(), "title"),
        ] {
            assert_eq!(
                schema["properties"][field]["maxLength"], NAME_MAX,
                "{field}"
            );
            assert_eq!(schema["properties"][field]["minLength"], 1, "{field}");
        }
        for (schema, field) in [
            (json::<NewColumn>(), "name"),
            (json::<ColumnPatch>(), "name"),
            (json::<NewCard>(), "title"),
            (json::<CardPatch>(), "title"),
            (json::<CommentInput>(), "content"),
        ] {
            assert_eq!(schema["properties"][field]["pattern"], super::TEXT_PATTERN);
        }
        let comment = json::<CommentInput>();
        assert_eq!(comment["properties"]["content"]["maxLength"], COMMENT_MAX);
        assert_eq!(comment["required"], serde_json::json!(["content"]));
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
