//! PostgreSQL: the statements every connection prepares when it opens, so
//! that a [`Batch`](super::batch::Batch) (one simple query, which takes no
//! parameters) runs them by name, `EXECUTE name(literals)`, with a plan
//! PostgreSQL keeps, instead of parsing and planning their text with
//! literals at every write.
//!
//! The texts are the hot writes' fused and deferred statements, handed over
//! by the crate when it opens a board ([`Prepared::new`]); a statement not
//! among them is sent as its text with literals, as before. Every parameter
//! is `text`, as sqlx binds a [`Value`] when the same statement runs on its
//! own ([`Deferred::run`](super::batch::Deferred::run)), so both paths type
//! it alike.

use std::cell::Cell;
use std::collections::HashMap;

use super::batch::{renumber, Value};

/// The prepared statements: each text's name and number of parameters.
#[derive(Debug, Default)]
pub(crate) struct Prepared {
    by_text: HashMap<String, (String, usize)>,
}

impl Prepared {
    /// The statements `texts` (each with `$1`, `$2`, … as its parameters),
    /// named in their order (duplicates once).
    pub(crate) fn new(texts: impl IntoIterator<Item = String>) -> Prepared {
        let mut by_text = HashMap::new();
        for text in texts {
            let n = by_text.len();
            by_text
                .entry(text)
                .or_insert_with_key(|t: &String| (format!("board_p{n}"), parameters(t)));
        }
        Prepared { by_text }
    }

    /// What a new connection runs to prepare every statement (nothing when
    /// there are none).
    pub(crate) fn setup_sql(&self) -> String {
        let mut all: Vec<(&String, &(String, usize))> = self.by_text.iter().collect();
        all.sort_by(|a, b| a.1 .0.cmp(&b.1 .0));
        all.iter()
            .map(|(text, (name, n))| match n {
                0 => format!("PREPARE {name} AS {text}"),
                n => format!("PREPARE {name} ({}) AS {text}", vec!["text"; *n].join(", ")),
            })
            .collect::<Vec<_>>()
            .join("; ")
    }

    /// `sql` run by name with `values` as literals, when it is prepared.
    pub(crate) fn execute(&self, sql: &str, values: &[Value]) -> Option<String> {
        let (name, n) = self.by_text.get(sql)?;
        if *n == 0 {
            return Some(format!("EXECUTE {name}"));
        }
        let args: Vec<String> = (0..*n)
            .map(|i| {
                values
                    .get(i)
                    .map_or_else(|| "NULL".to_string(), Value::literal)
            })
            .collect();
        Some(format!("EXECUTE {name}({})", args.join(", ")))
    }
}

/// The highest `$N` of `sql` (outside quotes): its number of parameters.
fn parameters(sql: &str) -> usize {
    let most = Cell::new(0);
    renumber(sql, |n| {
        most.set(most.get().max(n));
        String::new()
    });
    most.get()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_prepared_statement_runs_by_name_with_every_parameter_as_a_literal() {
        let p = Prepared::new([
            "INSERT INTO t VALUES ($1, $3, '$9')".to_string(),
            "SELECT 1".to_string(),
            "SELECT 1".to_string(),
        ]);
        assert_eq!(
            p.setup_sql(),
            "PREPARE board_p0 (text, text, text) AS INSERT INTO t VALUES ($1, $3, '$9'); \
             PREPARE board_p1 AS SELECT 1"
        );
        assert_eq!(
            p.execute(
                "INSERT INTO t VALUES ($1, $3, '$9')",
                &[Value::text("it's"), Value::Null]
            )
            .as_deref(),
            Some("EXECUTE board_p0(E'it''s', NULL, NULL)")
        );
        assert_eq!(
            p.execute("SELECT 1", &[]).as_deref(),
            Some("EXECUTE board_p1")
        );
        assert_eq!(p.execute("SELECT 2", &[]), None);
    }
}
