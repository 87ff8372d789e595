//! Schema checks for request bodies and query strings, shared by the server and
//! the CLI. A body is read as a JSON object field by field so that every problem
//! is reported at once, in the contract's `fieldErrors` / `formErrors` shape.

use serde_json::{Map, Value};

use crate::error::{Error, Result, ValidationErrors};
use crate::ids::is_cuid;

/// The most characters a column or card name may have after trimming.
pub const NAME_MAX: usize = 100;

/// A typed input that can be read from a JSON body.
pub trait FromJson: Sized {
    /// Reads the input, collecting every schema problem into [`ValidationErrors`].
    fn from_json(body: &Value) -> Result<Self>;
}

/// An operation's input whose schema check is still pending.
///
/// The contract orders the checks 401 → 404 → 403 → 422, so an operation first
/// checks access and only then opens its input. Rust callers build the typed
/// input directly (`UpdateCard { .. }.into()`); the server reads it from bytes.
#[derive(Debug)]
pub struct Input<T>(Result<T>);

impl<T> From<T> for Input<T> {
    fn from(value: T) -> Self {
        Input(Ok(value))
    }
}

impl<T: FromJson> Input<T> {
    /// Reads an input from raw body bytes (a non-JSON body is a schema failure).
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
pub fn parse_json(bytes: &[u8]) -> Result<Value> {
    if bytes.iter().all(u8::is_ascii_whitespace) {
        return Err(ValidationErrors::whole(
            "Request body is required (a JSON object)",
        ));
    }
    serde_json::from_slice(bytes)
        .map_err(|e| ValidationErrors::whole(format!("Request body is not valid JSON: {e}")))
}

/// Reads the fields of one JSON object, collecting errors as it goes.
pub struct Fields<'a> {
    obj: Option<&'a Map<String, Value>>,
    known: Vec<&'static str>,
    errors: ValidationErrors,
}

impl<'a> Fields<'a> {
    /// Starts reading `body`, which must be a JSON object.
    pub fn new(body: &'a Value) -> Self {
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
    pub fn required<T>(
        &mut self,
        key: &'static str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        self.required_or(key, "Required", parse)
    }

    /// A field that must be present (and not null), whose absence is reported
    /// as `Required: {accepted}`, naming what the field accepts.
    pub fn required_naming<T>(
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
    pub fn optional<T>(
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
    pub fn nullable<T>(
        &mut self,
        key: &'static str,
        parse: impl FnOnce(&Value) -> Result<T, String>,
    ) -> Option<T> {
        match self.get(key) {
            None | Some(Value::Null) => None,
            Some(v) => self.check(key, parse(v)),
        }
    }

    /// Records a rule that involves several fields.
    pub fn field_error(&mut self, key: &str, message: impl Into<String>) {
        self.errors.field(key, message);
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
    pub fn finish(mut self) -> Result<()> {
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

/// A query parameter that must be present (422 `fieldErrors.NAME` otherwise).
pub fn required_param<'a>(name: &str, value: Option<&'a str>) -> Result<&'a str> {
    value.ok_or_else(|| ValidationErrors::one(name, "Required"))
}

/// A JSON string.
pub fn string(v: &Value) -> Result<String, String> {
    v.as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("Expected string, received {}", kind(v)))
}

/// A JSON boolean.
pub fn boolean(v: &Value) -> Result<bool, String> {
    v.as_bool()
        .ok_or_else(|| format!("Expected boolean, received {}", kind(v)))
}

/// A cuid2 id given as a JSON string.
pub fn cuid(v: &Value) -> Result<String, String> {
    let s = string(v)?;
    if is_cuid(&s) {
        Ok(s)
    } else {
        Err("Invalid cuid".into())
    }
}

/// A column or card name: trimmed, then 1..=100 characters.
pub fn name(v: &Value) -> Result<String, String> {
    check_name(&string(v)?)
}

/// The message for text holding a NUL character, which neither backend
/// stores as text (PostgreSQL refuses it, SQLite's `length()` stops at it).
pub const NUL_REFUSED: &str = "String must not contain NUL (\\u0000) characters";

/// Trims a name and checks its length (1..=100 characters) and that it holds
/// no NUL character.
pub fn check_name(raw: &str) -> Result<String, String> {
    if raw.contains('\0') {
        return Err(NUL_REFUSED.into());
    }
    let t = raw.trim();
    match t.chars().count() {
        0 => Err("String must contain at least 1 character(s) after trimming".into()),
        n if n > NAME_MAX => Err(format!(
            "String must contain at most {NAME_MAX} character(s)"
        )),
        _ => Ok(t.to_string()),
    }
}

/// A string that must be one of `allowed`.
pub fn one_of(v: &Value, allowed: &[&'static str]) -> Result<&'static str, String> {
    let s = string(v)?;
    allowed.iter().copied().find(|a| *a == s).ok_or_else(|| {
        format!(
            "Invalid enum value. Expected {}, received '{s}'",
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
    fn names_are_trimmed_and_bounded() {
        assert_eq!(check_name("  To do ").unwrap(), "To do");
        assert!(check_name("   ").is_err());
        assert!(check_name(&"é".repeat(100)).is_ok());
        assert!(check_name(&"é".repeat(101)).is_err());
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
