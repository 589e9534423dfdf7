//! A small, realistic multi-language project with one distinctive unit per file.

use super::write;
use std::path::Path;

pub const EDIT_RS: &str = r#"//! Small string helpers used by the fuzzy finder.

/// True when the string holds nothing but whitespace.
pub fn is_blank(s: &str) -> bool {
    s.trim().is_empty()
}

/// Computes the Levenshtein edit distance between two words: the fewest single-character
/// insertions, deletions or substitutions that turn one into the other.
pub fn levenshtein_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}
"#;

pub const INVOICE_PY: &str = r#""""Invoice arithmetic for the billing service."""

TAX_RATE = 0.2


def parse_invoice_total(lines, tax_rate=TAX_RATE):
    """Add up price times quantity over every invoice line, then apply sales tax."""
    subtotal = sum(line["price"] * line["quantity"] for line in lines)
    return round(subtotal * (1 + tax_rate), 2)
"#;

pub const DEBOUNCE_TS: &str = r#"/**
 * Delays calling `fn` until the user has stopped typing for `waitMs` milliseconds,
 * so a search box does not send a request on every keystroke.
 */
export function debounceKeystrokes<T extends unknown[]>(fn: (...args: T) => void, waitMs: number) {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return (...args: T) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), waitMs);
  };
}
"#;

pub const GEO_GO: &str = r#"package geo

import "math"

// HaversineKm returns the great-circle distance in kilometres between two points on
// Earth, each given as latitude and longitude in degrees.
func HaversineKm(lat1, lon1, lat2, lon2 float64) float64 {
	const earthRadiusKm = 6371.0
	rad := func(d float64) float64 { return d * math.Pi / 180 }
	dLat, dLon := rad(lat2-lat1), rad(lon2-lon1)
	a := math.Sin(dLat/2)*math.Sin(dLat/2) + math.Cos(rad(lat1))*math.Cos(rad(lat2))*math.Sin(dLon/2)*math.Sin(dLon/2)
	return 2 * earthRadiusKm * math.Asin(math.Sqrt(a))
}
"#;

pub const README_MD: &str = r#"# Fuzzy Finder

A toy project that lore's tests index.

## Installation

Run `make install` and put the binary on your PATH.

## Configuring the webhook secret

Set `WEBHOOK_SIGNING_SECRET` in the environment. Requests whose HMAC signature does not
match it are rejected with status 401.
"#;

/// Relative path and content of every fixture file.
pub const FILES: [(&str, &str); 5] = [
    ("src/edit.rs", EDIT_RS),
    ("billing/invoice.py", INVOICE_PY),
    ("web/debounce.ts", DEBOUNCE_TS),
    ("geo/geo.go", GEO_GO),
    ("README.md", README_MD),
];

/// Writes the project into `root`.
pub fn write_project(root: &Path) {
    for (rel, content) in FILES {
        write(root, rel, content);
    }
}
