//! OpenTafl's built-in variants (`../shared/opentafl/variants.otr`, copied
//! into `tests/data/opentafl/`): every
//! one our rules can express loads and plays a game; the others are refused
//! with an error naming what is missing.

mod common;

use konakis::rules::otn::parse_otn_rules;
use konakis::search::{Engine, Limits};

fn variants() -> String {
    let dir = common::opentafl_dir();
    std::fs::read_to_string(dir.join("variants.otr")).expect("read variants.otr")
}

#[test]
fn opentafl_variants_load_and_play_or_are_refused() {
    let mut supported = Vec::new();
    let mut refused = Vec::new();
    for line in variants().lines().filter(|l| !l.trim().is_empty()) {
        let name = line
            .split_whitespace()
            .find_map(|t| t.strip_prefix("name:"))
            .unwrap_or("?")
            .to_string();
        match parse_otn_rules(line) {
            Ok(rules) => {
                let mut engine = Engine::new();
                engine.set_hash(4).unwrap();
                engine.set_rules(rules);
                let mut plies = 0;
                while engine.game().outcome().is_none() && plies < 300 {
                    let r = engine.search(Limits::depth(1));
                    engine.play(r.best.expect("a move")).expect("legal");
                    plies += 1;
                }
                supported.push(name);
            }
            Err(e) => {
                assert!(e.starts_with("OpenTafl rules:"), "{name}: {e}");
                refused.push((name, e));
            }
        }
    }
    for must in [
        "Sea_Battle",
        "Fetlar",
        "Copenhagen",
        "Brandub",
        "Tawlbwrdd",
        "Tablut",
        "Computer_Fetlar",
    ] {
        assert!(
            supported.iter().any(|s| s == must),
            "{must} should load: {supported:?} / {refused:?}"
        );
    }
    assert_eq!(supported.len() + refused.len(), 14);
}
