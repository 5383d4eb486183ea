//! Text protocols on top of the engine API: tei (`protocol.md`), and the
//! output sink they share. Protocol code only parses and formats.

pub mod command;
pub mod otep;
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

    /// Writes one line (a newline is added).
    pub fn line(&self, text: &str) {
        let mut buf = String::with_capacity(text.len() + 1);
        buf.push_str(text);
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

/// Reads stdin on its own thread, so that commands such as `stop` and
/// `isready` reach the session while a search runs. Each line goes through
/// `wrap` into the channel; end of input (or a read error) sends `eof`.
/// Returns false if the thread could not be started.
pub fn spawn_stdin_reader<T: Send + 'static>(
    tx: std::sync::mpsc::Sender<T>,
    wrap: fn(String) -> T,
    eof: Option<T>,
) -> bool {
    std::thread::Builder::new()
        .name("konakis-stdin".into())
        .spawn(move || {
            use std::io::BufRead;
            for line in std::io::stdin().lock().lines() {
                let Ok(line) = line else { break };
                if tx.send(wrap(line)).is_err() {
                    return;
                }
            }
            if let Some(e) = eof {
                let _ = tx.send(e);
            }
        })
        .is_ok()
}
