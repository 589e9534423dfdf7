//! The two prompts: asking for queries about sampled content, and asking the judge to grade
//! one result list.

use super::answer::{GENERATED_QUERIES_SCHEMA, GeneratedQuery, JUDGE_ANSWER_SCHEMA};
use super::record::ResultView;
use lore_engine::{Detail, Mode};
use serde::Serialize;

pub(super) const GENERATE_SYSTEM: &str = "You write search queries for evaluating lore, a search engine \
over code and documents used by AI coding agents and developers. You answer with one JSON \
object and nothing else.";

/// The prompt asking for `n` queries about the sampled content.
pub fn generation_prompt(samples: &[lore_engine::sample::StoreSample], n: usize) -> String {
    let mut p = format!(
        "Write {n} search queries that a developer or an AI coding agent would plausibly type \
to find something in the content sampled below.\n\n\
Make them diverse:\n\
- from specific (an identifier, a function, type or file name, an error message) to \
conceptual (how something works, where a behaviour lives, why);\n\
- from short keyword queries (two or three words) to full natural-language questions;\n\
- a few deliberately ambiguous or underspecified;\n\
- over the different types of content the sample holds: most about source code (functions, \
classes, methods), some about documentation sections, a few about configuration or tests;\n\
- spread over the files and topics of the sample, and answerable from this content: do not \
invent features it does not have.\n\n\
For each query give \"query\" (the text as typed), \"intent\" (what the searcher is after: \
find-definition, find-implementation, find-usage, find-pattern or find-documentation when \
one fits, else a short phrase) and optionally \"expectedContentTypes\" (the kinds of content \
a good answer holds, e.g. function, class, markdown section, config, test).\n\n\
Answer with one JSON object matching this JSON Schema:\n{GENERATED_QUERIES_SCHEMA}\n\
Content sample:\n"
    );
    for s in samples {
        p.push_str(&format!(
            "\n## Store `{}`{} ({} files, {} units)\n",
            s.store,
            s.description
                .as_deref()
                .map(|d| format!(": {d}"))
                .unwrap_or_default(),
            s.files,
            s.chunks
        ));
        p.push_str("Files (a sample):\n");
        for path in &s.paths {
            p.push_str(&format!("  {path}\n"));
        }
        p.push_str("Units (a sample):\n");
        for u in &s.units {
            let unit = &u.unit;
            p.push_str(&format!(
                "- {}:{}-{} {} ({})",
                unit.path, unit.start_line, unit.end_line, unit.kind, unit.language
            ));
            if let Some(sym) = &unit.symbol {
                p.push_str(&format!(" `{sym}`"));
            }
            if !unit.headings.is_empty() {
                p.push_str(&format!(" under \"{}\"", unit.headings.join(" > ")));
            }
            p.push('\n');
            for l in u.preview.lines() {
                p.push_str(&format!("    | {l}\n"));
            }
        }
    }
    p
}

pub(super) const JUDGE_SYSTEM: &str = "You are a strict and consistent evaluator of search results for \
lore, a search engine over code and documents used by AI coding agents and developers. You \
judge only from what is shown. You answer with one JSON object and nothing else.";

/// One result as the judge sees it: what the agent received, and the start of the unit
/// when that does not hold it.
#[derive(Serialize)]
struct PromptResult<'a> {
    rank: u32,
    source: &'a str,
    /// The agent's JSON of this result, or its start as a string when cut.
    agent: serde_json::Value,
    #[serde(skip_serializing_if = "Option::is_none")]
    code: Option<&'a str>,
}

/// Most characters of one result's agent view shown to the judge (a full-detail result
/// with its callers and tests can be long; ten of these keep the prompt bounded).
pub const AGENT_VIEW_CHARS: usize = 4_000;

/// A search result as the agent receives it: its JSON in the search response (as MCP,
/// REST and `--json` return it), cut to [`AGENT_VIEW_CHARS`] with a marker.
pub fn agent_view(hit: &lore_engine::SearchHit) -> String {
    let json = serde_json::to_string(hit).unwrap_or_default();
    super::answer::cut_text(&json, AGENT_VIEW_CHARS).unwrap_or(json)
}

/// How much of a result's unit the judge sees: enough to tell what it is and does, while
/// ten results keep the prompt to a few thousand tokens.
pub const CODE_MAX_LINES: usize = 40;
pub const CODE_MAX_CHARS: usize = 2_000;

/// The start of a unit's text for the judge: at most [`CODE_MAX_LINES`] lines and
/// [`CODE_MAX_CHARS`] characters; when cut, a last line says how many lines are left out.
/// `left_out` counts lines of the unit already missing from `text` (a unit longer than the
/// engine returns whole).
pub fn bounded_code(text: &str, left_out: usize) -> String {
    let text = text.trim_end();
    let lines: Vec<&str> = text.lines().collect();
    let mut out = String::new();
    let mut chars = 0;
    let mut shown = 0;
    let mut mid_line = false;
    for line in lines.iter().take(CODE_MAX_LINES) {
        let n = line.chars().count() + 1;
        if chars + n > CODE_MAX_CHARS {
            if shown == 0 {
                // One very long line (minified code): its start.
                out.extend(line.chars().take(CODE_MAX_CHARS));
                out.push('\n');
                mid_line = true;
            }
            break;
        }
        out.push_str(line);
        out.push('\n');
        chars += n;
        shown += 1;
    }
    let more = lines.len() - shown - usize::from(mid_line) + left_out;
    let more_lines = match more {
        1 => "1 more line".to_string(),
        n => format!("{n} more lines"),
    };
    match (mid_line, more) {
        (false, 0) => {
            out.pop();
        }
        (false, _) => out.push_str(&format!("… (cut: {more_lines})")),
        (true, 0) => out.push_str("… (cut mid-line)"),
        (true, _) => out.push_str(&format!("… (cut mid-line, then {more_lines})")),
    }
    out
}

/// The prompt asking the judge to grade one result list.
pub fn judge_prompt(
    q: &GeneratedQuery,
    mode: Mode,
    detail: Detail,
    limit: usize,
    results: &[ResultView],
) -> String {
    let mut p = format!(
        "Evaluate how well these search results answer the query.\n\n\
Query: {}\nIntent: {}\n",
        serde_json::Value::from(q.query.as_str()),
        if q.intent.is_empty() {
            "(not given)"
        } else {
            &q.intent
        },
    );
    if !q.expected_content_types.is_empty() {
        p.push_str(&format!(
            "Expected content: {}\n",
            q.expected_content_types.join(", ")
        ));
    }
    p.push_str(&format!(
        "Search: mode {}, detail {}, limit {limit}, {} results\n\n",
        mode.as_str(),
        detail.as_str(),
        results.len()
    ));
    if results.is_empty() {
        p.push_str("Results: none.\n\n");
    } else {
        p.push_str(&format!(
            "Results, best first, one JSON object per line. \"agent\" is the result exactly as \
the agent received it at detail {} (its JSON in the search response; cut after \
{AGENT_VIEW_CHARS} characters, marked, when longer): judge snippetQuality by it alone. \
\"code\", when present, is the start of the result's unit, which the agent sees only by \
opening the result: use it to judge relevance.\n",
            detail.as_str()
        ));
        for r in results {
            let agent = serde_json::from_str(&r.agent_view)
                .unwrap_or_else(|_| serde_json::Value::from(r.agent_view.as_str()));
            let line = PromptResult {
                rank: r.rank,
                source: &r.source,
                agent,
                code: r.code.as_deref(),
            };
            p.push_str(&serde_json::to_string(&line).unwrap_or_default());
            p.push('\n');
        }
        p.push('\n');
    }
    p.push_str(
        "Score each dimension from 0 (worst) to 1 (best):\n\
- relevance: how many results, and how strongly, match the query and its intent, judged by their code;\n\
- ranking: whether the most useful results come first;\n\
- coverage: whether the results together hold what the searcher needs, nothing important missing;\n\
- snippetQuality: whether what the agent received (\"agent\", not \"code\") shows what each result is and why it matches, without opening the file;\n\
- overall: your overall judgement of this result list for this query.\n\
Explain each score in one or two sentences in \"analysis\". In \"suggestions\", give concrete, \
short changes to the search engine that would improve these results (ranking, chunking, \
snippets, query understanding), or an empty list. In \"resultAssessments\", assess every \
result exactly once: its rank, its source, whether it is relevant, and an optional short note.\n\n\
Answer with one JSON object matching this JSON Schema:\n",
    );
    p.push_str(JUDGE_ANSWER_SCHEMA);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    fn numbered(n: usize) -> String {
        (1..=n).map(|i| format!("line {i}\n")).collect()
    }

    #[test]
    fn code_is_bounded_by_lines_and_characters_with_a_marker_when_cut() {
        // Short: whole, no marker, no trailing newline.
        assert_eq!(bounded_code("fn a() {}\n", 0), "fn a() {}");
        assert_eq!(bounded_code("", 0), "");
        // Exactly the line budget: whole.
        let forty = bounded_code(&numbered(CODE_MAX_LINES), 0);
        assert!(forty.ends_with("line 40"), "{forty}");
        // Longer: the first 40 lines, then how many are left out (with those the engine
        // already left out of a very long unit).
        let long = bounded_code(&numbered(100), 0);
        assert!(long.contains("line 40\n… (cut: 60 more lines)"), "{long}");
        assert!(!long.contains("line 41"));
        assert!(bounded_code(&numbered(3), 7).ends_with("line 3\n… (cut: 7 more lines)"));
        // Long lines: whole lines up to the character budget.
        let wide: String = (0..30).map(|i| format!("{i:>99}\n")).collect();
        let cut = bounded_code(&wide, 0);
        assert_eq!(
            cut.lines().count(),
            21,
            "20 lines of 100 characters and the marker"
        );
        assert!(cut.ends_with("… (cut: 10 more lines)"), "{cut}");
        // One line longer than the budget (minified): its start, on a character boundary.
        let minified = "é".repeat(5_000);
        let cut = bounded_code(&minified, 0);
        assert!(cut.starts_with(&"é".repeat(CODE_MAX_CHARS)));
        assert!(cut.ends_with("é\n… (cut mid-line)"));
        assert!(cut.chars().count() < CODE_MAX_CHARS + 20);
        let then = bounded_code(&format!("{minified}\nnext\n"), 0);
        assert!(then.ends_with("é\n… (cut mid-line, then 1 more line)"));
    }
}
