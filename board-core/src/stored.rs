//! A value as its column stores it: what a big read's JSON row holds on
//! SQLite (`store::big_read`), turned back into its type. Ids and times are
//! their text, numbers their number, a null `None`.

use serde::de::DeserializeOwned;

/// A type read back from the JSON of its stored column.
pub(crate) trait FromStored: Sized {
    /// What the column's JSON holds.
    type Stored: DeserializeOwned;

    /// The value of `stored`.
    fn from_stored(stored: Self::Stored) -> Self;
}

impl FromStored for String {
    type Stored = String;

    fn from_stored(stored: String) -> String {
        stored
    }
}

impl FromStored for i64 {
    type Stored = i64;

    fn from_stored(stored: i64) -> i64 {
        stored
    }
}

impl<T: FromStored> FromStored for Option<T> {
    type Stored = Option<T::Stored>;

    fn from_stored(stored: Self::Stored) -> Self {
        stored.map(T::from_stored)
    }
}
