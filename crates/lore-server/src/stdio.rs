//! MCP over stdin/stdout with the same message checks as `/mcp` over HTTP: rmcp's stdio
//! transport drops a line that is not JSON, or a request it cannot parse, without a word,
//! so every line is checked here first and a bad one gets its JSON-RPC error (-32700 for
//! what is not JSON, with id null), written between rmcp's own whole lines.

use crate::http::{check_message, rpc_error_body};
use std::sync::Arc;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::Mutex;

/// Bytes buffered between stdin or stdout and rmcp.
const PIPE: usize = 1 << 16;

/// The (read, write) pair rmcp serves on in place of (stdin, stdout).
pub(crate) fn checked_stdio() -> (DuplexStream, DuplexStream) {
    let (rmcp_in, mut feed) = tokio::io::duplex(PIPE);
    let (rmcp_out, drain) = tokio::io::duplex(PIPE);
    let stdout = Arc::new(Mutex::new(tokio::io::stdout()));
    let out = stdout.clone();
    tokio::spawn(async move {
        let mut lines = BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        while next_line(&mut lines, &mut line).await {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match check_message(&line) {
                Ok(()) => {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    if feed.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Err((code, id, message)) => {
                    let mut reply = rpc_error_body(id, code, &message).to_string().into_bytes();
                    reply.push(b'\n');
                    let mut w = out.lock().await;
                    if w.write_all(&reply).await.is_err() || w.flush().await.is_err() {
                        break;
                    }
                }
            }
        }
        // Dropping `feed` ends rmcp's input: the session closes as with a closed stdin.
    });
    tokio::spawn(async move {
        let mut lines = BufReader::new(drain);
        let mut line = Vec::new();
        while next_line(&mut lines, &mut line).await {
            let mut w = stdout.lock().await;
            if w.write_all(&line).await.is_err() || w.flush().await.is_err() {
                break;
            }
        }
    });
    (rmcp_in, rmcp_out)
}

/// Reads the next line (with its newline, if any) into `line`; false at the end or on an error.
async fn next_line(r: &mut (impl AsyncBufReadExt + Unpin), line: &mut Vec<u8>) -> bool {
    line.clear();
    matches!(r.read_until(b'\n', line).await, Ok(n) if n > 0)
}
