use clap::Parser;
use konakis::cli::{run_perft, Cli, Command};

fn main() {
    let cli = Cli::parse();
    let result = match cli.command {
        Some(Command::Perft(args)) => run_perft(&args),
        Some(Command::Bench(_args)) => Err("bench: not yet".to_string()),
        None => Err("protocol: not yet".to_string()),
    };
    if let Err(e) = result {
        eprintln!("konakis: error: {e}");
        std::process::exit(2);
    }
}
