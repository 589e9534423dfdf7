//! UTC calendar time from Unix seconds, without a date crate: enough for timestamps in
//! file names and records (`20261130T101500Z`, `2026-11-30T10:15:00Z`).

use std::time::{SystemTime, UNIX_EPOCH};

/// Unix seconds now (0 if the clock is before 1970).
pub fn unix_now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}

/// A UTC date and time of day, to the second.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct UtcTime {
    pub year: i64,
    /// 1–12.
    pub month: u32,
    /// 1–31.
    pub day: u32,
    pub hour: u32,
    pub minute: u32,
    pub second: u32,
}

impl UtcTime {
    /// The current time (the system clock).
    pub fn now() -> UtcTime {
        UtcTime::from_system(SystemTime::now())
    }

    pub fn from_system(t: SystemTime) -> UtcTime {
        let secs = match t.duration_since(UNIX_EPOCH) {
            Ok(d) => i64::try_from(d.as_secs()).unwrap_or(i64::MAX),
            // Before 1970: round down to the whole second.
            Err(e) => {
                let d = e.duration();
                let whole = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
                -whole - i64::from(d.subsec_nanos() > 0)
            }
        };
        UtcTime::from_unix(secs)
    }

    /// The calendar time of `secs` seconds since 1970-01-01T00:00:00Z (negative is before).
    pub fn from_unix(secs: i64) -> UtcTime {
        let days = secs.div_euclid(86_400);
        let of_day = secs.rem_euclid(86_400);
        let (year, month, day) = civil_from_days(days);
        UtcTime {
            year,
            month,
            day,
            hour: (of_day / 3600) as u32,
            minute: (of_day % 3600 / 60) as u32,
            second: (of_day % 60) as u32,
        }
    }

    /// `20261130T101500Z`: ISO 8601 basic format; sorts by time and is safe in file names.
    pub fn compact(&self) -> String {
        format!(
            "{:04}{:02}{:02}T{:02}{:02}{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }

    /// `2026-11-30T10:15:00Z` (RFC 3339).
    pub fn rfc3339(&self) -> String {
        format!(
            "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
            self.year, self.month, self.day, self.hour, self.minute, self.second
        )
    }
}

/// (year, month, day) of a day count since 1970-01-01 in the proleptic Gregorian calendar.
/// Counts in 400-year eras of 146,097 days, with years starting on March 1st so the leap
/// day is the last day of a year.
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    // Shift the epoch to 0000-03-01.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    // Months counted from March: 0 = March … 11 = February.
    let mp = (5 * day_of_year + 2) / 153;
    let day = (day_of_year - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn known_instants() {
        let cases = [
            (0, "1970-01-01T00:00:00Z"),
            (-1, "1969-12-31T23:59:59Z"),
            (951_782_400, "2000-02-29T00:00:00Z"),
            (951_868_800, "2000-03-01T00:00:00Z"),
            (1_700_000_000, "2023-11-14T22:13:20Z"),
            (4_102_444_800, "2100-01-01T00:00:00Z"),
            (4_107_542_399, "2100-02-28T23:59:59Z"),
            (4_107_542_400, "2100-03-01T00:00:00Z"),
            (-2_208_988_800, "1900-01-01T00:00:00Z"),
        ];
        for (secs, want) in cases {
            assert_eq!(UtcTime::from_unix(secs).rfc3339(), want, "{secs}");
        }
        assert_eq!(
            UtcTime::from_unix(1_796_033_700).compact(),
            "20261130T101500Z"
        );
    }

    #[test]
    fn every_day_follows_the_previous_one() {
        // 1960 … 2140: each day is the next calendar day of the one before.
        let mut prev = UtcTime::from_unix(-10 * 365 * 86_400);
        for d in (-10 * 365 + 1)..(170 * 365) {
            let t = UtcTime::from_unix(d * 86_400);
            assert!(t > prev, "{t:?} after {prev:?}");
            if t.day != 1 {
                assert_eq!(
                    (t.year, t.month, t.day - 1),
                    (prev.year, prev.month, prev.day)
                );
            } else {
                assert!(prev.day >= 28);
            }
            prev = t;
        }
    }

    #[test]
    fn system_time_before_the_epoch_rounds_down() {
        let t = UNIX_EPOCH - Duration::from_millis(1500);
        assert_eq!(UtcTime::from_system(t).rfc3339(), "1969-12-31T23:59:58Z");
        let t = UNIX_EPOCH + Duration::from_millis(1500);
        assert_eq!(UtcTime::from_system(t).rfc3339(), "1970-01-01T00:00:01Z");
    }
}
