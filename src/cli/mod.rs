//! The command line: `konakis` (protocol engine), `konakis perft`, `konakis bench`.

use crate::rules::perft::Counting;
use crate::rules::{Preset, Rules, Side, StartPoint};
use crate::search::Engine;
use clap::{Args, Parser, Subcommand};
use std::time::Instant;

/// `println!` that ends the process quietly when stdout is closed (for
/// example `konakis perft 6 | head -1`) instead of panicking.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write;
        let mut out = std::io::stdout().lock();
        if writeln!(out, $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

mod review;
pub use review::{run_review, run_wdl, ReviewArgs, WdlArgs};

#[derive(Parser, Debug)]
#[command(
    name = "konakis",
    version,
    about = "A tafl engine (Tablut in four readings, tablut-corner, Brandubh, Copenhagen, Fetlar, Ashton Tablut and the hnefatafl.org rules). With no subcommand it speaks the engine protocol (protocol.md) on stdin/stdout; `konakis serve` opens a board in the browser."
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Count the leaves of the move tree (checks the rules; measures movegen speed).
    Perft(PerftArgs),
    /// Search fixed positions at a fixed depth; the node count is the search's signature.
    Bench(BenchArgs),
    /// Play a match between two protocol engines (a tournament runner).
    Match(MatchArgs),
    /// Replay game records written by `match --records` and check each result.
    Replay(ReplayArgs),
    /// Speak the OpenTafl Engine Protocol (OTEP) on stdin/stdout, for the OpenTafl GUI.
    Otep(OtepArgs),
    /// Self-play training data: positions with the search's score and the game's result.
    Datagen(DatagenArgs),
    /// Fit the learned evaluation's weights to datagen files (Texel tuning).
    Tune(TuneArgs),
    /// Train an NNUE evaluation on datagen files.
    Train(TrainArgs),
    /// How well each evaluation predicts the winners of games people played.
    Predict(PredictArgs),
    /// The win–draw–loss model: label games' positions with searches, fit the
    /// model to their results, and show its calibration.
    Wdl(WdlArgs),
    /// Review a game: every position searched to a fixed budget, each move
    /// judged by the winning chances it gave away.
    Review(ReviewArgs),
    /// Build an openings file for `match --openings` from game records.
    Openings(OpeningsArgs),
    /// Merge match record files (say, the shards of one match, or a match and
    /// its continuation) into one report.
    Stats(StatsArgs),
    /// Tune the search's numbers by SPSA: the engine with each set of
    /// perturbed numbers plays the engine with the opposite perturbation.
    Spsa(SpsaArgs),
    /// Play one game on a Tablut Challenge server (Ashton rules).
    TablutChallenge(TablutChallengeArgs),
    /// Play as a bot account on a hnefatafl-copenhagen server (hnefatafl.org).
    HnefataflBot(HnefataflBotArgs),
    /// A board in the browser: play, analyse and review games (prints the URL).
    Serve(ServeArgs),
}

#[derive(Args, Debug)]
pub struct ServeArgs {
    /// The address to listen on; 127.0.0.1 keeps the board to this computer
    /// (0.0.0.0 opens it to the network).
    #[arg(long, default_value = "127.0.0.1")]
    pub host: String,
    /// The port; 0 lets the system choose one (the URL printed names it).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Search threads [default: every core].
    #[arg(long, value_parser = clap::value_parser!(u16).range(1..=256))]
    pub threads: Option<u16>,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u32).range(1..=65536))]
    pub hash: u32,
    /// Open the page in the desktop's browser.
    #[arg(long)]
    pub open: bool,
    /// The token every request must carry (the printed URL has it). One is
    /// made up at start when the server listens on anything but loopback.
    #[arg(long, env = "KONAKIS_TOKEN", conflicts_with = "no_token")]
    pub token: Option<String>,
    /// No token: accepted only with a loopback --host.
    #[arg(long)]
    pub no_token: bool,
    /// How long a client may take to send a request's headers, in ms.
    #[arg(long, default_value_t = 10_000, hide = true, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub header_timeout_ms: u64,
    /// How long a client may take to send a request's body, in ms.
    #[arg(long, default_value_t = 20_000, hide = true, value_parser = clap::value_parser!(u64).range(1..=3_600_000))]
    pub body_timeout_ms: u64,
}

/// `konakis serve`.
pub fn run_serve(args: &ServeArgs) -> Result<(), String> {
    let threads = match args.threads {
        Some(n) => n as usize,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    crate::serve::run(&crate::serve::ServeConfig {
        host: args.host.clone(),
        port: args.port,
        threads,
        hash_mib: args.hash as usize,
        open: args.open,
        token: match (&args.token, args.no_token) {
            (Some(t), _) => crate::serve::TokenChoice::Given(t.clone()),
            (None, true) => crate::serve::TokenChoice::None,
            (None, false) => crate::serve::TokenChoice::Default,
        },
        header_timeout: std::time::Duration::from_millis(args.header_timeout_ms),
        body_timeout: std::time::Duration::from_millis(args.body_timeout_ms),
    })
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum BotRole {
    Attacker,
    Defender,
}

impl From<BotRole> for Side {
    fn from(r: BotRole) -> Side {
        match r {
            BotRole::Attacker => Side::Attackers,
            BotRole::Defender => Side::Defenders,
        }
    }
}

#[derive(Args, Debug)]
#[command(group(clap::ArgGroup::new("games").required(true).args(["create", "accept", "join"])))]
pub struct HnefataflBotArgs {
    /// The server's host name or address.
    #[arg(long)]
    pub host: String,
    /// The server's port.
    #[arg(long, default_value_t = 49152)]
    pub port: u16,
    /// The bot's account name (the server's bots are named ai-…; at most 16 characters).
    #[arg(long)]
    pub username: String,
    /// The password; better given in the environment variable KONAKIS_BOT_PASSWORD,
    /// which keeps it off the command line (and out of `ps`).
    #[arg(long, env = "KONAKIS_BOT_PASSWORD", hide_env_values = true)]
    pub password: String,
    /// Create the account at the first login.
    #[arg(long)]
    pub create_account: bool,
    /// Post one game with us in this role, play whoever joins, then exit.
    #[arg(long, value_enum)]
    pub create: Option<BotRole>,
    /// Post games one after another (as --role) and play N challengers, then exit.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub accept: Option<u32>,
    /// Ask to join the posted game with this id, play it, then exit.
    #[arg(long, value_name = "ID")]
    pub join: Option<u128>,
    /// Our role in the games --accept posts.
    #[arg(long, value_enum, default_value = "attacker")]
    pub role: BotRole,
    /// Board size of the games we post: 7 (brandubh) or 11 (Copenhagen).
    #[arg(long, default_value_t = 11, value_parser = parse_board)]
    pub board: usize,
    /// Clock of the games we post: <milliseconds>+<seconds> (Fischer) or untimed.
    #[arg(long, default_value = "300000+10")]
    pub time: String,
    /// Post rated games.
    #[arg(long)]
    pub rated: bool,
    /// Thinking time per move in untimed games, in milliseconds.
    #[arg(long, default_value_t = 5000, value_parser = clap::value_parser!(u64).range(10..=3_600_000))]
    pub movetime: u64,
    /// Fixed nodes per move instead of the clock (a weaker, quicker bot).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub hash: u64,
    /// Reconnection attempts in a row before giving up (waits 2, 4, 8, … s).
    #[arg(long, default_value_t = 5)]
    pub reconnects: u32,
}

fn parse_board(s: &str) -> Result<usize, String> {
    match s {
        "7" => Ok(7),
        "11" => Ok(11),
        _ => Err(format!("'{s}' is not a board the bot plays: 7 or 11")),
    }
}

/// `konakis hnefatafl-bot`: plays its games; the log and results go to stderr.
pub fn run_hnefatafl_bot(args: &HnefataflBotArgs) -> Result<(), String> {
    use crate::protocol::hnefatafl_bot::{run, BotSettings, Clock, GameOffer, Mode};
    let clock: Clock = args.time.parse()?;
    let offer = |role: Side| GameOffer {
        role,
        board: args.board,
        clock,
        rated: args.rated,
    };
    let mode = match (args.create, args.accept, args.join) {
        (Some(role), None, None) => Mode::Create(offer(role.into())),
        (None, Some(games), None) => Mode::Accept {
            games,
            offer: offer(args.role.into()),
        },
        (None, None, Some(id)) => Mode::Join { id },
        _ => return Err("give one of --create, --accept and --join".into()),
    };
    if args.username.is_empty()
        || args.username.len() > 16
        || args.username.contains(char::is_whitespace)
    {
        return Err("--username: 1 to 16 characters, no spaces".into());
    }
    if args.password.is_empty() || args.password.len() > 32 {
        return Err("the password must have 1 to 32 characters".into());
    }
    let settings = BotSettings {
        port: args.port,
        create_account: args.create_account,
        threads: args.threads as usize,
        hash_mib: args.hash as usize,
        move_time_ms: args.movetime,
        nodes: args.nodes,
        reconnects: args.reconnects,
        ..BotSettings::new(&args.host, &args.username, &args.password, mode)
    };
    let reports = run(settings)?;
    let won = reports.iter().filter(|r| r.winner == Some(r.ours)).count();
    let drawn = reports.iter().filter(|r| r.winner.is_none()).count();
    eprintln!(
        "hnefatafl-bot: {} game(s): {won} won, {drawn} drawn, {} lost",
        reports.len(),
        reports.len() - won - drawn
    );
    Ok(())
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
pub enum ChallengeRole {
    /// The defenders, who move first.
    White,
    /// The attackers.
    Black,
}

#[derive(Args, Debug)]
pub struct TablutChallengeArgs {
    /// Our colour: white (the defenders, port 5800) or black (the attackers, port 5801).
    #[arg(long, value_enum)]
    pub role: ChallengeRole,
    /// The name we give the server.
    #[arg(long, default_value = "Konakis")]
    pub name: String,
    /// The server's time per move in seconds; we answer within it less a margin.
    #[arg(long, default_value_t = 60, value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub timeout: u64,
    /// The server's host name or address.
    #[arg(long, default_value = "localhost")]
    pub server: String,
    /// The server's port (default: 5800 for white, 5801 for black).
    #[arg(long)]
    pub port: Option<u16>,
    /// Search threads.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u64).range(1..=256))]
    pub threads: u64,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 256, value_parser = clap::value_parser!(u64).range(1..=65536))]
    pub hash: u64,
}

/// `konakis tablut-challenge`: one game; the result goes to stderr.
pub fn run_tablut_challenge(args: &TablutChallengeArgs) -> Result<(), String> {
    use crate::protocol::tablut_challenge::{run, ChallengeSettings};
    let side = match args.role {
        ChallengeRole::White => Side::Defenders,
        ChallengeRole::Black => Side::Attackers,
    };
    let settings = ChallengeSettings {
        name: args.name.clone(),
        timeout_s: args.timeout,
        host: args.server.clone(),
        port: args.port,
        threads: args.threads as usize,
        hash_mib: args.hash as usize,
        ..ChallengeSettings::new(side)
    };
    run(&settings).map(|_| ())
}

#[derive(Args, Debug)]
pub struct StatsArgs {
    /// Record files written by `match --records`.
    #[arg(required_unless_present = "pairs")]
    pub files: Vec<String>,
    /// Pair counts of an earlier run of the same test whose records are
    /// gone, as its report printed them (`pairs (pentanomial …)`), comma-
    /// separated: a,b,c,d,e. Repeatable; added to the records' pairs.
    #[arg(long, value_name = "A,B,C,D,E")]
    pub pairs: Vec<crate::runner::stats::Pentanomial>,
    /// The SPRT to state: elo0=<a> elo1=<b> alpha=<x> beta=<y>.
    #[arg(long, num_args = 4, value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
}

#[derive(Args, Debug)]
pub struct OpeningsArgs {
    /// Game records: the runner's (`match --records`), OpenTafl's (`replay
    /// --opentafl`), or comma-separated people's games (../shared/cases/real/).
    #[arg(long, num_args = 1.., required = true)]
    pub from: Vec<String>,
    /// Rule preset the games are taken under (default: the rules the
    /// records name; comma-separated games and move lists name none).
    #[arg(long)]
    pub variant: Option<String>,
    /// Override one rule option (repeatable; needs --variant).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rules: Vec<String>,
    /// Plies each opening keeps.
    #[arg(long)]
    pub plies: usize,
    /// At most this many openings (the first found, in file order).
    #[arg(long)]
    pub count: Option<usize>,
    /// Leave out openings that a search of this depth finds won or lost, or
    /// further than --margin from the start position's score.
    #[arg(long, value_name = "DEPTH")]
    pub balanced: Option<i32>,
    /// Centi-soldiers an opening may differ from the start position (with --balanced).
    #[arg(long, default_value_t = 300)]
    pub margin: i32,
    /// The openings file to write (default: standard output).
    #[arg(long)]
    pub out: Option<String>,
}

pub fn run_openings(args: &OpeningsArgs) -> Result<(), String> {
    use crate::runner::openings::{build, file_text, OpeningsConfig};
    if let Some(d) = args.balanced {
        if !(1..=crate::search::bench::MAX_DEPTH).contains(&d) {
            return Err(format!("--balanced depth must be 1 to 64, not {d}"));
        }
    }
    let rules = match &args.variant {
        Some(variant) => Some(
            RuleArgs {
                variant: variant.clone(),
                rules: args.rules.clone(),
            }
            .build()?,
        ),
        None if !args.rules.is_empty() => return Err("--rule needs --variant".into()),
        None => None,
    };
    let cfg = OpeningsConfig {
        from: args.from.clone(),
        rules,
        plies: args.plies,
        count: args.count,
        balanced: args.balanced,
        margin: args.margin,
    };
    let (openings, rules) = build(&cfg)?;
    let command = command_line();
    let header = format!("{} openings, made by: {}", openings.len(), command);
    let text = file_text(&openings, &rules, &header);
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text).map_err(|e| format!("{path}: {e}"))?;
            say!("{} openings written to {path}", openings.len());
        }
        None => say!("{}", text.trim_end()),
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct TuneArgs {
    /// Data files written by `konakis datagen` (all of one board family).
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<String>,
    /// The board family: corner7, edge9, corner9, corner11, corner11-plain or ashton
    /// (default: the data's).
    #[arg(long)]
    pub family: Option<String>,
    /// Passes of gradient descent over all positions.
    #[arg(long, default_value_t = 400)]
    pub epochs: usize,
    /// Weight of the search score in the target, against the game's result.
    #[arg(long, default_value_t = 0.0)]
    pub lambda: f64,
    /// The sigmoid's scale: a number, or 'fit' to fit it to the search scores
    /// (default ln(10)/400: a lead of 400 predicts 10 to 1).
    #[arg(long)]
    pub k: Option<String>,
    /// Adam's step, in centi-soldiers.
    #[arg(long, default_value_t = 1.0)]
    pub lr: f64,
    /// Where the fit starts: 'hand' (the hand evaluation's weights), 'zero',
    /// 'learned' (the family's weights the engine plays with) or a weights file.
    #[arg(long, default_value = "hand")]
    pub init: String,
    /// Pull towards the starting weights: this times the squared distance
    /// (centi-soldiers) is added to the loss.
    #[arg(long, default_value_t = 0.0)]
    pub l2: f64,
    /// Features kept at their starting weights (names, or prefixes ending in
    /// '*', e.g. 'pst-*'; repeatable).
    #[arg(long = "fix", value_name = "FEATURE")]
    pub fixed: Vec<String>,
    /// The only features fitted (the same forms; repeatable); all others keep
    /// their starting weights.
    #[arg(long, value_name = "FEATURE")]
    pub free: Vec<String>,
    /// Share of games held out to measure the fit on.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Seed of the validation split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Leave out the positions of games the length limit ended (on corner boards
    /// a few long shuffles can be most of the positions).
    #[arg(long)]
    pub drop_adjudicated: bool,
    /// Where to write the weights (src/search/eval/weights/<family>.txt for the engine).
    #[arg(long)]
    pub out: String,
}

pub fn run_tune(args: &TuneArgs) -> Result<(), String> {
    use crate::learn::tune::{self, TuneConfig};
    let family = args.family.as_deref().map(str::parse).transpose()?;
    let k = match args.k.as_deref() {
        None => Some(tune::DEFAULT_K),
        Some("fit") => None,
        Some(v) => Some(
            v.parse::<f64>()
                .ok()
                .filter(|k| *k > 0.0)
                .ok_or_else(|| format!("--k takes a positive number or 'fit', not '{v}'"))?,
        ),
    };
    let cfg = TuneConfig {
        data: args.data.clone(),
        family,
        epochs: args.epochs,
        lambda: args.lambda,
        k,
        start: args.init.parse()?,
        l2: args.l2,
        fixed: args.fixed.clone(),
        free: args.free.clone(),
        learning_rate: args.lr,
        validation: args.validation,
        seed: args.seed,
        drop_adjudicated: args.drop_adjudicated,
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
    };
    let started = Instant::now();
    let report = tune::run(&cfg)?;
    let secs = started.elapsed().as_secs_f64();
    let command = command_line();
    let mut text = format!(
        "# Learned evaluation weights, board family {} (see src/search/eval/learned.rs).\n\
         # Made by: {}\n\
         # {} positions ({} to fit, {} held out by game{}), K = {:.6}, lambda {}, {} epochs, {:.0} s.\n\
         # Loss (mean squared error of sigmoid(K * eval) against the target), fit / held out:\n\
         #   start ({}) {:.6} / {:.6}; hand weights {:.6} / {:.6}; these weights {:.6} / {:.6}.\n",
        report.family.name(),
        command,
        report.positions,
        report.train,
        report.validation,
        if args.drop_adjudicated {
            format!(
                "; {} from games the length limit ended left out",
                report.dropped
            )
        } else {
            String::new()
        },
        report.k,
        args.lambda,
        args.epochs,
        secs,
        args.init,
        report.loss_before.0,
        report.loss_before.1,
        report.loss_hand.0,
        report.loss_hand.1,
        report.loss_after.0,
        report.loss_after.1,
    );
    text.push_str(&report.weights.to_text());
    std::fs::write(&args.out, &text).map_err(|e| format!("{}: {e}", args.out))?;
    say!("{}", text.trim_end());
    Ok(())
}

#[derive(Args, Debug)]
pub struct TrainArgs {
    /// Data files written by `konakis datagen` (all of one board family).
    #[arg(long, num_args = 1.., required = true)]
    pub data: Vec<String>,
    /// The board family: corner7, edge9, corner9, corner11, corner11-plain or ashton
    /// (default: the data's).
    #[arg(long)]
    pub family: Option<String>,
    /// Hidden neurons per side.
    #[arg(long, default_value_t = 256)]
    pub hidden: usize,
    /// Passes over the fit set.
    #[arg(long, default_value_t = 30)]
    pub epochs: usize,
    /// Weight of the search score in the target, against the game's result.
    #[arg(long, default_value_t = 0.5)]
    pub lambda: f64,
    /// Fit how search scores map to results (a scale and the score at which the
    /// sides are even) before blending them in, instead of the fixed scale.
    #[arg(long)]
    pub calibrate: bool,
    /// Adam's step at the start (it falls linearly to a tenth of it).
    #[arg(long, default_value_t = 0.001)]
    pub lr: f64,
    /// Positions per gradient step.
    #[arg(long, default_value_t = 4096)]
    pub batch: usize,
    /// Share of games held out to measure the fit on.
    #[arg(long, default_value_t = 0.1)]
    pub validation: f64,
    /// Show every position as it stands (no symmetry augmentation).
    #[arg(long)]
    pub no_augment: bool,
    /// Seed of the initial weights, the order and the validation split.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where to write the net (a .nnue file, see src/search/eval/nnue.rs).
    #[arg(long)]
    pub out: String,
}

pub fn run_train(args: &TrainArgs) -> Result<(), String> {
    use crate::learn::train::{self, TrainConfig};
    let family = args.family.as_deref().map(str::parse).transpose()?;
    let cfg = TrainConfig {
        data: args.data.clone(),
        family,
        hidden: args.hidden,
        epochs: args.epochs,
        lambda: args.lambda,
        calibrate: args.calibrate,
        seed: args.seed,
        learning_rate: args.lr,
        batch: args.batch,
        validation: args.validation,
        augment: !args.no_augment,
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        about: command_line(),
    };
    let started = Instant::now();
    let report = train::run(&cfg)?;
    std::fs::write(&args.out, report.net.to_bytes()).map_err(|e| format!("{}: {e}", args.out))?;
    let (fit, held) = report.epoch_losses.last().copied().unwrap_or_default();
    say!(
        "net {} {}x2 written to {}: {} positions ({} to fit, {} held out by game), {} epochs in {:.0} s",
        report.family.name(),
        args.hidden,
        args.out,
        report.positions,
        report.train,
        report.validation,
        args.epochs,
        started.elapsed().as_secs_f64()
    );
    say!(
        "loss (mean squared error of sigmoid(output) against the target): fit {fit:.6}, held out {held:.6}, held out after quantisation {:.6}",
        report.quantised_loss
    );
    let c = report.calibration;
    say!(
        "search scores read as sigmoid({:.6} * (score - ({:.0}))), defenders' view{}",
        c.k,
        c.even,
        if args.calibrate { " (fitted)" } else { "" }
    );
    Ok(())
}

#[derive(Args, Debug)]
pub struct PredictArgs {
    /// Games in the CSV format of ../shared/cases/real/.
    #[arg(long)]
    pub games: String,
    /// Rule preset the games were played under (the games of
    /// ../shared/cases/real/ are copenhagen).
    #[arg(long)]
    pub variant: String,
    /// Override one rule option (repeatable).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rules: Vec<String>,
    /// The position judged: after this many plies (40: move 20 of each side).
    #[arg(long, default_value_t = 40)]
    pub plies: usize,
    /// A net to judge beside the hand and learned evaluations.
    #[arg(long)]
    pub evalfile: Option<String>,
}

pub fn run_predict(args: &PredictArgs) -> Result<(), String> {
    let (preset, overrides) = RuleArgs {
        variant: args.variant.clone(),
        rules: args.rules.clone(),
    }
    .parts()?;
    let net = args
        .evalfile
        .as_deref()
        .map(crate::search::eval::nnue::Network::load)
        .transpose()?
        .map(std::sync::Arc::new);
    let r = crate::learn::predict::run(&args.games, preset, &overrides, args.plies, net)?;
    say!(
        "{} games judged after {} plies ({} skipped: no winner, or over by then); the defenders won {:.1}%",
        r.games,
        args.plies,
        r.skipped,
        100.0 * r.defenders_won as f64 / r.games.max(1) as f64
    );
    for p in &r.evaluations {
        say!(
            "{:<24} predicted the winner of {:>5} of {:>5} games: {:.1}%",
            p.evaluation,
            p.correct,
            p.games,
            100.0 * p.accuracy()
        );
    }
    Ok(())
}

#[derive(Args, Debug)]
pub struct DatagenArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Games to play.
    #[arg(long, default_value_t = 100)]
    pub games: usize,
    /// Nodes searched per move (one search thread each).
    #[arg(long, default_value_t = 5000)]
    pub nodes: u64,
    /// Nodes per move for the attackers, if not --nodes (a stronger side makes
    /// data in which both sides win, for rule sets that self-play finds one-sided).
    #[arg(long)]
    pub attacker_nodes: Option<u64>,
    /// Games played at once (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// random:<plies> (random moves from the start) or a file of openings.
    #[arg(long, default_value = "random:8")]
    pub openings: String,
    /// Random plies after each opening, so that an openings file gives more
    /// distinct games than it has lines (with random:N, N more plies).
    #[arg(long, default_value_t = 0)]
    pub random_plies: u32,
    /// Seed: the same seed gives the same file.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A game still going after this many plies is scored a draw.
    #[arg(long, alias = "maxplies", default_value_t = 600)]
    pub max_plies: u32,
    /// The evaluation both sides play with (option Eval: learned, hand, nnue).
    #[arg(long)]
    pub eval: Option<String>,
    /// A net for --eval nnue (option EvalFile).
    #[arg(long)]
    pub evalfile: Option<String>,
    /// The data file (appended to if it exists; it must hold the same rules).
    #[arg(long, required_unless_present = "stats")]
    pub out: Option<String>,
    /// Print a data file's positions, results and score histogram instead.
    #[arg(long, value_name = "FILE", conflicts_with = "out")]
    pub stats: Option<String>,
    /// Merge these data files (of one rule set: the shards of a cluster
    /// run) into --out, instead of playing games.
    #[arg(long, value_name = "FILE", num_args = 1.., requires = "out")]
    pub merge: Vec<String>,
    /// Append the positions of games people played instead (a CSV in the
    /// format of ../shared/cases/real/; no search scores).
    #[arg(long, value_name = "CSV")]
    pub import_games: Option<String>,
}

pub fn run_datagen(args: &DatagenArgs) -> Result<(), String> {
    use crate::learn::datagen::{self, DatagenConfig, Openings};
    if let Some(path) = &args.stats {
        say!("{}", datagen::stats(path)?.trim_end());
        return Ok(());
    }
    if !args.merge.is_empty() {
        let out = args.out.clone().unwrap_or_default();
        let s = datagen::merge(&args.merge, &out)?;
        say!(
            "{} games, {} positions from {} files merged into {out}",
            s.games,
            s.positions,
            args.merge.len()
        );
        return Ok(());
    }
    let (preset, overrides) = args.rules.parts()?;
    if let Some(csv) = &args.import_games {
        let out = args.out.clone().unwrap_or_default();
        let s = datagen::import_games(csv, preset, &overrides, &out)?;
        say!(
            "{} games, {} positions imported from {csv} to {out}",
            s.games,
            s.positions
        );
        return Ok(());
    }
    let rules = Rules::build(preset, &overrides)?;
    let openings = match args.openings.strip_prefix("random:") {
        Some(n) => Openings::Random(
            n.parse()
                .map_err(|_| format!("--openings: bad ply count '{n}'"))?,
        ),
        None => Openings::List(crate::runner::file_openings(&rules, &args.openings)?),
    };
    let threads = match args.threads {
        Some(0) => return Err("--threads must be at least 1".into()),
        Some(t) => t,
        None => std::thread::available_parallelism().map_or(1, |n| n.get()),
    };
    if let Some(eval) = &args.eval {
        eval_name(eval)?;
    }
    if let Some(path) = &args.evalfile {
        crate::search::eval::nnue::Network::load(path).map_err(|e| format!("--evalfile: {e}"))?;
    }
    let cfg = DatagenConfig {
        preset,
        overrides,
        games: args.games,
        nodes: args.nodes,
        attacker_nodes: args.attacker_nodes,
        threads,
        openings,
        random_plies: args.random_plies,
        seed: args.seed,
        max_plies: args.max_plies,
        out: args.out.clone().unwrap_or_default(),
        progress: std::io::IsTerminal::is_terminal(&std::io::stderr()),
        engine_options: [("Eval", &args.eval), ("EvalFile", &args.evalfile)]
            .into_iter()
            .filter_map(|(name, v)| v.as_ref().map(|v| (name.to_string(), v.clone())))
            .collect(),
    };
    let started = Instant::now();
    let summary = datagen::run(&cfg)?;
    let secs = started.elapsed().as_secs_f64();
    say!(
        "{} games, {} positions in {:.1} s ({:.0} positions/s) appended to {}",
        summary.games,
        summary.positions,
        secs,
        summary.positions as f64 / secs.max(1e-9),
        cfg.out
    );
    Ok(())
}

#[derive(Args, Debug)]
pub struct MatchArgs {
    /// An engine, given twice: cmd=<path> [name=<n>] [arg=<a>]... [option.<Name>=<v>]... [proto=tei|otep]
    #[arg(long = "engine", value_name = "KEY=VALUE...", required = true)]
    pub engines: Vec<String>,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Number of games (rounded up to pairs with --repeat).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// Clock per side: <base>+<inc> in seconds, e.g. 10+0.1.
    #[arg(long)]
    pub tc: Option<String>,
    /// Fixed time per move in ms (instead of --tc).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Fixed depth per move (instead of --tc).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Fixed nodes per move (instead of --tc).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// random:<plies> for random balanced openings, or a file of openings.
    #[arg(long, default_value = "random:4")]
    pub openings: String,
    /// Play every opening twice with sides swapped (results then count in pairs).
    #[arg(long)]
    pub repeat: bool,
    /// Sequential test: elo0=<a> elo1=<b> alpha=<x> beta=<y>; stops when decided.
    #[arg(long, num_args = 4, value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Write one record per game to this file (read back with `konakis replay`).
    #[arg(long)]
    pub records: Option<String>,
    /// Seed for random openings.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Milliseconds an engine may overrun its clock before losing on time.
    #[arg(long, default_value_t = 100)]
    pub timemargin: u64,
    /// Milliseconds an engine without a clock may think before it counts as stalled.
    #[arg(long, default_value_t = 60_000)]
    pub stall: u64,
    /// A game still going after this many plies is a draw ('adjudicated-length'; 0: never).
    #[arg(long, alias = "max-plies", default_value_t = 600)]
    pub maxplies: u32,
    /// movenumber=N movecount=M score=S: after ply N, when both engines' scores
    /// stayed within ±S for their last M moves each, a draw; or 'off' (the default).
    #[arg(long, num_args = 1..=3, value_name = "KEY=VALUE")]
    pub draw: Option<Vec<String>>,
    /// K/N: play only the K-th (from 0) of N disjoint slices of the openings
    /// (for array jobs; merge the records with `konakis stats`).
    #[arg(long, value_name = "K/N")]
    pub shard: Option<String>,
    /// movecount=M score=S [twosided=true]: an engine whose score stayed at or
    /// below -S for its last M moves (and, two-sided, its opponent's at or above
    /// +S) loses; or 'off'. Default: movecount=4 score=1500 twosided=true.
    #[arg(long, num_args = 1..=3, value_name = "KEY=VALUE")]
    pub resign: Option<Vec<String>>,
}

#[derive(Args, Debug)]
pub struct SpsaArgs {
    /// The engine tuned (it plays itself): cmd=<path> [arg=<a>]... [option.<Name>=<v>]...
    #[arg(long = "engine", value_name = "KEY=VALUE...", required = true)]
    pub engine: String,
    #[command(flatten)]
    pub rules: RuleArgs,
    /// Clock per side: <base>+<inc> in seconds.
    #[arg(long, default_value = "1+0.01")]
    pub tc: String,
    /// Iterations (each plays --games games, in pairs).
    #[arg(long, default_value_t = 1000)]
    pub iterations: usize,
    /// Games per iteration (rounded up to pairs).
    #[arg(long, default_value_t = 2)]
    pub games: usize,
    /// Games played at once.
    #[arg(long, default_value_t = 1)]
    pub concurrency: usize,
    /// A number to tune, by name (repeatable; default: all of them, see
    /// `src/search/params.rs`).
    #[arg(long = "param", value_name = "NAME")]
    pub params: Vec<String>,
    /// The learning rate at the last iteration.
    #[arg(long = "r-end", default_value_t = 0.002)]
    pub r_end: f64,
    /// Random opening plies.
    #[arg(long, default_value_t = 4)]
    pub openings: u32,
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Append each iteration's numbers to this file.
    #[arg(long)]
    pub log: Option<String>,
}

#[derive(Args, Debug)]
pub struct ReplayArgs {
    /// Records files written by `konakis match --records`.
    #[arg(required = true)]
    pub files: Vec<String>,
    /// Print each game in OpenTafl's game-record format instead.
    #[arg(long)]
    pub opentafl: bool,
}

#[derive(Args, Debug)]
pub struct OtepArgs {
    /// Milliseconds per move when the host sends no clock.
    #[arg(long, default_value_t = 3000)]
    pub movetime: u64,
    /// Search threads (Lazy SMP).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// Hash table size in MiB.
    #[arg(long, default_value_t = 64)]
    pub hash: usize,
}

/// Joins the words after each `--engine` (up to the next `--option`) into
/// one argument, so that `--engine cmd=x name=y` reads like cutechess-cli.
pub const ENGINE_WORD_SEPARATOR: char = '\u{1f}';

pub fn group_engine_words(args: Vec<String>) -> Vec<String> {
    let mut out = Vec::new();
    let mut iter = args.into_iter().peekable();
    while let Some(a) = iter.next() {
        if a == "--engine" {
            out.push(a);
            let mut words = Vec::new();
            while let Some(next) = iter.peek() {
                if next.starts_with("--") {
                    break;
                }
                words.push(iter.next().unwrap_or_default());
            }
            out.push(words.join(&ENGINE_WORD_SEPARATOR.to_string()));
        } else {
            out.push(a);
        }
    }
    out
}

pub fn run_match(args: &MatchArgs) -> Result<(), String> {
    use crate::runner::{self, MatchConfig, OpeningSource, TimeControl};
    if args.engines.len() != 2 {
        return Err(format!(
            "match needs exactly two --engine, got {}",
            args.engines.len()
        ));
    }
    let words =
        |g: &String| -> Vec<String> { g.split(ENGINE_WORD_SEPARATOR).map(String::from).collect() };
    let engines = [
        crate::runner::player::EngineSpec::parse(&words(&args.engines[0]))?,
        crate::runner::player::EngineSpec::parse(&words(&args.engines[1]))?,
    ];
    let mut engines = engines;
    if engines[0].name == engines[1].name {
        engines[0].name.push_str("-1");
        engines[1].name.push_str("-2");
    }
    let (variant, overrides) = args.rules.parts()?;
    let limits = [
        args.tc.is_some(),
        args.movetime.is_some(),
        args.depth.is_some(),
        args.nodes.is_some(),
    ];
    if limits.iter().filter(|x| **x).count() != 1 {
        return Err("give exactly one of --tc, --movetime, --depth, --nodes".into());
    }
    let tc = if let Some(tc) = &args.tc {
        TimeControl::parse_tc(tc)?
    } else if let Some(ms) = args.movetime {
        TimeControl::MoveTime(ms.max(1))
    } else if let Some(d) = args.depth {
        TimeControl::Depth(d.clamp(1, 100))
    } else {
        TimeControl::Nodes(args.nodes.unwrap_or(1000).max(1))
    };
    let openings = match args.openings.strip_prefix("random:") {
        Some(n) => OpeningSource::Random(
            n.parse()
                .map_err(|_| format!("--openings: bad ply count '{n}'"))?,
        ),
        None => OpeningSource::File(args.openings.clone()),
    };
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let shard = args.shard.as_deref().map(parse_shard).transpose()?;
    use crate::runner::adjudication::{parse_draw, parse_resign, Adjudication};
    let defaults = Adjudication::default();
    let adjudication = Adjudication {
        max_plies: args.maxplies,
        draw: match &args.draw {
            Some(words) => parse_draw(words)?,
            None => defaults.draw,
        },
        resign: match &args.resign {
            Some(words) => parse_resign(words)?,
            None => defaults.resign,
        },
    };
    let cfg = MatchConfig {
        engines,
        variant,
        overrides,
        games: args.games,
        concurrency: args.concurrency,
        tc,
        openings,
        repeat: args.repeat,
        sprt,
        records: args.records.clone(),
        seed: args.seed,
        time_margin: args.timemargin,
        stall: std::time::Duration::from_millis(args.stall.max(100)),
        quiet: false,
        adjudication,
        shard,
    };
    cfg.rules()?;
    let outcome = runner::run_match(&cfg)?;
    say!("{}", runner::report(&cfg, &outcome).trim_end());
    Ok(())
}

/// `konakis spsa`: tunes, printing each iteration's numbers, and at the end
/// the engine options that play the result.
pub fn run_spsa(args: &SpsaArgs) -> Result<(), String> {
    use crate::runner::spsa::{self, SpsaConfig};
    use crate::runner::{adjudication::Adjudication, MatchConfig, OpeningSource, TimeControl};
    let words: Vec<String> = args
        .engine
        .split(ENGINE_WORD_SEPARATOR)
        .map(String::from)
        .collect();
    let engine = crate::runner::player::EngineSpec::parse(&words)?;
    let (variant, overrides) = args.rules.parts()?;
    let tuned = spsa::tunables(&args.params)?;
    if !(args.r_end > 0.0 && args.r_end < 1.0) {
        return Err("--r-end must be between 0 and 1".into());
    }
    let base = MatchConfig {
        engines: [engine.clone(), engine.clone()],
        variant,
        overrides,
        games: args.games.max(2),
        concurrency: args.concurrency,
        tc: TimeControl::parse_tc(&args.tc)?,
        openings: OpeningSource::Random(args.openings),
        repeat: true,
        sprt: None,
        records: None,
        seed: args.seed,
        time_margin: 100,
        stall: std::time::Duration::from_secs(60),
        quiet: true,
        adjudication: Adjudication::default(),
        shard: None,
    };
    base.rules()?;
    let cfg = SpsaConfig {
        base,
        engine,
        tuned: tuned.clone(),
        iterations: args.iterations,
        r_end: args.r_end,
        log: args.log.clone(),
    };
    let names: Vec<&str> = tuned.iter().map(|t| t.name).collect();
    say!("# iteration result {}", names.join(" "));
    let theta = spsa::run_spsa(&cfg, |step| {
        let values: Vec<String> = step.theta.iter().map(|v| format!("{v:.2}")).collect();
        say!("{} {} {}", step.iteration, step.result, values.join(" "));
    })?;
    say!("# tuned: {}", spsa::options_text(&tuned, &theta));
    Ok(())
}

/// This run's command line, as `konakis …`, for the headers of files it
/// writes (so each says how it was made).
fn command_line() -> String {
    let mut words: Vec<String> = std::env::args()
        .skip(1)
        .map(|w| {
            if w.is_empty() || w.contains(char::is_whitespace) || w.contains(['\'', '"']) {
                format!("'{}'", w.replace('\'', "'\\''"))
            } else {
                w
            }
        })
        .collect();
    words.insert(0, "konakis".into());
    words.join(" ")
}

/// `elo0=… elo1=… alpha=… beta=…`.
fn parse_sprt(words: &[String]) -> Result<crate::runner::stats::Sprt, String> {
    use crate::runner::{key_values, number};
    let v = key_values("--sprt", words, &["elo0", "elo1", "alpha", "beta"])?;
    let s = crate::runner::stats::Sprt {
        elo0: number("--sprt", "elo0", v[0])?,
        elo1: number("--sprt", "elo1", v[1])?,
        alpha: number("--sprt", "alpha", v[2])?,
        beta: number("--sprt", "beta", v[3])?,
    };
    if !(0.0 < s.alpha && s.alpha < 0.5 && 0.0 < s.beta && s.beta < 0.5 && s.elo0 < s.elo1) {
        return Err("--sprt: need elo0 < elo1 and 0 < alpha, beta < 0.5".into());
    }
    Ok(s)
}

/// `K/N`, shard K (from 0) of N.
fn parse_shard(text: &str) -> Result<(usize, usize), String> {
    let bad = || format!("--shard: expected K/N with 0 <= K < N, not '{text}'");
    let (k, n) = text.split_once('/').ok_or_else(bad)?;
    let (k, n): (usize, usize) = (k.parse().map_err(|_| bad())?, n.parse().map_err(|_| bad())?);
    if k >= n {
        return Err(bad());
    }
    Ok((k, n))
}

pub fn run_stats(args: &StatsArgs) -> Result<(), String> {
    let sprt = args.sprt.as_deref().map(parse_sprt).transpose()?;
    let mut records = None;
    if !args.files.is_empty() {
        let (head, tally, stop) = crate::runner::merged_tally(&args.files, sprt)?;
        say!(
            "{}",
            crate::runner::report_tally(&head, &tally, stop).trim_end()
        );
        records = Some(tally);
    }
    if !args.pairs.is_empty() {
        let report = crate::runner::carried_pairs_report(&args.pairs, records.as_ref(), sprt)?;
        say!("{}", report.trim_end());
    }
    Ok(())
}

pub fn run_replay(args: &ReplayArgs) -> Result<(), String> {
    use crate::records::game::GameRecord;
    let mut bad = 0;
    let mut n = 0;
    for file in &args.files {
        let text = crate::runner::read_text(file, "a records file")?;
        for (i, line) in text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
        {
            n += 1;
            let rec = GameRecord::parse(line).map_err(|e| format!("{}:{}: {e}", file, i + 1))?;
            if args.opentafl {
                match rec.to_opentafl() {
                    Ok(text) => say!("{text}"),
                    Err(e) => {
                        bad += 1;
                        eprintln!("game {}: MISMATCH: {e}", rec.number);
                    }
                }
                continue;
            }
            match rec.replay() {
                Ok(game) => say!(
                    "game {}: ok, {} plies, {}",
                    rec.number,
                    game.moves().len(),
                    rec.winner.map(|s| s.name()).unwrap_or("draw").to_string()
                        + " "
                        + rec.reason.name()
                ),
                Err(e) => {
                    bad += 1;
                    say!("game {}: MISMATCH: {e}", rec.number);
                }
            }
        }
    }
    if bad > 0 {
        return Err(format!(
            "{bad} of {n} records do not replay to their result"
        ));
    }
    if !args.opentafl {
        say!("{n} records replayed");
    }
    Ok(())
}

/// Rule selection shared by the subcommands.
#[derive(Args, Debug, Clone)]
pub struct RuleArgs {
    /// Rule preset: tablut, tablut-latin, tablut-1811, tablut-english, tablut-corner, brandubh, copenhagen, fetlar, ashton, hnefatafl-org-11, hnefatafl-org-7.
    #[arg(long, default_value = "tablut")]
    pub variant: String,
    /// Override one rule option, e.g. --rule ExitFort=false (repeatable; see docs/rules.md).
    #[arg(long = "rule", value_name = "NAME=VALUE")]
    pub rules: Vec<String>,
}

impl RuleArgs {
    /// The preset and its `--rule` overrides, as text pairs.
    pub fn parts(&self) -> Result<(Preset, Vec<(String, String)>), String> {
        let preset: Preset = self
            .variant
            .parse()
            .map_err(|e| format!("--variant: {e}"))?;
        let mut overrides = Vec::new();
        for r in &self.rules {
            let (k, v) = r
                .split_once('=')
                .ok_or_else(|| format!("--rule '{r}': expected NAME=VALUE"))?;
            overrides.push((k.trim().to_string(), v.trim().to_string()));
        }
        Ok((preset, overrides))
    }

    /// The rules these arguments name, checked.
    pub fn build(&self) -> Result<Rules, String> {
        let (preset, overrides) = self.parts()?;
        Rules::build(preset, &overrides)
    }
}

#[derive(Args, Debug)]
pub struct PerftArgs {
    #[command(flatten)]
    pub rules: RuleArgs,
    /// A position record (rank 1 first); default: the rules' start position.
    #[arg(long)]
    pub position: Option<String>,
    /// Side to move with --position: a or d (default a).
    #[arg(long)]
    pub side: Option<String>,
    /// Print the count below each root move.
    #[arg(long)]
    pub divide: bool,
    /// Make every move down to the last ply (the search's make path) instead
    /// of counting the last two plies at once.
    #[arg(long)]
    pub plain: bool,
    /// Depth in plies.
    pub depth: u32,
}

#[derive(Args, Debug)]
pub struct BenchArgs {
    /// Search depth for every bench position.
    pub depth: Option<u32>,
    /// Search threads (the signature is defined with 1).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// The evaluation: nnue (where a net fits the position's board family,
    /// else learned), learned (also called classic: the fitted weights,
    /// where the board family has them, else hand) or hand.
    #[arg(long, default_value = "nnue")]
    pub eval: String,
    /// A net file for --eval nnue (instead of the embedded nets).
    #[arg(long)]
    pub evalfile: Option<String>,
}

/// An `--eval` value, checked, in the words of the command line.
fn eval_name(value: &str) -> Result<&'static str, String> {
    crate::search::eval::EVAL_NAMES
        .iter()
        .copied()
        .find(|n| *n == value)
        .ok_or_else(|| {
            format!(
                "--eval takes {}, not '{value}'",
                crate::search::eval::EVAL_NAMES.join(", ")
            )
        })
}

pub fn run_bench(args: &BenchArgs) -> Result<(), String> {
    let depth = args
        .depth
        .map(|d| d as i32)
        .unwrap_or(crate::search::bench::DEFAULT_DEPTH);
    let max = crate::search::bench::MAX_DEPTH;
    if !(1..=max).contains(&depth) {
        return Err(format!("bench depth must be 1 to {max}, not {depth}"));
    }
    if !(1..=256).contains(&args.threads) {
        return Err(format!("--threads must be 1 to 256, not {}", args.threads));
    }
    let eval = eval_name(&args.eval)?;
    if let Some(path) = &args.evalfile {
        crate::search::eval::nnue::Network::load(path).map_err(|e| format!("--evalfile: {e}"))?;
    }
    let settings = crate::search::bench::BenchSettings {
        depth,
        threads: args.threads,
        eval,
        eval_file: args.evalfile.clone(),
    };
    let (nodes, time) = crate::search::bench::run_with(settings, |line| {
        say!(
            "position {:>2} {:<15} best {:<8} nodes {:>10} time {:>6} ms",
            line.index,
            line.preset.name(),
            line.best,
            line.nodes,
            line.time.as_millis()
        );
    })?;
    let nps = (nodes as f64 / time.as_secs_f64().max(1e-9)) as u64;
    say!("{nodes} nodes {nps} nps");
    Ok(())
}

pub fn run_perft(args: &PerftArgs) -> Result<(), String> {
    let max = crate::rules::perft::MAX_DEPTH;
    if !(1..=max).contains(&args.depth) {
        return Err(format!(
            "perft depth must be 1 to {max}, not {}",
            args.depth
        ));
    }
    let mut engine = Engine::new();
    engine.set_rules(args.rules.build()?);
    let start = match (&args.position, &args.side) {
        (Some(record), side) => {
            let side = side.as_deref().unwrap_or("a");
            side.parse::<Side>().map_err(|e| format!("--side: {e}"))?;
            let start = StartPoint::from_words(&[record.as_str(), side])
                .map_err(|e| format!("--position: {e}"))?;
            if let StartPoint::Position { setup, .. } = &start {
                let size = engine.rules().size();
                if setup.size != size {
                    return Err(format!(
                        "--position is a {0}x{0} board, but --variant {1} plays on {2}x{2}: name the rules it belongs to with --variant",
                        setup.size,
                        engine.rules().options().preset,
                        size
                    ));
                }
            }
            start
        }
        (None, Some(_)) => return Err("--side needs --position".into()),
        (None, None) => StartPoint::Initial,
    };
    engine.set_position::<&str>(&start, &[])?;
    let counting = if args.plain {
        Counting::LastPly
    } else {
        Counting::Replies
    };
    let started = Instant::now();
    let nodes = if args.divide {
        let mut total = 0;
        for (mv, n) in engine.perft(args.depth, counting) {
            say!("{mv} {n}");
            total += n;
        }
        total
    } else {
        engine.perft_count(args.depth, counting)
    };
    let secs = started.elapsed().as_secs_f64();
    say!(
        "time {:.3} s, {:.0} leaves/s",
        secs,
        nodes as f64 / secs.max(1e-9)
    );
    say!("nodes {nodes}");
    Ok(())
}
