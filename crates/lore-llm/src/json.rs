//! JSON out of free-form answers, and asking for JSON of a type with validated retries.

use crate::error::one_line_prefix;
use crate::{LlmClient, LlmError, Message};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Duration;

/// Longest earlier answer repeated back to the model on a retry.
const MAX_ECHOED_ANSWER: usize = 8000;

/// The JSON value in an answer: the whole answer, else a fenced block (```json … ```),
/// else the longest JSON object or array embedded in prose.
pub fn extract_json(answer: &str) -> Result<Value, LlmError> {
    let text = answer.trim().trim_start_matches('\u{feff}');
    let first_err = match serde_json::from_str::<Value>(text) {
        Ok(v) => return Ok(v),
        Err(e) => e,
    };
    for block in fenced_blocks(text) {
        if let Ok(v) = serde_json::from_str::<Value>(block.trim()) {
            return Ok(v);
        }
    }
    // The longest parseable object or array starting at a bracket.
    let mut best: Option<(usize, Value)> = None;
    for (i, _) in text.char_indices().filter(|(_, c)| *c == '{' || *c == '[') {
        if best.as_ref().is_some_and(|(len, _)| i + len > text.len()) {
            break;
        }
        let mut stream = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
        if let Some(Ok(v)) = stream.next() {
            let len = stream.byte_offset();
            if best.as_ref().is_none_or(|(l, _)| len > *l) {
                best = Some((len, v));
            }
        }
    }
    match best {
        Some((_, v)) => Ok(v),
        None => Err(LlmError::InvalidAnswer(if text.is_empty() {
            "the answer is empty; it must be a JSON object".to_string()
        } else {
            format!(
                "the answer is not valid JSON ({first_err}); it began: {}",
                one_line_prefix(text, 120)
            )
        })),
    }
}

/// The contents of ``` fences, in order (the info string after the opening fence is
/// skipped).
fn fenced_blocks(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("```") {
        let after = &rest[open + 3..];
        let body_start = after.find('\n').map_or(after.len(), |n| n + 1);
        let body = &after[body_start..];
        match body.find("```") {
            Some(close) => {
                out.push(&body[..close]);
                rest = &body[close + 3..];
            }
            None => {
                out.push(body);
                break;
            }
        }
    }
    out
}

/// A validated answer and how many calls it took.
#[derive(Debug, Clone)]
pub struct JsonAnswer<T> {
    pub value: T,
    /// Calls made, 1 when the first answer was valid.
    pub attempts: u32,
    /// The text of the accepted answer.
    pub raw: String,
}

fn parse<T: DeserializeOwned>(
    answer: &str,
    validate: &impl Fn(&T) -> Result<(), String>,
) -> Result<T, String> {
    let v = extract_json(answer).map_err(|e| e.to_string())?;
    let value: T = serde_path_to_error::deserialize(v).map_err(|e| {
        let path = e.path().to_string();
        if path == "." {
            format!("the JSON does not match the schema: {}", e.inner())
        } else {
            format!(
                "the JSON does not match the schema at {path}: {}",
                e.inner()
            )
        }
    })?;
    validate(&value)?;
    Ok(value)
}

/// Asks for a JSON value of type `T`: extracts JSON from the answer, deserializes it and
/// runs `validate`. An invalid answer is retried with the answer and the error appended
/// to the conversation; a timeout, a broken connection or a busy server is retried with
/// the same conversation; both up to `max_retries` times. A fatal error (see
/// [`LlmError::is_fatal`]) returns at once; running out of retries returns
/// [`LlmError::Exhausted`] with the last error.
pub fn ask_json<T: DeserializeOwned>(
    client: &LlmClient,
    system: &str,
    user: &str,
    max_retries: u32,
    validate: impl Fn(&T) -> Result<(), String>,
) -> Result<JsonAnswer<T>, LlmError> {
    let mut messages = vec![Message::system(system), Message::user(user)];
    let attempts = max_retries.saturating_add(1);
    let mut last = None;
    for attempt in 1..=attempts {
        let answer = match client.chat(&messages) {
            Ok(a) => a,
            Err(e) if e.is_transient() => {
                tracing::debug!(attempt, error = %e, "LLM call failed; retrying");
                if attempt < attempts && matches!(e, LlmError::Status { .. }) {
                    // A busy server: give it a moment.
                    std::thread::sleep(Duration::from_millis(500 * u64::from(attempt)));
                }
                last = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        match parse::<T>(&answer, &validate) {
            Ok(value) => {
                return Ok(JsonAnswer {
                    value,
                    attempts: attempt,
                    raw: answer,
                });
            }
            Err(problem) => {
                tracing::debug!(attempt, %problem, "invalid LLM answer; retrying");
                let echoed: String = answer.chars().take(MAX_ECHOED_ANSWER).collect();
                messages.push(Message::assistant(echoed));
                messages.push(Message::user(format!(
                    "That answer is not valid: {problem}\n\
                     Reply again with only the corrected JSON object that matches the schema, \
                     and no other text."
                )));
                last = Some(LlmError::InvalidAnswer(problem));
            }
        }
    }
    Err(LlmError::Exhausted {
        attempts,
        last: Box::new(last.unwrap_or_else(|| LlmError::InvalidAnswer("no answer".into()))),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn whole_fenced_and_embedded() {
        assert_eq!(extract_json(" {\"a\": 1} ").unwrap(), json!({"a": 1}));
        let fenced = "Here you go:\n```json\n{\"a\": [1, 2]}\n```\nHope it helps.";
        assert_eq!(extract_json(fenced).unwrap(), json!({"a": [1, 2]}));
        let bare_fence = "```\n{\"b\": true}\n```";
        assert_eq!(extract_json(bare_fence).unwrap(), json!({"b": true}));
        let prose = "Sure! The scores are {\"x\": {\"y\": \"}\"}} as requested.";
        assert_eq!(extract_json(prose).unwrap(), json!({"x": {"y": "}"}}));
        // The longest value wins over a small example mentioned before it.
        let two = "For example {\"k\": 1}. Answer: {\"k\": 2, \"more\": [1, 2, 3]}";
        assert_eq!(
            extract_json(two).unwrap(),
            json!({"k": 2, "more": [1, 2, 3]})
        );
        // An unclosed fence still yields its JSON.
        assert_eq!(
            extract_json("```json\n{\"c\": 3}\n").unwrap(),
            json!({"c": 3})
        );
    }

    #[test]
    fn no_json_is_an_invalid_answer() {
        for bad in [
            "",
            "I cannot help with that.",
            "{\"a\": ",
            "```json\n{oops}\n```",
        ] {
            let e = extract_json(bad).unwrap_err();
            assert!(matches!(e, LlmError::InvalidAnswer(_)), "{bad:?}: {e}");
        }
        let e = extract_json("nope { broken").unwrap_err().to_string();
        assert!(e.contains("not valid JSON") && e.contains("nope"), "{e}");
    }

    #[derive(serde::Deserialize, Debug)]
    struct Pair {
        #[allow(dead_code)]
        a: u32,
        b: Vec<f64>,
    }

    #[test]
    fn parse_reports_the_path_and_runs_validation() {
        let ok = |p: &Pair| {
            if p.b.iter().all(|x| (0.0..=1.0).contains(x)) {
                Ok(())
            } else {
                Err("b must be within [0, 1]".to_string())
            }
        };
        assert!(parse::<Pair>("{\"a\": 1, \"b\": [0.5]}", &ok).is_ok());
        let e = parse::<Pair>("{\"a\": 1, \"b\": [0.5, \"x\"]}", &ok).unwrap_err();
        assert!(e.contains("b[1]"), "{e}");
        let e = parse::<Pair>("{\"b\": []}", &ok).unwrap_err();
        assert!(e.contains("missing field `a`"), "{e}");
        let e = parse::<Pair>("{\"a\": 1, \"b\": [2]}", &ok).unwrap_err();
        assert_eq!(e, "b must be within [0, 1]");
    }
}
