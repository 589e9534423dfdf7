//! The last line of a run: counts, averages, the most frequent suggestions and the weakest
//! dimension.

use super::answer::{DIMENSIONS, JudgeAnswer, Scores};
use super::queries::norm;
use crate::metrics::round4;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// How many suggestions `topIssues` lists.
const TOP_ISSUES: usize = 5;

/// A suggestion and how many queries made it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Issue {
    pub suggestion: String,
    pub count: usize,
}

/// The last line of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Summary {
    #[serde(rename = "type")]
    pub kind: String,
    pub timestamp: String,
    pub total_queries: usize,
    pub judged_queries: usize,
    pub failed_queries: usize,
    /// Means over judged queries (failed ones excluded), rounded to 4 decimals; `null`
    /// when none was judged.
    pub average_scores: Option<Scores>,
    /// Judged queries whose `overall` the judge left out (the design requires it): their
    /// lines show the mean of the other four, marked `overallComputed`, and stay out of
    /// the `overall` average (unless no judge gave one).
    #[serde(default)]
    pub overall_computed: usize,
    /// The most frequent suggestions (case and spacing ignored), most frequent first, as
    /// the design writes them (strings; `topIssueCounts` has their counts).
    pub top_issues: Vec<String>,
    /// lore's addition: `topIssues` with how often each was suggested.
    pub top_issue_counts: Vec<Issue>,
    /// The design's sentence: the weakest of relevance, ranking, coverage and
    /// snippetQuality, with its average (`focusDimension` is the bare name).
    pub recommended_focus: Option<String>,
    pub focus_dimension: Option<String>,
    pub search_mode: String,
    pub search_limit: usize,
    pub detail: String,
    pub stores: Vec<String>,
    /// What judged (`model M at URL` or `command `C``).
    pub judge: String,
    /// `generated`, or the queries file.
    pub queries_from: String,
    /// `inferred` (lore inferred each search's intent from its wording) or `given` (the
    /// generated intent was passed, `--given-intent`); older runs have neither.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub search_intent: String,
    /// Why the run ended before its last query (the judge could not be reached).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stopped: Option<String>,
}

/// Fills the counts, averages, top issues and focus of `base` from the judged answers.
pub(super) fn summarize(judged: &[JudgeAnswer], failed: usize, base: Summary) -> Summary {
    let average_scores = average(
        judged
            .iter()
            .map(|a| (a.scores.resolved(), a.scores.overall_computed())),
    );
    let focus = average_scores.map(|avg| {
        let v = avg.values();
        // The weakest of the four specific dimensions (overall is their consequence).
        let mut best = 0;
        for i in 1..4 {
            if v[i] < v[best] {
                best = i;
            }
        }
        (DIMENSIONS[best], v[best])
    });
    let counts = top_issues(judged.iter().flat_map(|a| a.suggestions.iter()), TOP_ISSUES);
    Summary {
        judged_queries: judged.len(),
        failed_queries: failed,
        average_scores,
        overall_computed: judged
            .iter()
            .filter(|a| a.scores.overall_computed())
            .count(),
        top_issues: counts.iter().map(|i| i.suggestion.clone()).collect(),
        top_issue_counts: counts,
        recommended_focus: focus
            .map(|(d, avg)| format!("{d}: the weakest dimension, average {avg:.3}")),
        focus_dimension: focus.map(|(d, _)| d.to_string()),
        ..base
    }
}

/// Means per dimension, rounded to 4 decimals; `None` for no scores. Each item says whether
/// its `overall` was computed (the judge left it out): those stay out of the `overall`
/// mean, which is the judges' own, unless no judge gave one.
pub fn average(scores: impl Iterator<Item = (Scores, bool)>) -> Option<Scores> {
    let mut sum = [0f64; 5];
    let (mut n, mut given, mut given_overall) = (0usize, 0usize, 0f64);
    for (s, overall_computed) in scores {
        for (acc, v) in sum.iter_mut().zip(s.values()) {
            *acc += v;
        }
        n += 1;
        if !overall_computed {
            given += 1;
            given_overall += s.overall;
        }
    }
    (n > 0).then(|| {
        let mut mean = sum.map(|x| round4(x / n as f64));
        if given > 0 {
            mean[4] = round4(given_overall / given as f64);
        }
        Scores::from_values(mean)
    })
}

/// The `k` most frequent suggestions (case, spacing and a final full stop ignored), most
/// frequent first, ties in order of first appearance; each shown as first written.
fn top_issues<'a>(suggestions: impl Iterator<Item = &'a String>, k: usize) -> Vec<Issue> {
    let mut counts: HashMap<String, (usize, usize, &str)> = HashMap::new();
    for (order, s) in suggestions.enumerate() {
        let key = norm(s);
        if key.is_empty() {
            continue;
        }
        counts.entry(key).or_insert((0, order, s.trim())).0 += 1;
    }
    let mut v: Vec<(usize, usize, &str)> = counts.into_values().collect();
    v.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    v.into_iter()
        .take(k)
        .map(|(count, _, s)| Issue {
            suggestion: s.to_string(),
            count,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::answer::tests::answer;

    #[test]
    fn summary_counts_averages_issues_and_focus() {
        let mut judged = vec![
            answer(
                [0.8, 0.6, 0.4, 0.9, 0.7],
                &["Boost symbol matches", "Show more context"],
                &[],
            ),
            answer(
                [0.6, 0.7, 0.2, 0.9, 0.5],
                &["boost  symbol matches.", "Index tests"],
                &[],
            ),
            answer(
                [0.7, 0.5, 0.3, 0.6, 0.6],
                &["Show more context", "boost symbol matches"],
                &[],
            ),
        ];
        let base = Summary {
            kind: "summary".into(),
            timestamp: String::new(),
            total_queries: 4,
            judged_queries: 0,
            failed_queries: 0,
            average_scores: None,
            overall_computed: 0,
            top_issues: vec![],
            top_issue_counts: vec![],
            recommended_focus: None,
            focus_dimension: None,
            search_mode: "fts".into(),
            search_limit: 10,
            detail: "minimal".into(),
            stores: vec![],
            judge: String::new(),
            queries_from: "generated".into(),
            search_intent: "inferred".into(),
            stopped: None,
        };
        let s = summarize(&judged, 1, base.clone());
        assert_eq!((s.judged_queries, s.failed_queries), (3, 1));
        assert_eq!(
            s.average_scores,
            Some(Scores::from_values([0.7, 0.6, 0.3, 0.8, 0.6]))
        );
        assert_eq!(s.overall_computed, 0);
        // A judge that leaves overall out: its line shows the mean of its four (0.525), but
        // the overall average is the other judges' own (0.6), and the line is counted.
        judged[2].scores.overall = None;
        assert_eq!(judged[2].scores.resolved().overall, 0.525);
        let computed = summarize(&judged, 1, base.clone());
        assert_eq!(computed.overall_computed, 1);
        assert_eq!(
            computed.average_scores,
            Some(Scores::from_values([0.7, 0.6, 0.3, 0.8, 0.6]))
        );
        assert_eq!(s.focus_dimension.as_deref(), Some("coverage"));
        assert_eq!(
            s.recommended_focus.as_deref(),
            Some("coverage: the weakest dimension, average 0.300")
        );
        assert_eq!(
            s.top_issues,
            ["Boost symbol matches", "Show more context", "Index tests"]
        );
        assert_eq!(
            s.top_issue_counts,
            vec![
                Issue {
                    suggestion: "Boost symbol matches".into(),
                    count: 3
                },
                Issue {
                    suggestion: "Show more context".into(),
                    count: 2
                },
                Issue {
                    suggestion: "Index tests".into(),
                    count: 1
                },
            ]
        );
        let none = summarize(&[], 2, base);
        assert_eq!(none.average_scores, None);
        assert_eq!(none.recommended_focus, None);
        assert!(none.top_issues.is_empty());
    }
}
