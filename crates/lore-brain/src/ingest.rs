//! From a document to wiki pages with an LLM: the text is split into parts that fit a
//! prompt, each part is sent with the page schema, and every answer is validated (and
//! retried with the error) before anything is written. One part whose answer stays
//! invalid fails the whole ingestion.

use crate::BrainError;
use crate::wiki::{PAGE_TYPES, RawPage, page_type};
use lore_llm::{LlmClient, ask_json};
use serde::Deserialize;

/// Characters of source text per LLM call (≈ 3,000 tokens).
pub const PART_CHARS: usize = 12_000;

/// Invalid answers retried per part before giving up.
pub const MAX_RETRIES: u32 = 2;

/// Most parts one document may be split into.
pub const MAX_PARTS: usize = 40;

/// What the LLM must answer.
#[derive(Debug, Deserialize)]
pub struct PagesAnswer {
    pub pages: Vec<RawPage>,
}

fn system_prompt() -> String {
    format!(
        "You maintain a wiki that AI agents and people read. From the document part you are \
given, write the wiki pages worth keeping: durable facts, concepts, decisions, how-tos, tools \
and projects, in your own words, each page self-contained markdown (no front matter). Merge \
what belongs together into one page; skip boilerplate, navigation and anything trivial. \
Answer with only a JSON object, no other text:\n\
{{\"pages\": [{{\"title\": \"short page title\", \"type\": \"one of: {}\", \"content\": \"markdown\"}}]}}\n\
Answer {{\"pages\": []}} when the part holds nothing worth keeping.",
        PAGE_TYPES.join(", ")
    )
}

fn user_prompt(source: &str, part: usize, parts: usize, text: &str) -> String {
    format!("Source: {source}\nPart {part} of {parts}:\n<<<\n{text}\n>>>")
}

/// An answer's pages are usable: each has a title, a known type and content.
fn validate(answer: &PagesAnswer) -> Result<(), String> {
    for (i, p) in answer.pages.iter().enumerate() {
        if p.title.trim().is_empty() {
            return Err(format!("pages[{i}].title is empty"));
        }
        if p.title.chars().count() > 200 {
            return Err(format!("pages[{i}].title is longer than 200 characters"));
        }
        page_type(&p.kind).map_err(|e| format!("pages[{i}].type: {e}"))?;
        if p.content.trim().is_empty() {
            return Err(format!("pages[{i}].content is empty"));
        }
    }
    Ok(())
}

/// Splits text into parts of at most `max` characters, at headings and blank lines when it
/// can, else at line ends, else at spaces, else anywhere (on a character boundary).
pub fn split_text(text: &str, max: usize) -> Vec<String> {
    let max = max.max(16);
    let mut parts: Vec<String> = Vec::new();
    let mut current = String::new();
    let len = |s: &str| s.chars().count();
    let flush = |current: &mut String, parts: &mut Vec<String>| {
        if !current.trim().is_empty() {
            parts.push(current.trim().to_string());
        }
        current.clear();
    };
    for block in blocks(text) {
        let starts_section = block.trim_start().starts_with('#');
        // A heading opens a new part once the current one is half full.
        if starts_section && len(&current) > max / 2 {
            flush(&mut current, &mut parts);
        }
        if len(&current) + len(&block) + 2 <= max {
            if !current.is_empty() {
                current.push_str("\n\n");
            }
            current.push_str(&block);
            continue;
        }
        flush(&mut current, &mut parts);
        if len(&block) <= max {
            current.push_str(&block);
        } else {
            for piece in hard_split(&block, max) {
                parts.push(piece);
            }
        }
    }
    flush(&mut current, &mut parts);
    parts
}

/// Paragraphs: runs of lines between blank lines.
fn blocks(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current: Vec<&str> = Vec::new();
    for line in text.lines() {
        if line.trim().is_empty() {
            if !current.is_empty() {
                out.push(current.join("\n"));
                current.clear();
            }
        } else {
            current.push(line);
        }
    }
    if !current.is_empty() {
        out.push(current.join("\n"));
    }
    out
}

/// One long block in pieces of at most `max` characters.
fn hard_split(block: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = block.trim();
    while !rest.is_empty() {
        if rest.chars().count() <= max {
            out.push(rest.to_string());
            break;
        }
        let limit = rest
            .char_indices()
            .nth(max)
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        let window = &rest[..limit];
        let cut = window
            .rfind('\n')
            .or_else(|| window.rfind(' '))
            .filter(|&i| i > limit / 4)
            .unwrap_or(limit);
        out.push(rest[..cut].trim().to_string());
        rest = rest[cut..].trim_start();
    }
    out.retain(|p| !p.is_empty());
    out
}

/// Asks the LLM for the pages of `text` from `source`, part by part; all parts must
/// answer validly, or nothing is returned.
pub fn pages_from_text(
    client: &LlmClient,
    source: &str,
    text: &str,
) -> Result<Vec<RawPage>, BrainError> {
    let parts = split_text(text, PART_CHARS);
    if parts.is_empty() {
        return Err(BrainError::Input(format!(
            "{source} holds no text to ingest"
        )));
    }
    if parts.len() > MAX_PARTS {
        return Err(BrainError::Input(format!(
            "{source} is too long to ingest at once ({} parts of {PART_CHARS} characters; at most {MAX_PARTS}); split it",
            parts.len()
        )));
    }
    let system = system_prompt();
    let mut pages = Vec::new();
    let n = parts.len();
    for (i, part) in parts.iter().enumerate() {
        let answer = ask_json::<PagesAnswer>(
            client,
            &system,
            &user_prompt(source, i + 1, n, part),
            MAX_RETRIES,
            validate,
        )
        .map_err(|error| {
            if error.is_fatal() {
                BrainError::LlmSetup(error)
            } else {
                BrainError::Llm {
                    part: i + 1,
                    parts: n,
                    source_name: source.to_string(),
                    error,
                }
            }
        })?;
        tracing::debug!(
            part = i + 1,
            attempts = answer.attempts,
            pages = answer.value.pages.len(),
            "LLM pages"
        );
        pages.extend(answer.value.pages);
    }
    if pages.is_empty() {
        return Err(BrainError::Input(format!(
            "the LLM found nothing worth a page in {source}; nothing was written"
        )));
    }
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use super::*;
    use lore_llm::fake_server::{FakeLlm, Reply};
    use lore_llm::{Backend, LlmClient};
    use std::time::Duration;

    fn client(fake: &FakeLlm) -> LlmClient {
        LlmClient::new(
            Backend::Endpoint {
                url: fake.url(),
                model: "fake".into(),
                api_key: None,
            },
            Duration::from_secs(10),
        )
    }

    #[test]
    fn splitting_respects_the_limit_and_keeps_every_word() {
        let mut text = String::new();
        for s in 0..30 {
            text.push_str(&format!("## Section {s}\n\n"));
            for p in 0..4 {
                text.push_str(&format!(
                    "Paragraph {s}.{p} says something {}.\n\n",
                    "long ".repeat(p * 20)
                ));
            }
        }
        text.push_str(&"unbroken".repeat(500));
        text.push_str("\n\nünïcödé ".repeat(300).as_str());
        for max in [100, 1000, 5000] {
            let parts = split_text(&text, max);
            assert!(parts.iter().all(|p| p.chars().count() <= max), "{max}");
            let joined: String = parts.join(" ");
            let words = |s: &str| {
                s.split_whitespace()
                    .map(String::from)
                    .collect::<Vec<_>>()
                    .join("")
            };
            assert_eq!(words(&joined), words(&text), "{max}");
        }
        assert_eq!(split_text("short", 100), ["short"]);
        assert!(split_text(" \n\n ", 100).is_empty());
    }

    #[test]
    fn valid_pages_come_back() {
        let fake = FakeLlm::start(|req, _| {
            assert!(req.last_content().contains("Source: notes.md"));
            Reply::Content(
                "```json\n{\"pages\": [{\"title\": \"Quokka\", \"type\": \"concept\", \"content\": \"A marsupial.\"}]}\n```".into(),
            )
        })
        .unwrap();
        let pages = pages_from_text(&client(&fake), "notes.md", "Quokkas are marsupials.").unwrap();
        assert_eq!(pages.len(), 1);
        assert_eq!(pages[0].title, "Quokka");
    }

    #[test]
    fn garbage_is_retried_then_reported() {
        let fake = FakeLlm::start(|_, n| match n {
            0 => Reply::Content("I think the pages are nice.".into()),
            1 => Reply::Content(
                "{\"pages\": [{\"title\": \"X\", \"type\": \"poem\", \"content\": \"c\"}]}".into(),
            ),
            _ => Reply::Content(
                "{\"pages\": [{\"title\": \"X\", \"type\": \"tool\", \"content\": \"c\"}]}".into(),
            ),
        })
        .unwrap();
        let pages = pages_from_text(&client(&fake), "s", "text").unwrap();
        assert_eq!(pages[0].kind, "tool");
        let requests = fake.requests();
        assert_eq!(requests.len(), 3);
        // The retry carries the error.
        assert!(
            requests[2].last_content().contains("unknown page type"),
            "{:?}",
            requests[2].contents()
        );

        let always_bad = FakeLlm::start(|_, _| Reply::Content("not json at all".into())).unwrap();
        let e = pages_from_text(&client(&always_bad), "doc.md", "text").unwrap_err();
        let msg = e.to_string();
        assert!(!e.is_input(), "{msg}");
        assert!(
            msg.contains("part 1 of 1 of doc.md") && msg.contains("nothing was written"),
            "{msg}"
        );
        assert!(msg.contains("not valid JSON"), "{msg}");
        assert_eq!(always_bad.requests().len(), MAX_RETRIES as usize + 1);
    }

    #[test]
    fn a_later_part_failing_fails_all() {
        let fake = FakeLlm::start(|req, _| {
            if req.last_content().contains("Part 1 of") {
                Reply::Content(
                    "{\"pages\": [{\"title\": \"A\", \"type\": \"tool\", \"content\": \"c\"}]}"
                        .into(),
                )
            } else {
                Reply::Content("{\"pages\": \"nope\"}".into())
            }
        })
        .unwrap();
        let text = format!(
            "{}\n\n{}",
            "a ".repeat(PART_CHARS / 2 + 10),
            "b ".repeat(PART_CHARS / 2 + 10)
        );
        let e = pages_from_text(&client(&fake), "s", &text).unwrap_err();
        assert!(e.to_string().contains("part 2 of "), "{e}");
    }

    #[test]
    fn fatal_llm_errors_say_so() {
        let fake = FakeLlm::start(|_, _| {
            Reply::Status(401, "{\"error\": {\"message\": \"bad key\"}}".into())
        })
        .unwrap();
        let e = pages_from_text(&client(&fake), "s", "text").unwrap_err();
        assert!(matches!(e, BrainError::LlmSetup(_)), "{e}");
        assert!(e.to_string().contains("401"), "{e}");
        let empty = FakeLlm::start(|_, _| Reply::Content("{\"pages\": []}".into())).unwrap();
        let e = pages_from_text(&client(&empty), "s", "text").unwrap_err();
        assert!(e.to_string().contains("nothing worth a page"), "{e}");
    }
}
