//! What the LLM answers: the judge's grades of one result list ([`JudgeAnswer`]) and the
//! generated queries ([`GeneratedQueries`]), their JSON Schemas (derived with `schemars`,
//! committed under `schemas/`) and the checks serde cannot make.

use crate::metrics::round4;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use std::collections::HashSet;

/// The JSON Schema of the judge's answer, as committed (see [`judge_answer_schema`]).
pub const JUDGE_ANSWER_SCHEMA: &str = include_str!("../../schemas/judge-answer.schema.json");
/// The JSON Schema of generated queries, as committed (see [`generated_queries_schema`]).
pub const GENERATED_QUERIES_SCHEMA: &str =
    include_str!("../../schemas/generated-queries.schema.json");

/// The scored dimensions, in the order of [`Scores::values`].
pub const DIMENSIONS: [&str; 5] = [
    "relevance",
    "ranking",
    "coverage",
    "snippetQuality",
    "overall",
];

/// Scores of one query's result list, each from 0 (worst) to 1 (best), as recorded and
/// averaged: `overall` is always there (the judge's, else computed, see
/// [`JudgeScores::resolved`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Scores {
    pub relevance: f64,
    pub ranking: f64,
    pub coverage: f64,
    pub snippet_quality: f64,
    pub overall: f64,
}

impl Scores {
    /// The scores in the order of [`DIMENSIONS`].
    pub fn values(&self) -> [f64; 5] {
        [
            self.relevance,
            self.ranking,
            self.coverage,
            self.snippet_quality,
            self.overall,
        ]
    }

    pub fn from_values(v: [f64; 5]) -> Scores {
        Scores {
            relevance: v[0],
            ranking: v[1],
            coverage: v[2],
            snippet_quality: v[3],
            overall: v[4],
        }
    }
}

// `overall` is optional: the seed's evaluation schema does not require it in `analysis`,
// and an answer that omits it is still worth its four scores.
/// Scores of one query's result list, each from 0 (worst) to 1 (best).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgeScores {
    /// How many results, and how strongly, match the query and its intent.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub relevance: f64,
    /// Whether the most useful results come first.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub ranking: f64,
    /// Whether the results together hold what the searcher needs.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub coverage: f64,
    /// Whether each preview shows why its result matches, without opening the file.
    #[schemars(range(min = 0.0, max = 1.0))]
    pub snippet_quality: f64,
    /// The overall judgement of this result list (if left out: the mean of the other four).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 1.0))]
    pub overall: Option<f64>,
}

impl JudgeScores {
    /// The four scores the judge must give, in the order of [`DIMENSIONS`].
    fn four(&self) -> [f64; 4] {
        [
            self.relevance,
            self.ranking,
            self.coverage,
            self.snippet_quality,
        ]
    }

    /// Whether `overall` was left out, so [`resolved`](Self::resolved) computes it.
    pub fn overall_computed(&self) -> bool {
        self.overall.is_none()
    }

    /// The scores as recorded: `overall` is the judge's own, or when left out the mean of
    /// relevance, ranking, coverage and snippetQuality, rounded to 4 decimals.
    pub fn resolved(&self) -> Scores {
        let [relevance, ranking, coverage, snippet_quality] = self.four();
        let overall = self
            .overall
            .unwrap_or_else(|| round4(self.four().iter().sum::<f64>() / 4.0));
        Scores {
            relevance,
            ranking,
            coverage,
            snippet_quality,
            overall,
        }
    }
}

/// One or two sentences per dimension explaining its score.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub relevance: String,
    pub ranking: String,
    pub coverage: String,
    pub snippet_quality: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overall: Option<String>,
}

/// The judge's verdict on one result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResultAssessment {
    /// The result's rank as shown (1 = first).
    #[schemars(range(min = 1))]
    pub rank: u32,
    /// The result's source as shown (store:path:lines).
    pub source: String,
    /// Whether the result is relevant to the query and its intent.
    pub relevant: bool,
    /// Why, briefly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub note: Option<String>,
}

/// The judge's answer for one query: scores, analysis, suggestions, a verdict per result.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct JudgeAnswer {
    pub scores: JudgeScores,
    pub analysis: Analysis,
    /// Short, concrete changes to the search engine that would improve these results.
    pub suggestions: Vec<String>,
    /// One entry per result shown, by rank.
    pub result_assessments: Vec<ResultAssessment>,
}

/// A set of evaluation queries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedQueries {
    pub queries: Vec<GeneratedQuery>,
}

/// One evaluation query.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeneratedQuery {
    /// The text as a developer or an agent would type it.
    #[schemars(length(min = 1))]
    pub query: String,
    /// What the searcher is after: a lore intent (find-definition, …) or a short phrase.
    #[serde(default, alias = "queryIntent")]
    pub intent: String,
    /// Kinds of content a good answer holds: function, class, markdown section, test, …
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub expected_content_types: Vec<String>,
}

fn schema_text<T: JsonSchema>() -> String {
    let schema = schemars::generate::SchemaSettings::draft2020_12()
        .with(|s| s.inline_subschemas = true)
        .into_generator()
        .into_root_schema_for::<T>();
    let mut text = serde_json::to_string_pretty(&schema).unwrap_or_default();
    text.push('\n');
    text
}

/// The JSON Schema derived from [`JudgeAnswer`] (what `schemas/judge-answer.schema.json`
/// must hold).
pub fn judge_answer_schema() -> String {
    schema_text::<JudgeAnswer>()
}

/// The JSON Schema derived from [`GeneratedQueries`].
pub fn generated_queries_schema() -> String {
    schema_text::<GeneratedQueries>()
}

/// Checks what serde cannot: scores in [0, 1], and at most one assessment per result rank,
/// each of a rank shown.
pub fn validate_answer(a: &JudgeAnswer, result_count: usize) -> Result<(), String> {
    let s = &a.scores;
    let given = s.four().into_iter().map(Some).chain([s.overall]);
    for (name, v) in DIMENSIONS.iter().zip(given) {
        let Some(v) = v else { continue };
        if !(0.0..=1.0).contains(&v) {
            return Err(format!(
                "scores.{name} is {v}; every score must be within [0, 1]"
            ));
        }
    }
    let mut seen = HashSet::new();
    for ra in &a.result_assessments {
        if ra.rank == 0 || ra.rank as usize > result_count {
            return Err(if result_count == 0 {
                "there are no results, so resultAssessments must be empty".to_string()
            } else {
                format!(
                    "resultAssessments: rank {} is not among the results (ranks 1 to {result_count})",
                    ra.rank
                )
            });
        }
        if !seen.insert(ra.rank) {
            return Err(format!(
                "resultAssessments: rank {} is assessed twice",
                ra.rank
            ));
        }
    }
    // Assessing some results only is allowed (the design's schema does not require all):
    // the line lists the ranks left unassessed.
    Ok(())
}

/// Longest text kept of one field of an answer (a suggestion, an analysis, a note); the
/// rest is cut, so one runaway answer cannot fill the run file.
pub const MAX_FIELD_CHARS: usize = 2000;
/// Most suggestions kept of one answer.
pub const MAX_SUGGESTIONS: usize = 20;

/// `text` cut to its first `max` characters and marked `… [cut N characters]`, when longer.
pub(super) fn cut_text(text: &str, max: usize) -> Option<String> {
    let n = text.chars().count();
    (n > max).then(|| {
        let keep: String = text.chars().take(max).collect();
        format!("{keep}… [cut {} characters]", n - max)
    })
}

/// Cuts every text field of `a` to `MAX_FIELD_CHARS` (ending `… [cut N characters]`) and
/// its suggestions to `MAX_SUGGESTIONS`; returns the fields it cut (`suggestions[2]`,
/// `analysis.coverage`, `suggestions` for the list itself).
pub fn cap_answer(a: &mut JudgeAnswer) -> Vec<String> {
    let mut cut = Vec::new();
    let mut cap = |name: String, text: &mut String| {
        if let Some(shorter) = cut_text(text, MAX_FIELD_CHARS) {
            *text = shorter;
            cut.push(name);
        }
    };
    let an = &mut a.analysis;
    cap("analysis.relevance".into(), &mut an.relevance);
    cap("analysis.ranking".into(), &mut an.ranking);
    cap("analysis.coverage".into(), &mut an.coverage);
    cap("analysis.snippetQuality".into(), &mut an.snippet_quality);
    if let Some(o) = an.overall.as_mut() {
        cap("analysis.overall".into(), o);
    }
    for (i, sug) in a.suggestions.iter_mut().enumerate().take(MAX_SUGGESTIONS) {
        cap(format!("suggestions[{i}]"), sug);
    }
    for ra in &mut a.result_assessments {
        let rank = ra.rank;
        cap(
            format!("resultAssessments[rank {rank}].source"),
            &mut ra.source,
        );
        if let Some(note) = ra.note.as_mut() {
            cap(format!("resultAssessments[rank {rank}].note"), note);
        }
    }
    if a.suggestions.len() > MAX_SUGGESTIONS {
        a.suggestions.truncate(MAX_SUGGESTIONS);
        cut.push("suggestions".into());
    }
    cut
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;

    pub(in crate::judge) fn answer(
        scores: [f64; 5],
        suggestions: &[&str],
        ranks: &[u32],
    ) -> JudgeAnswer {
        let s = Scores::from_values(scores);
        JudgeAnswer {
            scores: JudgeScores {
                relevance: s.relevance,
                ranking: s.ranking,
                coverage: s.coverage,
                snippet_quality: s.snippet_quality,
                overall: Some(s.overall),
            },
            analysis: Analysis {
                relevance: "r".into(),
                ranking: "k".into(),
                coverage: "c".into(),
                snippet_quality: "s".into(),
                overall: Some("o".into()),
            },
            suggestions: suggestions.iter().map(|s| s.to_string()).collect(),
            result_assessments: ranks
                .iter()
                .map(|&rank| ResultAssessment {
                    rank,
                    source: format!("s:{rank}"),
                    relevant: true,
                    note: None,
                })
                .collect(),
        }
    }

    #[test]
    fn validation_of_answers() {
        assert!(validate_answer(&answer([0.5; 5], &[], &[1, 2]), 2).is_ok());
        assert!(validate_answer(&answer([0.0, 1.0, 0.5, 0.5, 0.5], &[], &[2, 1]), 2).is_ok());
        let e = validate_answer(&answer([0.5, 1.2, 0.5, 0.5, 0.5], &[], &[1]), 1).unwrap_err();
        assert_eq!(
            e,
            "scores.ranking is 1.2; every score must be within [0, 1]"
        );
        let e = validate_answer(&answer([0.5; 5], &[], &[1, 3]), 2).unwrap_err();
        assert!(
            e.contains("rank 3 is not among the results (ranks 1 to 2)"),
            "{e}"
        );
        let e = validate_answer(&answer([0.5; 5], &[], &[1, 1]), 2).unwrap_err();
        assert!(e.contains("assessed twice"), "{e}");
        // Some results assessed, not all: accepted (the line lists the others).
        assert!(validate_answer(&answer([0.5; 5], &[], &[2]), 3).is_ok());
        let e = validate_answer(&answer([0.5; 5], &[], &[1]), 0).unwrap_err();
        assert!(e.contains("must be empty"), "{e}");
        assert!(validate_answer(&answer([0.5; 5], &[], &[]), 0).is_ok());
        let mut nan = answer([0.5; 5], &[], &[]);
        nan.scores.overall = Some(f64::NAN);
        assert!(validate_answer(&nan, 0).is_err());
        // Without overall the four are checked all the same.
        let mut no_overall = answer([0.5, 0.5, -0.1, 0.5, 0.5], &[], &[]);
        no_overall.scores.overall = None;
        let e = validate_answer(&no_overall, 0).unwrap_err();
        assert!(e.starts_with("scores.coverage is -0.1"), "{e}");
        no_overall.scores.coverage = 0.5;
        assert!(validate_answer(&no_overall, 0).is_ok());
    }

    #[test]
    fn runaway_text_is_cut_and_named() {
        let mut a = answer([0.5; 5], &["short", &"x".repeat(9_000_000)], &[1]);
        a.suggestions.extend((0..30).map(|i| format!("more {i}")));
        a.analysis.coverage = "y".repeat(MAX_FIELD_CHARS + 5);
        let cut = cap_answer(&mut a);
        assert_eq!(cut, ["analysis.coverage", "suggestions[1]", "suggestions"]);
        assert_eq!(a.suggestions.len(), MAX_SUGGESTIONS);
        assert_eq!(a.suggestions[0], "short");
        assert!(a.suggestions[1].ends_with("… [cut 8998000 characters]"));
        assert!(a.analysis.coverage.ends_with("… [cut 5 characters]"));
        let mut fine = answer([0.5; 5], &["ok"], &[1]);
        assert!(cap_answer(&mut fine).is_empty());
    }

    #[test]
    fn the_seed_schema_without_overall_parses_and_overall_is_the_mean_of_the_four() {
        // The seed's answer: analysis without overall; here scores without it too.
        let seed = r#"{
            "scores": {"relevance": 0.9, "ranking": 0.6, "coverage": 0.5, "snippetQuality": 0.2},
            "analysis": {"relevance": "a", "ranking": "b", "coverage": "c", "snippetQuality": "d"},
            "suggestions": [],
            "resultAssessments": []
        }"#;
        let a: JudgeAnswer = serde_json::from_str(seed).unwrap();
        assert_eq!(a.analysis.overall, None);
        assert!(a.scores.overall_computed());
        assert_eq!(
            a.scores.resolved(),
            Scores::from_values([0.9, 0.6, 0.5, 0.2, 0.55])
        );
        // Thirds round to 4 decimals like every average.
        let mut thirds = a.scores;
        (
            thirds.relevance,
            thirds.ranking,
            thirds.coverage,
            thirds.snippet_quality,
        ) = (1.0, 0.0, 0.0, 1.0 / 3.0);
        assert_eq!(thirds.resolved().overall, 0.3333);
        // A given overall is kept as is, and the answer written back keeps its shape.
        let given = answer([0.9, 0.6, 0.5, 0.2, 0.8], &[], &[]);
        assert!(!given.scores.overall_computed());
        assert_eq!(given.scores.resolved().overall, 0.8);
        let back = serde_json::to_value(&a).unwrap();
        assert!(back["scores"].get("overall").is_none());
        assert!(back["analysis"].get("overall").is_none());
    }
}
