//! Protocol latencies of the built binary: start to `teiok`, `stop` to
//! `bestmove`, `go movetime 1000` overshoot, the same and a 200 ms clock
//! with 256 threads (on however few cores), and `Hash 4096` to `readyok`.
//! Run with `cargo bench --bench latency`; the README records the figures.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc::channel;
use std::time::{Duration, Instant};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn main() {
    let runs = 10;
    let mut startup = Vec::new();
    let mut stop = Vec::new();
    let mut overshoot = Vec::new();
    let mut crowded_overshoot = Vec::new();
    let mut crowded_clock = Vec::new();
    let mut big_hash = Vec::new();
    for _ in 0..runs {
        let t0 = Instant::now();
        let mut child = Command::new(env!("CARGO_BIN_EXE_konakis"))
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("start konakis");
        let mut stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, rx) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        let wait_for = |prefix: &str| -> Instant {
            loop {
                let (at, line) = rx
                    .recv_timeout(Duration::from_secs(30))
                    .expect("engine answers");
                if line.starts_with(prefix) {
                    return at;
                }
            }
        };
        writeln!(stdin, "tei").unwrap();
        startup.push((wait_for("teiok") - t0).as_secs_f64() * 1e3);
        writeln!(
            stdin,
            "setoption name Variant value copenhagen\nposition startpos\ngo infinite"
        )
        .unwrap();
        std::thread::sleep(Duration::from_millis(500));
        let t = Instant::now();
        writeln!(stdin, "stop").unwrap();
        stop.push((wait_for("bestmove") - t).as_secs_f64() * 1e3);
        let t = Instant::now();
        writeln!(stdin, "go movetime 1000").unwrap();
        overshoot.push((wait_for("bestmove") - t).as_secs_f64() * 1e3 - 1000.0);
        writeln!(stdin, "setoption name Threads value 256\nisready").unwrap();
        wait_for("readyok");
        let t = Instant::now();
        writeln!(stdin, "go movetime 1000").unwrap();
        crowded_overshoot.push((wait_for("bestmove") - t).as_secs_f64() * 1e3 - 1000.0);
        let t = Instant::now();
        writeln!(stdin, "go atime 200 dtime 200").unwrap();
        crowded_clock.push((wait_for("bestmove") - t).as_secs_f64() * 1e3);
        let t = Instant::now();
        writeln!(stdin, "setoption name Hash value 4096\nisready").unwrap();
        big_hash.push((wait_for("readyok") - t).as_secs_f64() * 1e3);
        writeln!(stdin, "quit").unwrap();
        let _ = child.wait();
    }
    println!(
        "start to teiok: median {:.2} ms (of {runs})",
        median(startup)
    );
    println!("stop to bestmove: median {:.2} ms", median(stop));
    println!(
        "go movetime 1000 overshoot: median {:.2} ms (MoveOverhead 30 ms kept in hand)",
        median(overshoot)
    );
    let worst = |v: &[f64]| v.iter().cloned().fold(f64::MIN, f64::max);
    println!(
        "Threads 256, go movetime 1000 overshoot: median {:.2} ms, worst {:.2} ms",
        median(crowded_overshoot.clone()),
        worst(&crowded_overshoot)
    );
    println!(
        "Threads 256, go atime 200 dtime 200 to bestmove: median {:.2} ms, worst {:.2} ms",
        median(crowded_clock.clone()),
        worst(&crowded_clock)
    );
    println!(
        "setoption name Hash value 4096 to readyok: median {:.2} ms",
        median(big_hash)
    );
}
