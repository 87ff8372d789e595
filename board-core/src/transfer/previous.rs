//! The export format versions an import reads: this build's, and the one
//! before it, whose exports lack what migration 0011 added (contract §17).

/// The export format this build writes (docs/export.md).
pub const EXPORT_FORMAT_VERSION: u32 = 2;

/// The migration format version 2 added.
const ADDED_MIGRATION: i64 = 11;

/// The columns format version 2 added, as (table, column): a version 1
/// export has none of them, and its rows go in with null there.
const ADDED_COLUMNS: &[(&str, &str)] = &[
    ("history", "actor_id"),
    ("cards", "created_by"),
    ("relations", "created_by"),
    ("attachments", "uploaded_by"),
];

/// What an export of one format version lacks of this build's schema.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Absent {
    columns: &'static [(&'static str, &'static str)],
    migration: Option<i64>,
}

impl Absent {
    /// What an export of `version` lacks; `None` for a version this build
    /// does not read.
    pub(crate) fn of(version: u32) -> Option<Absent> {
        match version {
            EXPORT_FORMAT_VERSION => Some(Absent {
                columns: &[],
                migration: None,
            }),
            1 => Some(Absent {
                columns: ADDED_COLUMNS,
                migration: Some(ADDED_MIGRATION),
            }),
            _ => None,
        }
    }

    /// The migrations such an export is at when the database is at `ours`.
    pub(crate) fn migrations(&self, ours: &[i64]) -> Vec<i64> {
        ours.iter()
            .copied()
            .filter(|v| Some(*v) != self.migration)
            .collect()
    }

    /// True when such an export has no `column` in `table`.
    pub(crate) fn column(&self, table: &str, column: &str) -> bool {
        self.columns.contains(&(table, column))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_1_lacks_migration_11_and_its_columns() {
        let v1 = Absent::of(1).unwrap();
        assert_eq!(v1.migrations(&[1, 2, 10, 11]), vec![1, 2, 10]);
        assert!(v1.column("cards", "created_by") && !v1.column("cards", "title"));
        let v2 = Absent::of(EXPORT_FORMAT_VERSION).unwrap();
        assert_eq!(v2.migrations(&[1, 11]), vec![1, 11]);
        assert!(!v2.column("cards", "created_by"));
        assert!(Absent::of(3).is_none() && Absent::of(0).is_none());
    }
}
