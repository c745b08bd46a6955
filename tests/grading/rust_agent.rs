// A Treasure Island agent in Rust that speaks the JSON-lines agent protocol
// (docs/agent-protocol.md) on stdin/stdout, standard library only: it answers
// `hello`, scans on every `act`, and says `ready` at the `end`.
use std::io::{self, BufRead, Write};

/// The value of the message's first "type" key (the referee writes it first).
fn message_type(line: &str) -> Option<&str> {
    let key = line.find("\"type\"")?;
    let rest = &line[key + 6..];
    let start = rest.find('"')? + 1;
    let end = rest[start..].find('"')? + start;
    Some(&rest[start..end])
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout();
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => break,
        };
        let reply = match message_type(&line) {
            Some("hello") => "{\"type\":\"hello\",\"protocol\":1,\"agent\":\"rust-scan\"}",
            Some("act") => "{\"type\":\"action\",\"action\":\"scan\"}",
            Some("end") => "{\"type\":\"ready\"}",
            Some("bye") => break,
            _ => continue,
        };
        if writeln!(out, "{}", reply).and_then(|_| out.flush()).is_err() {
            break;
        }
    }
}
