//! The OpenAI-compatible chat-completions backend.

use crate::error::one_line_prefix;
use crate::{LlmError, Message};
use serde_json::{Value, json};
use std::time::Duration;

pub(crate) fn agent(timeout: Duration) -> ureq::Agent {
    ureq::Agent::config_builder()
        .timeout_global(Some(timeout))
        // Error statuses are read like any answer, so their body can be reported.
        .http_status_as_error(false)
        .user_agent(concat!("lore/", env!("CARGO_PKG_VERSION")))
        .build()
        .into()
}

/// `POST {url}/chat/completions`; the answer is `choices[0].message.content`.
pub(crate) fn chat(
    agent: &ureq::Agent,
    base: &str,
    model: &str,
    api_key: Option<&str>,
    temperature: Option<f32>,
    timeout: Duration,
    messages: &[Message],
) -> Result<String, LlmError> {
    let url = format!("{}/chat/completions", base.trim_end_matches('/'));
    let mut body = json!({
        "model": model,
        "messages": messages
            .iter()
            .map(|m| json!({"role": m.role.as_str(), "content": m.content}))
            .collect::<Vec<_>>(),
        "stream": false,
    });
    if let Some(t) = temperature {
        body["temperature"] = json!(t);
    }
    let mut req = agent
        .post(&url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json");
    if let Some(key) = api_key {
        req = req.header("Authorization", format!("Bearer {key}"));
    }
    let transport = |e: ureq::Error| match e {
        ureq::Error::Timeout(_) => LlmError::Timeout(timeout),
        ureq::Error::Io(io) if io.kind() == std::io::ErrorKind::TimedOut => {
            LlmError::Timeout(timeout)
        }
        other => LlmError::Transport {
            url: url.clone(),
            message: other.to_string(),
        },
    };
    let mut response = req.send(body.to_string()).map_err(transport)?;
    let status = response.status().as_u16();
    let text = response.body_mut().read_to_string().map_err(transport)?;
    if !(200..300).contains(&status) {
        return Err(LlmError::Status {
            url,
            status,
            body: one_line_prefix(&text, 300),
        });
    }
    let bad = |message: String| LlmError::BadResponse {
        url: url.clone(),
        message,
    };
    let v: Value = serde_json::from_str(&text)
        .map_err(|e| bad(format!("not JSON ({e}): {}", one_line_prefix(&text, 200))))?;
    if let Some(err) = v.get("error").filter(|e| !e.is_null()) {
        let msg = err
            .get("message")
            .and_then(Value::as_str)
            .map(String::from)
            .unwrap_or_else(|| err.to_string());
        return Err(bad(format!("error: {}", one_line_prefix(&msg, 300))));
    }
    let content = v
        .pointer("/choices/0/message/content")
        .and_then(Value::as_str)
        .ok_or_else(|| {
            bad(format!(
                "no choices[0].message.content in {}",
                one_line_prefix(&text, 200)
            ))
        })?;
    Ok(content.to_string())
}

#[cfg(test)]
mod tests {
    use crate::fake_server::{FakeLlm, Reply};
    use crate::{Backend, LlmClient, LlmError, ask_json};
    use std::time::{Duration, Instant};

    fn client(server: &FakeLlm, timeout: Duration) -> LlmClient {
        LlmClient::new(
            Backend::Endpoint {
                url: server.url(),
                model: "fake-model".into(),
                api_key: Some("k-123".into()),
            },
            timeout,
        )
    }

    #[derive(serde::Deserialize, Debug, PartialEq)]
    struct Answer {
        score: f64,
    }

    fn in_range(a: &Answer) -> Result<(), String> {
        if (0.0..=1.0).contains(&a.score) {
            Ok(())
        } else {
            Err(format!("score {} is outside [0, 1]", a.score))
        }
    }

    #[test]
    fn sends_a_chat_request_and_reads_the_content() {
        let server = FakeLlm::start(|_, _| Reply::Content("hello there".into())).unwrap();
        let c = client(&server, Duration::from_secs(10)).with_temperature(Some(0.0));
        assert_eq!(c.complete("be brief", "say hi").unwrap(), "hello there");
        let reqs = server.requests();
        assert_eq!(reqs.len(), 1);
        let r = &reqs[0];
        assert_eq!(r.path, "/v1/chat/completions");
        assert_eq!(r.authorization.as_deref(), Some("Bearer k-123"));
        assert_eq!(r.body["model"], "fake-model");
        assert_eq!(r.body["temperature"], 0.0);
        assert_eq!(r.body["messages"][0]["role"], "system");
        assert_eq!(r.body["messages"][1]["role"], "user");
        assert_eq!(r.contents(), vec!["be brief", "say hi"]);
    }

    #[test]
    fn invalid_answer_is_retried_with_the_error() {
        let server = FakeLlm::start(|_, n| {
            Reply::Content(match n {
                0 => "I think the score is high".into(),
                1 => "```json\n{\"score\": 1.5}\n```".into(),
                _ => "{\"score\": 0.75}".into(),
            })
        })
        .unwrap();
        let c = client(&server, Duration::from_secs(10));
        let a = ask_json::<Answer>(&c, "sys", "rate it", 3, in_range).unwrap();
        assert_eq!(a.value, Answer { score: 0.75 });
        assert_eq!(a.attempts, 3);
        let reqs = server.requests();
        assert_eq!(reqs.len(), 3);
        let second = reqs[1].contents();
        assert_eq!(second.len(), 4, "{second:?}");
        assert_eq!(second[2], "I think the score is high");
        assert!(second[3].contains("not valid JSON"), "{}", second[3]);
        let third = reqs[2].contents();
        assert_eq!(third.len(), 6);
        assert!(
            third[5].contains("score 1.5 is outside [0, 1]"),
            "{}",
            third[5]
        );
    }

    #[test]
    fn retries_run_out() {
        let server = FakeLlm::start(|_, _| Reply::Content("{\"score\": \"high\"}".into())).unwrap();
        let c = client(&server, Duration::from_secs(10));
        let e = ask_json::<Answer>(&c, "sys", "rate it", 2, in_range).unwrap_err();
        assert_eq!(e.attempts(), 3);
        assert!(!e.is_fatal());
        let msg = e.to_string();
        assert!(
            msg.contains("at score") && msg.contains("gave up after 3"),
            "{msg}"
        );
        assert_eq!(server.requests().len(), 3);
    }

    /// A server whose first answer takes 3 s, and a client that waits 1 s.
    fn slow_first_answer() -> (FakeLlm, LlmClient) {
        let server = FakeLlm::start(|_, n| {
            let ok = Reply::Content("{\"score\": 0.5}".into());
            if n == 0 {
                Reply::Delayed(Duration::from_secs(3), Box::new(ok))
            } else {
                ok
            }
        })
        .unwrap();
        let c = client(&server, Duration::from_secs(1));
        (server, c)
    }

    #[test]
    fn timeout_is_reported_and_retried() {
        let (_server, c) = slow_first_answer();
        let t = Instant::now();
        let e = c.complete("s", "u").unwrap_err();
        assert!(matches!(e, LlmError::Timeout(_)), "{e}");
        assert!(
            t.elapsed() < Duration::from_millis(2500),
            "{:?}",
            t.elapsed()
        );
        // Through ask_json the slow first answer is retried with the same conversation.
        let (server, c) = slow_first_answer();
        let a = ask_json::<Answer>(&c, "s", "u", 1, in_range).unwrap();
        assert_eq!(a.attempts, 2);
        let reqs = server.requests();
        assert_eq!(reqs[0].contents(), reqs[1].contents());
    }

    #[test]
    fn status_errors() {
        let server = FakeLlm::start(|_, n| match n {
            0 => Reply::Status(503, "{\"error\": {\"message\": \"loading\"}}".into()),
            _ => Reply::Content("{\"score\": 0.25}".into()),
        })
        .unwrap();
        let c = client(&server, Duration::from_secs(10));
        let a = ask_json::<Answer>(&c, "s", "u", 2, in_range).unwrap();
        assert_eq!((a.value.score, a.attempts), (0.25, 2));

        let server = FakeLlm::start(|_, _| Reply::Status(401, "bad key".into())).unwrap();
        let c = client(&server, Duration::from_secs(10));
        let e = ask_json::<Answer>(&c, "s", "u", 3, in_range).unwrap_err();
        assert!(e.is_fatal(), "{e}");
        assert!(e.to_string().contains("HTTP 401: bad key"), "{e}");
        assert_eq!(server.requests().len(), 1, "a fatal error is not retried");

        let server = FakeLlm::start(|_, _| Reply::Status(200, "{\"choices\": []}".into())).unwrap();
        let e = client(&server, Duration::from_secs(10))
            .complete("s", "u")
            .unwrap_err();
        assert!(matches!(e, LlmError::BadResponse { .. }), "{e}");
    }

    #[test]
    fn unreachable_endpoint() {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let c = LlmClient::new(
            Backend::Endpoint {
                url: format!("http://127.0.0.1:{port}/v1"),
                model: "m".into(),
                api_key: None,
            },
            Duration::from_secs(5),
        );
        let e = c.complete("s", "u").unwrap_err();
        assert!(matches!(e, LlmError::Transport { .. }), "{e}");
        assert!(e.to_string().starts_with("cannot reach the LLM at"), "{e}");
    }
}
