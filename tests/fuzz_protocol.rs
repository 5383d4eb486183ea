//! A fuzz target for the tei session, run in the suite at a small budget:
//! lines of random bytes, and random mixes of the protocol's own words,
//! fed to a session in this process. No input may panic the engine, make
//! it stop answering `isready`, or put anything but printable ASCII lines
//! on its output. Raise `PROPTEST_CASES` for a longer run.

mod common;

use common::PROTOCOL_WORDS;
use konakis::protocol::tei::Session;
use konakis::protocol::{InputLine, Output};
use proptest::prelude::*;
use std::io::Write;
use std::sync::{Arc, Mutex};

/// An output buffer the test can read while the session writes to it.
#[derive(Clone, Default)]
struct Captured(Arc<Mutex<Vec<u8>>>);

impl Write for Captured {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn line_strategy() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        proptest::collection::vec(any::<u8>(), 0..40),
        proptest::collection::vec(0..PROTOCOL_WORDS.len(), 0..8).prop_map(|ix| ix
            .iter()
            .map(|&i| PROTOCOL_WORDS[i])
            .collect::<Vec<_>>()
            .join(" ")
            .into_bytes()),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    #[test]
    fn any_bytes_are_answered_safely(lines in proptest::collection::vec(line_strategy(), 1..12)) {
        let captured = Captured::default();
        let mut session = Session::new(Output::new(Box::new(captured.clone())));
        for bytes in lines {
            // Keep the budget small: no deep work left running.
            let text = String::from_utf8_lossy(&bytes);
            if text.contains("bench") || text.contains("perft") {
                session.handle_line("stop");
            }
            if !session.handle_input(InputLine::from_bytes(bytes)) {
                break;
            }
            session.handle_line("stop");
        }
        session.handle_line("isready");
        session.handle_line("quit");
        let out = captured.0.lock().unwrap().clone();
        let text = String::from_utf8(out).expect("output is text");
        prop_assert!(text.contains("readyok"), "isready unanswered: {}", text);
        for line in text.lines() {
            prop_assert!(
                line.chars().all(|c| (' '..='~').contains(&c)),
                "not printable ASCII: {:?}", line
            );
        }
    }
}
