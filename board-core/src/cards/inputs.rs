//! The fields a client writes into a card as they are, declared once
//! (`card_inputs!`, below): each is a column of `cards`, a key of both bodies
//! (`POST /api/cards`, `PATCH /api/cards/[id]`) and a field of [`NewCard`]
//! and [`CardPatch`] by the same name. From this one list come the columns
//! the `INSERT` of a new card writes ([`inserted`]), the `SET` list of the
//! `UPDATE` of a patch ([`updated`]), the binding of their values in that
//! order, and the properties of both body schemas in the OpenAPI document.
//!
//! Each line gives what a create does when the key is absent (`required`: a
//! 422; `optional`: the input's default) and what a patch does with it
//! (`keep`: absent keeps the value, `null` is refused; `clear`: absent keeps
//! it, `null` clears it). The checks of the values are the bodies' parsers
//! (`FromJson` in `cards/mod.rs`), which a test holds to these schemas.
//!
//! The other keys of the bodies are not plain fields: the workspace,
//! project and column decide the card's set and lock, a placement is two
//! keys, and labels and assignees are rows of their own.

use sqlx::any::AnyArguments;
use sqlx::query::QueryAs;
use sqlx::Any;

use super::{CardPatch, NewCard};

/// Declares the plain inputs: their docs (the schemas' descriptions), their
/// name (field, column, and key in camelCase), what a create does without
/// them, what a patch does with them, and their schema's type.
macro_rules! card_inputs {
    ($(
        $(#[doc = $doc:literal])*
        $field:ident: create $create:ident, patch $patch:ident, schema $schema:ty;
    )*) => {
        /// Each input's column and whether a patch may clear it (`null`), in
        /// the declaration's order.
        const INPUTS: &[(&str, bool)] = &[$((stringify!($field), is!($patch, clear))),*];

        /// Binds a new card's inputs after its other values, in [`INPUTS`]'
        /// order ([`inserted`]).
        pub(crate) fn bind_new<'q, O>(
            query: QueryAs<'q, Any, O, AnyArguments>,
            new: &'q NewCard,
        ) -> QueryAs<'q, Any, O, AnyArguments> {
            query$(.bind(&new.$field))*
        }

        /// Binds a patch's inputs after its other values, in [`INPUTS`]' order
        /// ([`updated`]): each value, `None` to keep it; for a field that
        /// `null` clears, first whether it is given (1 or 0).
        pub(crate) fn bind_patch<'q, O>(
            query: QueryAs<'q, Any, O, AnyArguments>,
            patch: &'q CardPatch,
        ) -> QueryAs<'q, Any, O, AnyArguments> {
            $(let query = bind_change!($patch, query, &patch.$field);)*
            query
        }

        /// Each input's key, its schema, its description, whether a create
        /// requires it and whether a patch may clear it.
        #[cfg(feature = "openapi")]
        fn described() -> Vec<schema::Input> {
            vec![$(schema::Input::of::<$schema>(
                stringify!($field),
                &[$($doc),*],
                is!($create, required),
                is!($patch, clear),
            )),*]
        }

        /// Adds the schemas the inputs refer to.
        #[cfg(feature = "openapi")]
        pub(crate) fn referred(
            out: &mut Vec<(String, utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>)>,
        ) {
            use utoipa::{PartialSchema, ToSchema};
            $(
                out.push((<$schema>::name().into_owned(), <$schema>::schema()));
                <$schema>::schemas(out);
            )*
        }
    };
}

/// Whether a marker is the one named.
macro_rules! is {
    (required, required) => {
        true
    };
    (optional, required) => {
        false
    };
    (clear, clear) => {
        true
    };
    (keep, clear) => {
        false
    };
}

/// Binds one input of a patch (see `bind_changes`).
macro_rules! bind_change {
    (keep, $query:ident, $value:expr) => {
        $query.bind($value)
    };
    (clear, $query:ident, $value:expr) => {
        $query
            .bind(i64::from($value.is_some()))
            .bind($value.clone().flatten())
    };
}

card_inputs! {
    /// The card's title.
    title: create required, patch keep, schema crate::text::Name;
    /// What is to be done: Markdown kept byte for byte (api.md §24); a new
    /// card's is empty unless given.
    description: create optional, patch keep, schema crate::text::Description;
    /// When it is due; null: never (a new card's default; in a patch, null
    /// clears it).
    due_at: create optional, patch clear, schema crate::time::Timestamp;
}

/// The inputs' columns and their placeholders, for the `INSERT` of a new
/// card whose other values take `$1` to `$(first - 1)`: with `first` 8,
/// `title, description, due_at` and `$8, $9, $10`; [`bind_new`] binds them.
pub(crate) fn inserted(first: usize) -> (String, String) {
    let columns: Vec<&str> = INPUTS.iter().map(|(c, _)| *c).collect();
    let places: Vec<String> = (0..INPUTS.len())
        .map(|i| format!("${}", first + i))
        .collect();
    (columns.join(", "), places.join(", "))
}

/// The `SET` list of a patch's inputs, for an `UPDATE` whose other values
/// take `$1` to `$(first - 1)`: a value given replaces the column, an absent
/// one keeps it, and a field that `null` clears takes a flag then its value;
/// [`bind_patch`] binds them.
pub(crate) fn updated(first: usize) -> String {
    let mut at = first;
    let mut sets = Vec::new();
    for (column, clear) in INPUTS {
        if *clear {
            sets.push(format!(
                "{column} = CASE WHEN ${at} = 1 THEN ${} ELSE {column} END",
                at + 1
            ));
            at += 2;
        } else {
            sets.push(format!("{column} = COALESCE(${at}, {column})"));
            at += 1;
        }
    }
    sets.join(", ")
}

/// The inputs in the bodies' schemas.
#[cfg(feature = "openapi")]
pub(crate) mod schema {
    use utoipa::openapi::schema::{ObjectBuilder, OneOfBuilder, Schema, SchemaType, Type};
    use utoipa::openapi::{Ref, RefOr};

    /// An input as a property of a body's schema.
    pub(crate) struct Input {
        pub(super) key: String,
        schema: RefOr<Schema>,
        required: bool,
        clear: bool,
    }

    impl Input {
        /// The input `field`, described by `doc`, whose schema is `T`'s.
        pub(super) fn of<T: utoipa::ToSchema>(
            field: &str,
            doc: &[&str],
            required: bool,
            clear: bool,
        ) -> Input {
            let text: Vec<&str> = doc.iter().map(|line| line.trim()).collect();
            let mut reference = Ref::from_schema_name(T::name());
            reference.description = text.join(" ");
            Input {
                key: camel(field),
                schema: RefOr::Ref(reference),
                required,
                clear,
            }
        }
    }

    /// `due_at` → `dueAt`.
    pub(super) fn camel(field: &str) -> String {
        let mut parts = field.split('_');
        let first = parts.next().unwrap_or_default().to_string();
        parts.fold(first, |mut out, part| {
            let mut chars = part.chars();
            if let Some(c) = chars.next() {
                out.extend(c.to_uppercase());
                out.push_str(chars.as_str());
            }
            out
        })
    }

    /// Adds the inputs to a body's schema `body` (an object): as a create
    /// reads them (`create`), or as a patch does (every one optional).
    /// Either way `null` is accepted only where it clears.
    pub(crate) fn add_inputs(body: &mut RefOr<Schema>, create: bool) {
        let RefOr::T(Schema::Object(object)) = body else {
            unreachable!("a body's schema is an object")
        };
        for input in super::described() {
            let schema = match input.clear {
                true => OneOfBuilder::new()
                    .item(input.schema)
                    .item(ObjectBuilder::new().schema_type(SchemaType::Type(Type::Null)))
                    .into(),
                false => input.schema,
            };
            if create && input.required {
                object.required.push(input.key.clone());
            }
            object.properties.insert(input.key, schema);
        }
    }
}

#[cfg(test)]
mod tests {
    /// The statements' lists follow the declaration, with their
    /// placeholders from where the statement's own values end.
    #[test]
    fn the_lists_follow_the_declaration() {
        let (columns, values) = super::inserted(8);
        assert_eq!(columns, "title, description, due_at");
        assert_eq!(values, "$8, $9, $10");
        assert_eq!(
            super::updated(3),
            "title = COALESCE($3, title), description = COALESCE($4, description), \
             due_at = CASE WHEN $5 = 1 THEN $6 ELSE due_at END"
        );
    }

    /// The bodies' keys are the fields' names in camelCase.
    #[cfg(feature = "openapi")]
    #[test]
    fn the_keys_are_camel_case() {
        use super::schema::camel;
        let keys: Vec<String> = super::described().into_iter().map(|i| i.key).collect();
        assert_eq!(keys, ["title", "description", "dueAt"]);
        assert_eq!(
            (camel("due_at"), camel("a_b_c")),
            ("dueAt".into(), "aBC".into())
        );
    }
}
