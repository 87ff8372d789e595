//! Pages of a list read by keyset (api.md §19): `limit` within bounds and an
//! opaque `cursor`, the keys of the previous page's last item. A cursor is
//! the keys' text, hex-encoded: opaque to a client, checked when read back.

use crate::error::{Result, ValidationErrors};

/// The largest `limit` a paged read takes.
pub const MAX_LIMIT: u16 = 200;

/// `limit` as the query gave it (`None`: `default`), checked to be 1..=200
/// (else a 422 on `limit`).
pub(crate) fn limit(raw: Option<&str>, default: u16) -> Result<u16> {
    let Some(raw) = raw else {
        return Ok(default);
    };
    raw.parse::<u16>()
        .ok()
        .filter(|n| (1..=MAX_LIMIT).contains(n))
        .ok_or_else(|| {
            ValidationErrors::one(
                "limit",
                format!("Expected an integer from 1 to {MAX_LIMIT}, received {raw:?}"),
            )
        })
}

/// A cursor made of `keys` (none may contain a NUL).
pub(crate) fn encode(keys: &[&str]) -> String {
    keys.join("\0")
        .bytes()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The `n` keys of a cursor the server made; anything else is a 422 on `cursor`.
pub(crate) fn decode(raw: &str, n: usize) -> Result<Vec<String>> {
    let bad = || {
        ValidationErrors::one(
            "cursor",
            "Expected the nextCursor of the previous page, unchanged",
        )
    };
    if !raw.len().is_multiple_of(2) || raw.len() > 1024 {
        return Err(bad());
    }
    let bytes = (0..raw.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(raw.get(i..i + 2).ok_or_else(bad)?, 16).map_err(|_| bad()))
        .collect::<Result<Vec<u8>>>()?;
    let text = String::from_utf8(bytes).map_err(|_| bad())?;
    let keys: Vec<String> = text.split('\0').map(str::to_string).collect();
    if keys.len() != n {
        return Err(bad());
    }
    Ok(keys)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_and_cursors() {
        assert_eq!(limit(None, 20).unwrap(), 20);
        assert_eq!(limit(Some("200"), 20).unwrap(), 200);
        for bad in ["0", "201", "-1", "x", ""] {
            assert_eq!(
                limit(Some(bad), 20).unwrap_err().code(),
                "VALIDATION_FAILED"
            );
        }
        let c = encode(&["2026-11-24T21:00:00.000Z", "abc"]);
        assert_eq!(decode(&c, 2).unwrap(), ["2026-11-24T21:00:00.000Z", "abc"]);
        for bad in ["zz", "abc", &c[..c.len() - 8]] {
            assert!(decode(bad, 2).is_err(), "{bad}");
        }
        assert!(decode(&c, 3).is_err());
    }
}
