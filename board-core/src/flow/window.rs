//! The window of a flow read: `[since, until)` from the query's ISO 8601 texts,
//! its defaults, its limits and the UTC days it touches.

use crate::error::{Error, Result, ValidationErrors};
use crate::time::format_millis;
pub(crate) use crate::time::parse_time;

const DAY_MS: i64 = 86_400_000;

/// The longest window, in days.
pub const MAX_WINDOW_DAYS: i64 = 366;

/// The days of the default window (ending with the day of `until`).
pub const DEFAULT_WINDOW_DAYS: i64 = 30;

/// What `since` and `until` accept, as a 422 says it.
const ACCEPTED: &str = "Expected an ISO 8601 date (YYYY-MM-DD, midnight UTC) or date-time \
     (YYYY-MM-DDTHH:MM[:SS[.sss]] with Z or an offset such as +02:00)";

/// A resolved window, in milliseconds since the Unix epoch.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Window {
    pub(crate) since: i64,
    pub(crate) until: i64,
}

impl Window {
    /// Reads `since` and `until` (`None` when absent) against `now_ms`: until
    /// defaults to now, since to the start of the UTC day `days - 1` before
    /// the window's last day, the day of `until - 1 ms` (`days` UTC days; 30
    /// when not given). Every problem is
    /// reported at once.
    pub(crate) fn parse(
        since: Option<&str>,
        days: Option<i64>,
        until: Option<&str>,
        now_ms: i64,
    ) -> Result<Window> {
        let mut errors = ValidationErrors::default();
        let mut read = |field: &str, text: Option<&str>| match text.map(parse_time) {
            None => Some(None),
            Some(Some(ms)) => Some(Some(ms)),
            Some(None) => {
                errors.field(field, ACCEPTED);
                None
            }
        };
        let (since, until) = (read("since", since), read("until", until));
        let (Some(since), Some(until)) = (since, until) else {
            return Err(Error::Validation(errors));
        };
        let until = until.unwrap_or(now_ms);
        let days = days.unwrap_or(DEFAULT_WINDOW_DAYS);
        if !(1..=MAX_WINDOW_DAYS).contains(&days) {
            return Err(ValidationErrors::one(
                "since",
                format!("A number of days is 1 to {MAX_WINDOW_DAYS}"),
            ));
        }
        let since =
            since.unwrap_or_else(|| (until - 1).div_euclid(DAY_MS) * DAY_MS - (days - 1) * DAY_MS);
        if since >= until {
            return Err(ValidationErrors::one("since", "Must be before until"));
        }
        if until - since > MAX_WINDOW_DAYS * DAY_MS {
            return Err(ValidationErrors::one(
                "since",
                format!("The window [since, until) is at most {MAX_WINDOW_DAYS} days"),
            ));
        }
        Ok(Window { since, until })
    }

    /// The UTC days the window touches, in order (`YYYY-MM-DD`).
    pub(crate) fn days(&self) -> Vec<String> {
        let first = self.since.div_euclid(DAY_MS);
        let last = (self.until - 1).div_euclid(DAY_MS);
        (first..=last).map(|d| day_text(d * DAY_MS)).collect()
    }

    /// The start of the window's first UTC day.
    pub(crate) fn first_day_start(&self) -> i64 {
        self.since.div_euclid(DAY_MS) * DAY_MS
    }
}

/// `YYYY-MM-DD` of a time.
pub(crate) fn day_text(ms: i64) -> String {
    format_millis(ms)[..10].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_dates_and_date_times() {
        let t = |s| parse_time(s).map(format_millis);
        assert_eq!(t("2026-11-21").unwrap(), "2026-11-21T00:00:00.000Z");
        assert_eq!(
            t("2026-11-21T23:43:00.000Z").unwrap(),
            "2026-11-21T23:43:00.000Z"
        );
        assert_eq!(t("2026-11-21T23:43Z").unwrap(), "2026-11-21T23:43:00.000Z");
        assert_eq!(
            t("2026-11-22T01:43:00.5+02:00").unwrap(),
            "2026-11-21T23:43:00.500Z"
        );
        assert_eq!(
            t("2000-02-29T00:00:00.123456Z").unwrap(),
            "2000-02-29T00:00:00.123Z"
        );
        for bad in [
            "",
            "30d",
            "2026-02-30",
            "2026-11-21T25:00Z",
            "2026-11-21T10:00",
            "2026-1-1",
        ] {
            assert_eq!(parse_time(bad), None, "{bad}");
        }
    }

    #[test]
    fn defaults_limits_and_days() {
        let now = parse_time("2026-11-21T12:00:00Z").unwrap();
        let w = Window::parse(None, None, None, now).unwrap();
        assert_eq!(format_millis(w.since), "2026-10-23T00:00:00.000Z");
        assert_eq!(w.days().len(), 30);
        assert_eq!(w.days().last().unwrap(), "2026-11-21");
        let w = Window::parse(None, Some(7), None, now).unwrap();
        assert_eq!(w.days().len(), 7);
        assert!(Window::parse(None, Some(0), None, now).is_err());
        let w = Window::parse(Some("2026-11-01"), None, Some("2026-11-03"), now).unwrap();
        assert_eq!(w.days(), ["2026-11-01", "2026-11-02"]);
        let e = Window::parse(Some("2026-11-03"), None, Some("2026-11-01"), now).unwrap_err();
        assert_eq!(e.code(), "VALIDATION_FAILED");
        let e = Window::parse(Some("2025-01-01"), None, Some("2026-11-01"), now).unwrap_err();
        assert!(e.details().unwrap().field_errors["since"][0].contains("366"));
        let e = Window::parse(Some("x"), None, Some("y"), now).unwrap_err();
        assert_eq!(e.details().unwrap().field_errors.len(), 2);
    }
}
