//! Time as the service stores and sends it: fixed-width RFC 3339 UTC text with
//! milliseconds (`2026-11-21T23:43:00.000Z`), which sorts as text.

use std::fmt;
use std::sync::atomic::{AtomicI64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;

/// An instant as the service stores and sends it: RFC 3339, UTC, with
/// milliseconds and `Z` (`2026-11-21T23:43:00.000Z`), fixed width, so that
/// instants sort as their text. Serialized as that string.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(transparent)]
pub struct Timestamp(String);

impl Timestamp {
    /// The instant `ms` milliseconds after the Unix epoch.
    pub fn from_millis(ms: i64) -> Timestamp {
        Timestamp(format_millis(ms))
    }

    /// An instant as the database holds it (core writes only its own format).
    pub(crate) fn from_db(s: String) -> Timestamp {
        Timestamp(s)
    }

    /// The text (`2026-11-21T23:43:00.000Z`).
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for Timestamp {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for Timestamp {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for Timestamp {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

/// The `Timestamp` schema of an instant a client sends: any RFC 3339
/// date-time, kept as UTC with milliseconds.
#[cfg(feature = "openapi")]
impl utoipa::PartialSchema for Timestamp {
    fn schema() -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        use utoipa::openapi::schema::{KnownFormat, ObjectBuilder, SchemaFormat, SchemaType, Type};
        ObjectBuilder::new()
            .schema_type(SchemaType::Type(Type::String))
            .format(Some(SchemaFormat::KnownFormat(KnownFormat::DateTime)))
            .description(Some(
                "An RFC 3339 date-time (`2026-11-21T23:43:00.000Z`, or with an offset); \
                 kept as UTC with milliseconds",
            ))
            .into()
    }
}

#[cfg(feature = "openapi")]
impl utoipa::ToSchema for Timestamp {}

/// Read back as stored (the service writes only its own format).
impl sqlx::Type<sqlx::Any> for Timestamp {
    fn type_info() -> sqlx::any::AnyTypeInfo {
        <String as sqlx::Type<sqlx::Any>>::type_info()
    }

    fn compatible(ty: &sqlx::any::AnyTypeInfo) -> bool {
        <String as sqlx::Type<sqlx::Any>>::compatible(ty)
    }
}

impl crate::stored::FromStored for Timestamp {
    type Stored = String;

    fn from_stored(stored: String) -> Timestamp {
        Timestamp(stored)
    }
}

impl<'r> sqlx::Decode<'r, sqlx::Any> for Timestamp {
    fn decode(value: sqlx::any::AnyValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        <String as sqlx::Decode<'r, sqlx::Any>>::decode(value).map(Timestamp)
    }
}

impl<'q> sqlx::Encode<'q, sqlx::Any> for Timestamp {
    fn encode_by_ref(
        &self,
        buf: &mut <sqlx::Any as sqlx::Database>::ArgumentBuffer,
    ) -> Result<sqlx::encode::IsNull, sqlx::error::BoxDynError> {
        <String as sqlx::Encode<'q, sqlx::Any>>::encode_by_ref(&self.0, buf)
    }
}

/// The current time as fixed-width RFC 3339 UTC text with milliseconds
/// (`2026-11-21T23:43:00.000Z`): [`tick`], formatted.
pub(crate) fn now() -> Timestamp {
    Timestamp::from_millis(tick())
}

/// The service's clock, in milliseconds since the Unix epoch: the wall clock,
/// but strictly increasing within one process, so rows written one after
/// another sort in the order they were written. Every write takes its time
/// here, and so does the end of a default flow window, which therefore lies
/// after every change committed before it was read (api.md §21).
pub(crate) fn tick() -> i64 {
    static LAST: AtomicI64 = AtomicI64::new(0);
    let wall = now_millis();
    let mut prev = LAST.load(Ordering::Relaxed);
    loop {
        let next = wall.max(prev + 1);
        match LAST.compare_exchange_weak(prev, next, Ordering::Relaxed, Ordering::Relaxed) {
            Ok(_) => return next,
            Err(seen) => prev = seen,
        }
    }
}

/// The time `seconds` from now, in the same format as [`now`].
pub(crate) fn now_plus(seconds: i64) -> Timestamp {
    Timestamp::from_millis(now_millis() + seconds * 1000)
}

/// A named time zone of the IANA database (`Europe/Paris`, `UTC`), built
/// into the binary, so every server of one release counts the same days.
#[derive(Debug, Clone)]
pub(crate) struct Zone(jiff::tz::TimeZone);

impl Zone {
    /// The zone named `name`, or `None` when the database has no such name.
    pub(crate) fn named(name: &str) -> Option<Zone> {
        jiff::tz::TimeZone::get(name).ok().map(Zone)
    }

    /// UTC.
    pub(crate) fn utc() -> Zone {
        Zone(jiff::tz::TimeZone::UTC)
    }

    /// The start of the local day holding the instant `at` and the start of
    /// the day `days` later, in milliseconds since the Unix epoch. Days are
    /// calendar days: one across a daylight-saving change lasts 23 or 25
    /// hours, and one whose midnight is skipped starts when the day does.
    pub(crate) fn days_from(&self, at: i64, days: i32) -> Option<(i64, i64)> {
        let date = jiff::Timestamp::from_millisecond(at)
            .ok()?
            .to_zoned_datetime(self.0.clone())
            .date();
        let start = |d: jiff::civil::Date| {
            d.to_zoned_datetime(self.0.clone())
                .ok()
                .map(|z| z.timestamp().as_millisecond())
        };
        let last = date.checked_add(jiff::Span::new().days(days)).ok()?;
        Some((start(date)?, start(last)?))
    }
}

/// The wall clock in milliseconds since the Unix epoch.
pub(crate) fn now_millis() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// Formats milliseconds since the Unix epoch as `YYYY-MM-DDTHH:MM:SS.mmmZ`.
pub(crate) fn format_millis(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    // Civil date from days since 1970-01-01 (H. Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Parses `YYYY-MM-DD` (midnight UTC) or `YYYY-MM-DDTHH:MM[:SS[.fff…]]`
/// followed by `Z` or `±HH:MM` (a space for the `T`, a lowercase `t`/`z` too).
pub(crate) fn parse_time(text: &str) -> Option<i64> {
    let b = text.trim().as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let s = b.get(r)?;
        s.iter()
            .all(u8::is_ascii_digit)
            .then(|| s.iter().fold(0, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 10 || b[4] != b'-' || b[7] != b'-' {
        return None;
    }
    let (y, m, d) = (num(0..4)?, num(5..7)?, num(8..10)?);
    if !(1..=12).contains(&m) || d < 1 || d > days_in_month(y, m) {
        return None;
    }
    let date = days_from_civil(y, m, d) * 86_400_000;
    if b.len() == 10 {
        return Some(date);
    }
    if !matches!(b[10], b'T' | b't' | b' ') || b.len() < 16 || b[13] != b':' {
        return None;
    }
    let (h, mi) = (num(11..13)?, num(14..16)?);
    let mut i = 16;
    let (mut s, mut ms) = (0, 0);
    if b.get(i) == Some(&b':') {
        s = num(i + 1..i + 3)?;
        i += 3;
        if b.get(i) == Some(&b'.') {
            let start = i + 1;
            i = start;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            if i == start {
                return None;
            }
            // Milliseconds: the first three digits, padded.
            let digits: Vec<i64> = b[start..i.min(start + 3)]
                .iter()
                .map(|d| i64::from(d - b'0'))
                .collect();
            ms = digits.iter().fold(0, |n, d| n * 10 + d) * 10_i64.pow(3 - digits.len() as u32);
        }
    }
    if h > 23 || mi > 59 || s > 59 {
        return None;
    }
    let offset = match b.get(i..)? {
        [b'Z' | b'z'] => 0,
        [sign @ (b'+' | b'-'), _, _, b':', _, _] => {
            let (oh, om) = (num(i + 1..i + 3)?, num(i + 4..i + 6)?);
            if oh > 23 || om > 59 {
                return None;
            }
            let off = (oh * 60 + om) * 60_000;
            if *sign == b'+' {
                off
            } else {
                -off
            }
        }
        _ => return None,
    };
    Some(date + ((h * 60 + mi) * 60 + s) * 1000 + ms - offset)
}

fn days_in_month(y: i64, m: i64) -> i64 {
    match m {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a civil date (H. Hinnant's algorithm).
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y.rem_euclid(400);
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_times_fixed_width() {
        assert_eq!(format_millis(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(format_millis(1_795_304_580_000), "2026-11-21T23:43:00.000Z");
        assert_eq!(format_millis(951_782_400_123), "2000-02-29T00:00:00.123Z");
    }

    #[test]
    fn days_are_calendar_days_of_the_zone() {
        // (zone, instant, days, first day's start, start of the day after the last)
        let cases = [
            (
                "UTC",
                "2026-11-21T23:43:00Z",
                1,
                "2026-11-21T00:00",
                "2026-11-22T00:00",
            ),
            // 23:43 UTC is already Sunday in Paris.
            (
                "Europe/Paris",
                "2026-11-21T23:43:00Z",
                1,
                "2026-11-21T23:00",
                "2026-11-22T23:00",
            ),
            // The spring change: a day of 23 hours, and a week across it.
            (
                "Europe/Paris",
                "2026-03-29T12:00:00Z",
                1,
                "2026-03-28T23:00",
                "2026-03-29T22:00",
            ),
            (
                "Europe/Paris",
                "2026-03-27T12:00:00Z",
                7,
                "2026-03-26T23:00",
                "2026-04-02T22:00",
            ),
            // West of UTC, and a zone whose midnight is skipped (Santiago, 2026).
            (
                "America/New_York",
                "2026-11-22T03:00:00Z",
                1,
                "2026-11-21T05:00",
                "2026-11-22T05:00",
            ),
            (
                "America/Santiago",
                "2026-09-06T12:00:00Z",
                1,
                "2026-09-06T04:00",
                "2026-09-07T03:00",
            ),
        ];
        for (zone, at, days, from, to) in cases {
            let (a, b) = Zone::named(zone)
                .expect(zone)
                .days_from(parse_time(at).unwrap(), days)
                .unwrap();
            let got = (format_millis(a), format_millis(b));
            let want = (format!("{from}:00.000Z"), format!("{to}:00.000Z"));
            assert_eq!(got, want, "{zone} at {at}, {days} days");
        }
        assert!(Zone::named("Mars/Olympus_Mons").is_none());
        assert!(Zone::named("").is_none());
    }

    #[test]
    fn now_is_strictly_increasing() {
        let a = now();
        let b = now();
        assert!(b > a, "{b} should sort after {a}");
    }
}
