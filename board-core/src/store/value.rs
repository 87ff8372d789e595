//! The values of a statement as text: [`Value`], the `$N` scanner
//! ([`renumber`], [`parameters`]) and PostgreSQL's string [`literal`], which
//! a [`Batch`](super::batch::Batch) and a [`Prepared`](super::prepared::Prepared)
//! statement write values as on PostgreSQL. It imports nothing of the
//! crate but `error`.

use std::cell::Cell;

use crate::error::{Error, Result};

/// One value of a deferred statement.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Value {
    /// Text (ids, times, words, JSON).
    Text(String),
    /// SQL `NULL`.
    Null,
}

impl Value {
    /// The text `v` (an id, a time, a word).
    pub(crate) fn text(v: impl AsRef<str>) -> Value {
        Value::Text(v.as_ref().to_string())
    }

    /// The text `v`, or `NULL` when there is none.
    pub(crate) fn opt(v: Option<impl AsRef<str>>) -> Value {
        v.map_or(Value::Null, Value::text)
    }

    /// The value as a PostgreSQL literal.
    pub(crate) fn literal(&self) -> String {
        match self {
            Value::Text(t) => literal(t),
            Value::Null => "NULL".to_string(),
        }
    }
}

/// `value` as a PostgreSQL string literal: an escape string (`E'…'`) with
/// quotes and backslashes doubled, which reads the same whatever
/// `standard_conforming_strings` says.
///
/// Every text value of a statement sent with literals passes through it: ids,
/// times, event types and JSON, and also the texts a user wrote (card titles,
/// comment text, the words of the search index). None can break out of the
/// literal: a quote is always doubled. None holds a NUL either: the API
/// refuses NUL in every text it takes (`text.rs`), PostgreSQL's `text` holds
/// none, and serde_json escapes every control character. Were one to come,
/// PostgreSQL would refuse the whole statement (its query text ends at a NUL,
/// and the message length then disagrees), never run part of it.
pub(crate) fn literal(value: &str) -> String {
    format!("E'{}'", value.replace('\\', "\\\\").replace('\'', "''"))
}

/// `sql` with every parameter `$N` outside quoted strings and identifiers
/// replaced by `to(N)`.
/// The parameters `$first`, `$first+1`, … of a list of `n` values, one each.
pub(crate) fn placeholder_list(first: usize, n: usize) -> Vec<String> {
    (first..first + n).map(|i| format!("${i}")).collect()
}

/// [`placeholder_list`] as SQL: `$3, $4, $5`.
pub(crate) fn placeholders(first: usize, n: usize) -> String {
    placeholder_list(first, n).join(", ")
}

pub(crate) fn renumber(sql: &str, to: impl Fn(usize) -> String) -> String {
    let mut out = String::with_capacity(sql.len() + 16);
    let mut quote: Option<char> = None;
    let mut chars = sql.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        match quote {
            Some(q) => {
                out.push(c);
                if c == q {
                    quote = None;
                }
            }
            None if c == '\'' || c == '"' => {
                out.push(c);
                quote = Some(c);
            }
            None if c == '$' => {
                let start = i + 1;
                let mut end = start;
                while let Some(&(j, d)) = chars.peek() {
                    if !d.is_ascii_digit() {
                        break;
                    }
                    end = j + 1;
                    chars.next();
                }
                match sql[start..end].parse::<usize>() {
                    Ok(n) if n > 0 => out.push_str(&to(n)),
                    _ => out.push_str(&sql[i..end]),
                }
            }
            None => out.push(c),
        }
    }
    out
}

/// The highest `$N` of `sql` (outside quotes): its number of parameters.
pub(crate) fn parameters(sql: &str) -> usize {
    let most = Cell::new(0);
    renumber(sql, |n| {
        most.set(most.get().max(n));
        String::new()
    });
    most.get()
}

/// `Ok` when `given` values fill the `wanted` parameters of `sql`; a missing
/// one is a bug of the caller's, never a `NULL`: `Error::Internal`.
pub(crate) fn enough(sql: &str, given: usize, wanted: usize) -> Result<()> {
    match given >= wanted {
        true => Ok(()),
        false => Err(Error::Internal(format!(
            "a statement takes {wanted} values and was given {given}: {sql}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_count_from_the_first() {
        assert_eq!(placeholders(3, 3), "$3, $4, $5");
        assert_eq!(placeholders(1, 0), "");
        assert_eq!(placeholder_list(2, 2), ["$2", "$3"]);
    }

    #[test]
    fn renumbering_skips_quotes_and_reads_whole_numbers() {
        let sql = "SELECT $1, '$2', \"a$3\", $10, $1 || 'it''s $4', $";
        assert_eq!(
            renumber(sql, |n| format!("${}", n + 5)),
            "SELECT $6, '$2', \"a$3\", $15, $6 || 'it''s $4', $"
        );
    }

    #[test]
    fn literals_quote_quotes_and_backslashes() {
        assert_eq!(literal("a'b\\c"), "E'a''b\\\\c'");
    }

    #[test]
    fn parameters_are_the_highest_number_outside_quotes() {
        assert_eq!(parameters("SELECT $1, '$9', $3"), 3);
        assert_eq!(parameters("COMMIT"), 0);
    }
}
