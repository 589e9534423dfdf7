//! The command backend: `sh -c COMMAND` (`cmd /C` on Windows), the prompt on standard
//! input, the answer on standard output, killed with its children after the timeout.

use crate::LlmError;
use crate::error::one_line_prefix;
use std::io::{Read, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

fn shell(command: &str) -> Command {
    #[cfg(unix)]
    {
        use std::os::unix::process::CommandExt;
        let mut c = Command::new("sh");
        c.arg("-c").arg(command);
        // Its own process group, so a timeout kills what the command started too.
        c.process_group(0);
        c
    }
    #[cfg(not(unix))]
    {
        let mut c = Command::new("cmd");
        c.arg("/C").arg(command);
        c
    }
}

fn kill(child: &mut Child) {
    #[cfg(unix)]
    {
        let pid = rustix::process::Pid::from_child(child);
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Reads a pipe to the end on a thread; the bytes arrive on the returned channel.
fn drain(mut r: impl Read + Send + 'static) -> mpsc::Receiver<Vec<u8>> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = r.read_to_end(&mut buf);
        let _ = tx.send(buf);
    });
    rx
}

pub(crate) fn run(command: &str, prompt: &str, timeout: Duration) -> Result<String, LlmError> {
    let started = Instant::now();
    let mut child = shell(command)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|source| LlmError::CommandSpawn {
            command: command.to_string(),
            source,
        })?;
    // Write the prompt on a thread: a command that answers before reading all of it must
    // not block us on a full pipe.
    if let Some(mut stdin) = child.stdin.take() {
        let prompt = prompt.to_string();
        std::thread::spawn(move || {
            let _ = stdin.write_all(prompt.as_bytes());
        });
    }
    let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
        kill(&mut child);
        return Err(LlmError::CommandFailed {
            command: command.to_string(),
            status: "no pipes".into(),
            code: None,
            stderr: String::new(),
        });
    };
    let stdout = drain(stdout);
    let stderr = drain(stderr);

    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                kill(&mut child);
                return Err(LlmError::Timeout(timeout));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(10)),
            Err(e) => {
                kill(&mut child);
                return Err(LlmError::CommandFailed {
                    command: command.to_string(),
                    status: format!("cannot wait for it: {e}"),
                    code: None,
                    stderr: String::new(),
                });
            }
        }
    };
    // The pipes close when the command and everything it started have exited; something
    // left running in the background must not hold us past the timeout.
    let remaining = || timeout.saturating_sub(started.elapsed()) + Duration::from_millis(200);
    let out = stdout.recv_timeout(remaining()).unwrap_or_default();
    let err = stderr
        .recv_timeout(Duration::from_millis(200))
        .unwrap_or_default();
    if !status.success() {
        let code = status.code();
        return Err(LlmError::CommandFailed {
            command: command.to_string(),
            status: match code {
                Some(c) => format!("exit code {c}"),
                None => "killed by a signal".to_string(),
            },
            code,
            stderr: one_line_prefix(&String::from_utf8_lossy(&err), 300),
        });
    }
    Ok(String::from_utf8_lossy(&out).into_owned())
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn prompt_in_answer_out() {
        let out = run("tr a-z A-Z", "hello\n", Duration::from_secs(10)).unwrap();
        assert_eq!(out, "HELLO\n");
    }

    #[test]
    fn failure_carries_stderr() {
        let e = run("echo oops >&2; exit 3", "", Duration::from_secs(10)).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("exit code 3") && msg.contains("oops"), "{msg}");
        assert!(!e.is_fatal());
    }

    #[test]
    fn timeout_kills_the_command_and_its_children() {
        let dir = tempfile::tempdir().unwrap();
        let marker = dir.path().join("survived");
        let cmd = format!("(sleep 2; touch '{}') & sleep 30", marker.display());
        let t = Instant::now();
        let e = run(&cmd, "", Duration::from_millis(300)).unwrap_err();
        assert!(matches!(e, LlmError::Timeout(_)), "{e}");
        assert!(t.elapsed() < Duration::from_secs(2), "{:?}", t.elapsed());
        std::thread::sleep(Duration::from_millis(2500));
        assert!(
            !marker.exists(),
            "a child of the command outlived the timeout"
        );
    }

    #[test]
    fn missing_program_is_a_failed_command() {
        // `sh` exists, the program does not: the shell reports 127.
        let e = run("no-such-program-lore-test", "", Duration::from_secs(10)).unwrap_err();
        assert!(e.to_string().contains("exit code 127"), "{e}");
        assert!(e.is_fatal());
    }
}
