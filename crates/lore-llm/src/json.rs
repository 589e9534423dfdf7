//! JSON out of free-form answers, and asking for JSON of a type with validated retries.

use crate::error::one_line_prefix;
use crate::{LlmClient, LlmError, Message};
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::time::Duration;

/// The pause before the second attempt after a refused connection or a busy server; the
/// n-th retry waits n times as long.
pub const RETRY_PAUSE: Duration = Duration::from_millis(500);

/// Longest earlier answer repeated back to the model on a retry.
const MAX_ECHOED_ANSWER: usize = 8000;

/// The JSON values an answer holds, in the order written: the whole answer when it is one,
/// else each fenced block (```json … ```) that parses, else each complete object or array
/// embedded in prose (one inside another counts once, as the outer one). `truncated` is set
/// when the answer ends inside a value that never closes: the objects found within it are
/// its parts, not answers, and are left out.
#[derive(Debug, Default)]
pub struct JsonValues {
    pub values: Vec<Value>,
    pub truncated: bool,
}

pub fn json_values(answer: &str) -> JsonValues {
    let text = answer.trim().trim_start_matches('\u{feff}');
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return JsonValues {
            values: vec![v],
            truncated: false,
        };
    }
    let fenced: Vec<Value> = fenced_blocks(text)
        .into_iter()
        .filter_map(|b| serde_json::from_str::<Value>(b.trim()).ok())
        .collect();
    if !fenced.is_empty() {
        return JsonValues {
            values: fenced,
            truncated: false,
        };
    }
    let mut found = JsonValues::default();
    let mut at = 0;
    while let Some(off) = text[at..].find(['{', '[']) {
        let i = at + off;
        let mut stream = serde_json::Deserializer::from_str(&text[i..]).into_iter::<Value>();
        match stream.next() {
            Some(Ok(v)) => {
                found.values.push(v);
                at = i + stream.byte_offset();
            }
            Some(Err(e)) if e.is_eof() => {
                found.truncated = true;
                break;
            }
            _ => at = i + 1,
        }
    }
    found
}

/// The JSON value in an answer: the last of `json_values` (a model's final answer comes
/// after its drafts and examples).
pub fn extract_json(answer: &str) -> Result<Value, LlmError> {
    let found = json_values(answer);
    match found.values.into_iter().last() {
        Some(v) => Ok(v),
        None => Err(LlmError::InvalidAnswer(no_json(answer, found.truncated))),
    }
}

/// Why an answer gave no JSON value at all.
fn no_json(answer: &str, truncated: bool) -> String {
    let text = answer.trim();
    if text.is_empty() {
        "the answer is empty; it must be a JSON object".to_string()
    } else if truncated {
        format!(
            "the answer's JSON is truncated: it ends before its object closes (the answer is \
             {} characters long and ends: {})",
            text.chars().count(),
            one_line_suffix(text, 80)
        )
    } else {
        let e = serde_json::from_str::<Value>(text)
            .err()
            .map_or_else(String::new, |e| format!(" ({e})"));
        format!(
            "the answer is not valid JSON{e}; it began: {}",
            one_line_prefix(text, 120)
        )
    }
}

/// The last `max` characters of `s` on one line.
fn one_line_suffix(s: &str, max: usize) -> String {
    let n = s.chars().count();
    let tail: String = s.chars().skip(n.saturating_sub(max)).collect();
    let tail = tail.split_whitespace().collect::<Vec<_>>().join(" ");
    if n > max { format!("…{tail}") } else { tail }
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
    /// Which of the answer's JSON values was taken (1-based) and how many it held: the
    /// last that matched the schema.
    pub used: usize,
    pub found: usize,
}

/// The last of the answer's JSON values that matches `T` and passes `validate`, with its
/// place (1-based) and the number of values; else the problem with the last one.
fn parse<T: DeserializeOwned>(
    answer: &str,
    validate: &impl Fn(&T) -> Result<(), String>,
) -> Result<(T, usize, usize), String> {
    let found = json_values(answer);
    let n = found.values.len();
    let mut last_problem = None;
    for (i, v) in found.values.into_iter().enumerate().rev() {
        match check::<T>(v, validate) {
            Ok(value) => return Ok((value, i + 1, n)),
            Err(p) => {
                last_problem.get_or_insert(p);
            }
        }
    }
    match last_problem {
        None => Err(no_json(answer, found.truncated)),
        Some(p) if n == 1 => Err(p),
        Some(p) => Err(format!(
            "none of its {n} JSON values matches; the last: {p}"
        )),
    }
}

fn check<T: DeserializeOwned>(
    v: Value,
    validate: &impl Fn(&T) -> Result<(), String>,
) -> Result<T, String> {
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
                if attempt < attempts
                    && matches!(e, LlmError::Status { .. } | LlmError::Transport { .. })
                {
                    // A busy or restarting server: give it a moment, longer each time (a
                    // timeout has waited already).
                    std::thread::sleep(RETRY_PAUSE * attempt);
                }
                last = Some(e);
                continue;
            }
            Err(e) => return Err(e),
        };
        match parse::<T>(&answer, &validate) {
            Ok((value, used, found)) => {
                return Ok(JsonAnswer {
                    value,
                    attempts: attempt,
                    raw: answer,
                    used,
                    found,
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
        // The last value wins over an example mentioned before it, however long.
        let two = "For example {\"k\": 1, \"more\": [1, 2, 3]}. Answer: {\"k\": 2}";
        assert_eq!(extract_json(two).unwrap(), json!({"k": 2}));
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
        // A draft before the final object, and a schema repeated before the real one.
        let drafted = "<think>maybe {\"a\": 1, \"b\": [0.1]}</think>\n{\"a\": 2, \"b\": [0.9]}";
        let (p, used, found) = parse::<Pair>(drafted, &ok).unwrap();
        assert_eq!((p.b[0], used, found), (0.9, 2, 2));
        let schema_first =
            "Schema: {\"type\": \"object\"}\nAnswer: {\"a\": 2, \"b\": [1.0]}\nDone {}";
        let (p, used, found) = parse::<Pair>(schema_first, &ok).unwrap();
        assert_eq!((p.b[0], used, found), (1.0, 2, 3));
        // Cut off: not "missing field" from an inner object.
        let cut = "{\"a\": 1, \"inner\": {\"b\": [0.5]}, \"b\": [0.5, 0.";
        let e = parse::<Pair>(cut, &ok).unwrap_err();
        assert!(e.contains("truncated"), "{e}");
        let e = parse::<Pair>("{\"b\": [0.5]} and {\"b\": [1]}", &ok).unwrap_err();
        assert!(e.starts_with("none of its 2 JSON values matches"), "{e}");
        let e = parse::<Pair>("{\"a\": 1, \"b\": [0.5, \"x\"]}", &ok).unwrap_err();
        assert!(e.contains("b[1]"), "{e}");
        let e = parse::<Pair>("{\"b\": []}", &ok).unwrap_err();
        assert!(e.contains("missing field `a`"), "{e}");
        let e = parse::<Pair>("{\"a\": 1, \"b\": [2]}", &ok).unwrap_err();
        assert_eq!(e, "b must be within [0, 1]");
    }
}
