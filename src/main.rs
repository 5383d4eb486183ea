use clap::Parser;
use konakis::cli::{run_bench, run_perft, Cli, Command};

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Perft(args)) => run_perft(&args),
        Some(Command::Bench(args)) => run_bench(&args),
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
