//! Schema checks for request bodies and query strings, shared by the server and
//! the CLI. A body is read as a JSON object field by field so that every problem
//! is reported at once, in the contract's `fieldErrors` / `formErrors` shape.

use serde_json::{Map, Value};

use crate::error::{Error, Result, ValidationErrors};
use crate::ids::is_cuid;
use crate::text::{CommentText, Description, Name};
use crate::time::{parse_time, Timestamp};

/// An input type that can be read from a JSON request body.
///
/// Implemented by every body type of the HTTP contract ([`NewCard`](crate::NewCard),
/// [`ColumnPatch`](crate::ColumnPatch), …). The body is read as a JSON object field
/// by field, so every problem is reported at once, in the contract's
/// `fieldErrors` / `formErrors` shape.
pub trait FromJson: Sized {
    /// Reads the input, collecting every schema problem into
    /// [`ValidationErrors`] (a 422 [`Error::Validation`]).
    fn from_json(body: &Value) -> Result<Self>;
}

/// An operation's input whose schema check is still pending.
///
/// The contract orders the checks 401 → 404 → 403 → 422: a request with a bad
/// body for a card that does not exist is a 404, not a 422. So the server does
/// not refuse a bad body itself: it hands the operation the body as it came
/// ([`Input::from_body`]) and the operation opens it only after its access
/// checks. That is the one reason this type exists.
///
/// Rust callers never need to name it: every operation takes
/// `impl Into<Input<T>>`, and a typed input (`NewCard`, `ColumnPatch`, …) *is*
/// such a value (it is already checked: its names are [`Name`]s and its ids
/// are typed), so they pass the input itself:
///
/// ```no_run
/// # async fn f(board: board_core::Board, card: board_core::CardId) -> board_core::Result<()> {
/// use board_core::{Actor, CardPatch, Name};
/// let patch = CardPatch::default().title(Name::parse("Renamed")?);
/// board.update_card(&Actor::Operator, &card, patch).await?;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct Input<T>(Result<T>);

impl<T> From<T> for Input<T> {
    fn from(value: T) -> Self {
        Input(Ok(value))
    }
}

/// An input checked by its caller, maybe refused: the operation reports the
/// refusal where it reports a schema failure, after its access checks. The
/// CLI reads its arguments into typed inputs this way, so a bad argument is
/// refused in the order a bad body is.
impl<T> From<Result<T>> for Input<T> {
    fn from(checked: Result<T>) -> Self {
        Input(checked)
    }
}

impl<T: FromJson> Input<T> {
    /// Reads an input from raw body bytes (a body that is blank or not JSON is a
    /// schema failure, reported when the operation opens it).
    pub fn from_body(bytes: &[u8]) -> Self {
        Input(parse_json(bytes).and_then(|v| T::from_json(&v)))
    }

    /// Reads an input from a JSON value.
    pub fn from_value(body: &Value) -> Self {
        Input(T::from_json(body))
    }
}

impl<T> Input<T> {
    /// The checked input, or the schema failure.
    pub fn open(self) -> Result<T> {
        self.0
    }
}

/// Parses body bytes as JSON; anything else is a 422 with a `formErrors` entry.
pub(crate) fn parse_json(bytes: &[u8]) -> Result<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ValidationErrors::whole(
            "Request body is required (a JSON object)",
        ));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| ValidationErrors::whole(format!("Request body is not valid JSON: {e}")))
}

/// Reads the fields of one JSON object, collecting errors as it goes.
pub(crate) struct Fields<'a> {
    obj: Option<&'a Map<String, Value>>,
    known: Vec<&'static str>,
    errors: ValidationErrors,
}

impl<'a> Fields<'a> {
    /// Starts reading `body`, which must be a JSON object.
    pub(crate) fn new(body: &'a Value) -> Self {
        let mut errors = ValidationErrors::default();
        let obj = body.as_object();
        if obj.is_none() {
            errors.form(format!("Expected object, received {}", kind(body)));
        }
        Fields {
            obj,
            known: Vec::new(),
            errors,
        }
    }

    fn get(&mut self, key: &'static str) -> Option<&'a Value> {
        self.known.push(key);
        self.obj.and_then(|o| o.get(key))
    }

    /// A field that must be present (and not null).
    pub(crate) fn required<T>(
        &mut self,
        key: &'static str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        self.required_or(key, "Required", parse)
    }

    /// A field that must be present (and not null), whose absence is reported
    /// as `Required: {accepted}`, naming what the field accepts.
    pub(crate) fn required_naming<T>(
        &mut self,
        key: &'static str,
        accepted: &str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        self.required_or(key, &format!("Required: {accepted}"), parse)
    }

    fn required_or<T>(
        &mut self,
        key: &'static str,
        missing: &str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        match self.get(key) {
            None | Some(Value::Null) if self.obj.is_some() => {
                self.errors.field(key, missing);
                None
            }
            None | Some(Value::Null) => None,
            Some(v) => self.check(key, parse(v)),
        }
    }

    /// A field that may be absent; `null` is refused.
    pub(crate) fn optional<T>(
        &mut self,
        key: &'static str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        match self.get(key) {
            None => None,
            Some(Value::Null) => {
                self.errors.field(key, "Expected a value, received null");
                None
            }
            Some(v) => self.check(key, parse(v)),
        }
    }

    /// A field that may be absent or `null` (both read as `None`).
    pub(crate) fn nullable<T>(
        &mut self,
        key: &'static str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        self.present(key, |v| match v {
            Value::Null => Ok(None),
            v => parse(v).map(Some),
        })
        .flatten()
    }

    /// A field that may be absent (`None`); when present, `null` included,
    /// `parse` reads it (a patch field that `null` clears).
    pub(crate) fn present<T>(
        &mut self,
        key: &'static str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        match self.get(key) {
            None => None,
            Some(v) => self.check(key, parse(v)),
        }
    }

    /// Records a rule that involves several fields.
    pub(crate) fn field_error(&mut self, key: &str, message: impl Into<String>) {
        self.errors.field(key, message);
    }

    /// Records a rule about the body as a whole (`formErrors`).
    pub(crate) fn form_error(&mut self, message: impl Into<String>) {
        self.errors.form(message);
    }

    fn check<T>(&mut self, key: &'static str, r: Result<T, String>) -> Option<T> {
        match r {
            Ok(v) => Some(v),
            Err(m) => {
                self.errors.field(key, m);
                None
            }
        }
    }

    /// Ends reading: unknown keys are a `formErrors` entry; any error fails.
    pub(crate) fn finish(mut self) -> Result<()> {
        if let Some(obj) = self.obj {
            let unknown: Vec<String> = obj
                .keys()
                .filter(|k| !self.known.contains(&k.as_str()))
                .map(|k| format!("'{k}'"))
                .collect();
            if !unknown.is_empty() {
                self.errors.form(format!(
                    "Unrecognized key(s) in object: {}",
                    unknown.join(", ")
                ));
            }
        }
        if self.errors.is_empty() {
            Ok(())
        } else {
            Err(Error::Validation(self.errors))
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// The message for a text that is not an id.
pub(crate) const NOT_AN_ID: &str =
    "Expected an id: 24 lowercase letters and digits, starting with a letter";

/// A JSON string.
pub(crate) fn string(v: &Value) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("Expected string, received {}", kind(v)))
}

/// A JSON boolean.
pub(crate) fn boolean(v: &Value) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("Expected boolean, received {}", kind(v)))
}

/// A cuid2 id given as a JSON string, as the id type `T`.
pub(crate) fn id<T>(parse: fn(&str) -> Option<T>) -> impl Fn(&Value) -> Result<T, String> {
    move |v| {
        let s = v
            .as_str()
            .ok_or_else(|| format!("Expected string, received {}", kind(v)))?;
        if is_cuid(s) {
            Ok(parse(s).expect("checked"))
        } else {
            Err(NOT_AN_ID.into())
        }
    }
}

/// A name ([`Name`]: trimmed, 1..=100 characters).
pub(crate) fn name(v: &Value) -> Result<Name, String> {
    Name::parse(&string(v)?).map_err(|e| e.message().to_string())
}

/// A comment's content ([`CommentText`]).
pub(crate) fn comment_text(v: &Value) -> Result<CommentText, String> {
    CommentText::parse(&string(v)?).map_err(|e| e.message().to_string())
}

/// A card's description ([`Description`]).
pub(crate) fn description(v: &Value) -> Result<Description, String> {
    Description::parse(&string(v)?).map_err(|e| e.message().to_string())
}

/// A timestamp (api.md §3): RFC 3339 with `Z` or an offset, or a date
/// alone (midnight UTC), kept as UTC with milliseconds.
pub(crate) fn timestamp(v: &Value) -> Result<Timestamp, String> {
    let s = string(v)?;
    parse_time(&s).map(Timestamp::from_millis).ok_or_else(|| {
        format!("Expected an RFC 3339 timestamp such as 2026-11-21T23:43:00.000Z, received {s:?}")
    })
}

/// A JSON array of distinct ids, each parsed by `parse`, at most `max`.
pub(crate) fn ids<T: PartialEq>(
    parse: fn(&str) -> Option<T>,
    max: usize,
) -> impl Fn(&Value) -> Result<Vec<T>, String> {
    move |v| {
        let items = v
            .as_array()
            .ok_or_else(|| format!("Expected array, received {}", kind(v)))?;
        if items.len() > max {
            return Err(format!(
                "Too many: at most {max} ids, this has {}",
                items.len()
            ));
        }
        let mut out: Vec<T> = Vec::with_capacity(items.len());
        for item in items {
            let one = id(parse)(item)?;
            if out.contains(&one) {
                return Err("Must not name the same id twice".into());
            }
            out.push(one);
        }
        Ok(out)
    }
}

/// A string that must be one of `allowed`.
pub(crate) fn one_of(v: &Value, allowed: &[&'static str]) -> Result<&'static str, String> {
    let s = string(v)?;
    allowed.iter().copied().find(|a| *a == s).ok_or_else(|| {
        format!(
            "Expected one of {}, received '{s}'",
            allowed
                .iter()
                .map(|a| format!("'{a}'"))
                .collect::<Vec<_>>()
                .join(" | ")
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn collects_every_error_and_unknown_keys() {
        let body = json!({"name": 3, "extra": 1, "other": true});
        let mut f = Fields::new(&body);
        assert!(f.required("name", name).is_none());
        assert!(f.required("title", name).is_none());
        let Err(Error::Validation(e)) = f.finish() else {
            panic!("expected a validation error")
        };
        assert_eq!(
            e.field_errors["name"],
            vec!["Expected string, received number"]
        );
        assert_eq!(e.field_errors["title"], vec!["Required"]);
        assert_eq!(
            e.form_errors,
            vec!["Unrecognized key(s) in object: 'extra', 'other'"]
        );
    }

    #[test]
    fn a_missing_field_can_name_what_it_accepts() {
        let body = json!({});
        let mut f = Fields::new(&body);
        assert!(f
            .required_naming("kind", "A or B", |v| one_of(v, &["A", "B"]))
            .is_none());
        let Err(Error::Validation(e)) = f.finish() else {
            panic!("expected a validation error")
        };
        assert_eq!(e.field_errors["kind"], vec!["Required: A or B"]);
        assert!(e.form_errors.is_empty());
    }

    #[test]
    fn non_json_is_a_form_error() {
        let Err(Error::Validation(e)) = parse_json(b"{nope") else {
            panic!("expected a validation error")
        };
        assert_eq!(e.form_errors.len(), 1);
        assert!(parse_json(b"").is_err());
    }
}
