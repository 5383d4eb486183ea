//! Text protocols on top of the engine API: tei (`protocol.md`), and the
//! output sink they share. Protocol code only parses and formats.

pub mod command;
pub mod hnefatafl_bot;
pub mod otep;
pub mod tablut_challenge;
pub mod tei;

use std::io::Write;
use std::sync::{Arc, Mutex};

/// Where protocol lines go: each line is written whole, in one write, and
/// flushed, so that lines from the search thread and the reader never mix.
#[derive(Clone)]
pub struct Output(Arc<Mutex<Box<dyn Write + Send>>>);

impl Output {
    pub fn stdout() -> Output {
        Output::new(Box::new(std::io::stdout()))
    }

    pub fn new(w: Box<dyn Write + Send>) -> Output {
        Output(Arc::new(Mutex::new(w)))
    }

    /// Writes one line (a newline is added). Anything but printable ASCII
    /// (bad input echoed in an error, say) is written escaped, so a line
    /// can never carry control characters or terminal escape sequences.
    pub fn line(&self, text: &str) {
        let mut buf = escape(text);
        buf.push('\n');
        let mut w = match self.0.lock() {
            Ok(w) => w,
            Err(poisoned) => poisoned.into_inner(),
        };
        // A closed stdout (the GUI went away) is not worth a panic.
        let _ = w.write_all(buf.as_bytes());
        let _ = w.flush();
    }
}

/// `text` with every character that is not printable ASCII written as an
/// escape: `\t`, `\x1b`, `\u{e9}`.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            ' '..='~' => out.push(c),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out
}

/// One line of input: text, or bytes that are not UTF-8 (shown escaped,
/// `\xff`), which are bad input like any other and never end the session.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum InputLine {
    Text(String),
    NotText(String),
}

impl InputLine {
    /// A line read as bytes (its line ending dropped).
    pub fn from_bytes(mut bytes: Vec<u8>) -> InputLine {
        while bytes.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            bytes.pop();
        }
        match String::from_utf8(bytes) {
            Ok(text) => InputLine::Text(text),
            Err(e) => {
                let shown: String = e
                    .as_bytes()
                    .iter()
                    .map(|&b| match b {
                        b' '..=b'~' => (b as char).to_string(),
                        _ => format!("\\x{b:02x}"),
                    })
                    .collect();
                InputLine::NotText(shown)
            }
        }
    }

    /// The error to answer a line that is not text with.
    pub fn not_text_error(shown: &str) -> String {
        format!("input is not UTF-8 text: '{shown}'")
    }
}

/// Reads stdin on its own thread, so that commands such as `stop` and
/// `isready` reach the session while a search runs. Each line goes through
/// `wrap` into the channel; end of input (or a read error) sends `eof`.
/// Returns false if the thread could not be started.
pub fn spawn_stdin_reader<T: Send + 'static>(
    tx: std::sync::mpsc::Sender<T>,
    wrap: fn(InputLine) -> T,
    eof: Option<T>,
) -> bool {
    std::thread::Builder::new()
        .name("konakis-stdin".into())
        .spawn(move || {
            use std::io::BufRead;
            let mut input = std::io::stdin().lock();
            loop {
                let mut bytes = Vec::new();
                match input.read_until(b'\n', &mut bytes) {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        if tx.send(wrap(InputLine::from_bytes(bytes))).is_err() {
                            return;
                        }
                    }
                }
            }
            if let Some(e) = eof {
                let _ = tx.send(e);
            }
        })
        .is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_all_but_printable_ascii() {
        assert_eq!(escape("go depth 3"), "go depth 3");
        assert_eq!(escape("a\x1b[2Jb\tc\u{e9}"), "a\\x1b[2Jb\\tc\\u{e9}");
    }

    #[test]
    fn lines_that_are_not_utf8_are_named() {
        assert_eq!(
            InputLine::from_bytes(b"isready\r\n".to_vec()),
            InputLine::Text("isready".into())
        );
        assert_eq!(
            InputLine::from_bytes(b"go\xff\n".to_vec()),
            InputLine::NotText("go\\xff".into())
        );
    }
}
