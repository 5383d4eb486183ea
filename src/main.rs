use clap::Parser;
use konakis::cli::{
    group_engine_words, run_bench, run_datagen, run_hnefatafl_bot, run_match, run_openings,
    run_perft, run_predict, run_replay, run_review, run_serve, run_spsa, run_stats,
    run_tablut_challenge, run_train, run_tune, run_wdl, Cli, Command,
};

fn main() {
    let cli = match Cli::try_parse_from(group_engine_words(std::env::args().collect())) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            if matches!(e.kind(), ErrorKind::DisplayHelp | ErrorKind::DisplayVersion) {
                let _ = e.print();
                std::process::exit(0);
            }
            // clap's message starts with "error: "; ours with "konakis: ".
            let text = e.render().to_string();
            eprint!("konakis: {text}");
            std::process::exit(2);
        }
    };
    // A net built into the binary that does not parse is a broken build:
    // say so now rather than play with another evaluation.
    if let Err(e) = konakis::search::eval::nnue::check_embedded_nets()
        .and_then(|()| konakis::search::wdl::check_embedded())
    {
        eprintln!("konakis: {e}");
        std::process::exit(2);
    }
    let result = match cli.command {
        Some(Command::Perft(args)) => run_perft(&args),
        Some(Command::Bench(args)) => run_bench(&args),
        Some(Command::Match(args)) => run_match(&args),
        Some(Command::Replay(args)) => run_replay(&args),
        Some(Command::Datagen(args)) => run_datagen(&args),
        Some(Command::Tune(args)) => run_tune(&args),
        Some(Command::Train(args)) => run_train(&args),
        Some(Command::Predict(args)) => run_predict(&args),
        Some(Command::Wdl(args)) => run_wdl(&args),
        Some(Command::Review(args)) => run_review(&args),
        Some(Command::Openings(args)) => run_openings(&args),
        Some(Command::Stats(args)) => run_stats(&args),
        Some(Command::Spsa(args)) => run_spsa(&args),
        Some(Command::TablutChallenge(args)) => run_tablut_challenge(&args),
        Some(Command::HnefataflBot(args)) => run_hnefatafl_bot(&args),
        Some(Command::Serve(args)) => run_serve(&args),
        Some(Command::Otep(args)) => {
            konakis::protocol::otep::run_stdio(konakis::protocol::otep::OtepSettings {
                untimed_move_ms: args.movetime.max(10),
                threads: args.threads,
                hash_mib: args.hash,
            })
        }
        None => {
            konakis::protocol::tei::run_stdio();
            Ok(())
        }
    };
    if let Err(e) = result {
        eprintln!("konakis: error: {e}");
        std::process::exit(2);
    }
}
