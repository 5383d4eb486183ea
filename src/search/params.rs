//! Every tuning number of the search in one place, named. Each was set by
//! self-play measurement (docs/results/selfplay.md); change one and the
//! bench signature changes with it. Those in [`TUNABLES`] can also be set
//! at run time, as hidden `Tune<Name>` options, for `konakis spsa`.

/// The search numbers that can be tuned at run time: each is a hidden
/// engine option `Tune<Name>` (like Stockfish's `TUNE`), so that
/// `konakis spsa` can play engines with different values against each
/// other. The defaults are the values self-play measurement chose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tune {
    /// Quiescence: how many capture plies deep it goes before standing pat.
    QsearchMaxDepth,
    /// Reverse futility pruning: the deepest remaining depth it applies at.
    FutilityMaxDepth,
    /// Reverse futility pruning: the margin above beta per remaining ply.
    FutilityMarginPerPly,
    /// Late-move pruning: the deepest remaining depth it applies at.
    LmpMaxDepth,
    /// Late-move pruning: moves searched before quiet ones are pruned are
    /// `LmpBase + LmpFactor * depth²`.
    LmpBase,
    LmpFactor,
    /// Null move: the shallowest remaining depth it is tried at.
    NullMoveMinDepth,
    /// Null move: the reduction is `NullMoveReductionBase + depth /
    /// NullMoveReductionDivisor`.
    NullMoveReductionBase,
    NullMoveReductionDivisor,
    /// Aspiration windows: the first half-width.
    AspirationWindow,
    /// Late-move reductions: the shallowest remaining depth and the first
    /// move index they apply to.
    LmrMinDepth,
    LmrMinMoveIndex,
    /// Late-move reductions: `ln depth · ln index / (LmrDivisor / 100)`.
    LmrDivisor,
    /// King-threat extension: a defender move that opens a road for the
    /// king is searched one ply deeper while the line is shorter than this
    /// many plies beyond twice the iteration depth (so extensions cannot
    /// run away).
    ThreatExtensionSlack,
}

/// A tunable number: its name (the option is `Tune` + name), default,
/// range, and the step SPSA perturbs it by at the end of a session.
#[derive(Clone, Copy, Debug)]
pub struct Tunable {
    pub tune: Tune,
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
    pub step: f64,
}

const fn tunable(
    tune: Tune,
    name: &'static str,
    default: i32,
    min: i32,
    max: i32,
    step: f64,
) -> Tunable {
    Tunable {
        tune,
        name,
        default,
        min,
        max,
        step,
    }
}

/// Every tunable number, in the order of [`Tune`].
pub const TUNABLES: [Tunable; 14] = [
    tunable(Tune::QsearchMaxDepth, "QsearchMaxDepth", 8, 2, 16, 1.0),
    tunable(Tune::FutilityMaxDepth, "FutilityMaxDepth", 3, 1, 6, 0.5),
    tunable(
        Tune::FutilityMarginPerPly,
        "FutilityMarginPerPly",
        150,
        40,
        400,
        15.0,
    ),
    tunable(Tune::LmpMaxDepth, "LmpMaxDepth", 3, 1, 6, 0.5),
    tunable(Tune::LmpBase, "LmpBase", 8, 2, 24, 1.5),
    tunable(Tune::LmpFactor, "LmpFactor", 4, 1, 10, 0.75),
    tunable(Tune::NullMoveMinDepth, "NullMoveMinDepth", 3, 2, 6, 0.5),
    tunable(
        Tune::NullMoveReductionBase,
        "NullMoveReductionBase",
        2,
        1,
        4,
        0.5,
    ),
    tunable(
        Tune::NullMoveReductionDivisor,
        "NullMoveReductionDivisor",
        4,
        2,
        8,
        0.75,
    ),
    tunable(Tune::AspirationWindow, "AspirationWindow", 30, 8, 120, 5.0),
    tunable(Tune::LmrMinDepth, "LmrMinDepth", 3, 2, 5, 0.5),
    tunable(Tune::LmrMinMoveIndex, "LmrMinMoveIndex", 3, 1, 8, 0.75),
    tunable(Tune::LmrDivisor, "LmrDivisor", 220, 120, 400, 15.0),
    tunable(
        Tune::ThreatExtensionSlack,
        "ThreatExtensionSlack",
        8,
        2,
        16,
        1.0,
    ),
];

const _: () = {
    let mut i = 0;
    while i < TUNABLES.len() {
        assert!(TUNABLES[i].tune as usize == i);
        assert!(TUNABLES[i].min <= TUNABLES[i].default && TUNABLES[i].default <= TUNABLES[i].max);
        i += 1;
    }
};

/// The tunable numbers a search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchParams([i32; TUNABLES.len()]);

impl Default for SearchParams {
    fn default() -> Self {
        let mut values = [0; TUNABLES.len()];
        for (v, t) in values.iter_mut().zip(&TUNABLES) {
            *v = t.default;
        }
        SearchParams(values)
    }
}

impl SearchParams {
    #[inline]
    pub fn get(&self, tune: Tune) -> i32 {
        self.0[tune as usize]
    }

    /// The tunable named `name` (without `Tune`, any case).
    pub fn find(name: &str) -> Option<&'static Tunable> {
        TUNABLES.iter().find(|t| t.name.eq_ignore_ascii_case(name))
    }

    /// Sets one number, kept within its range.
    pub fn set(&mut self, tune: Tune, value: i32) {
        let t = &TUNABLES[tune as usize];
        self.0[tune as usize] = value.clamp(t.min, t.max);
    }

    /// Late-move pruning: how many moves are searched before quiet ones
    /// are pruned, by remaining depth.
    #[inline]
    pub fn late_move_limit(&self, depth: i32) -> usize {
        (self.get(Tune::LmpBase) + self.get(Tune::LmpFactor) * depth * depth).max(0) as usize
    }

    /// Null move: the depth reduction.
    #[inline]
    pub fn null_move_reduction(&self, depth: i32) -> i32 {
        self.get(Tune::NullMoveReductionBase) + depth / self.get(Tune::NullMoveReductionDivisor)
    }

    /// The late-move reduction of the `index`-th move at remaining `depth`.
    pub fn lmr_reduction(&self, depth: usize, index: usize) -> u8 {
        let divisor = self.get(Tune::LmrDivisor) as f64 / 100.0;
        (0.5 + (depth as f64).ln() * (index as f64).ln() / divisor) as u8
    }
}

/// Null move: the side to move needs at least this many pieces (fewer
/// pieces make zugzwang-like positions likely).
pub const NULL_MOVE_MIN_PIECES: u32 = 4;
/// Null move: below this remaining depth a fail-high is trusted without a
/// verification search.
pub const NULL_MOVE_VERIFY_DEPTH: i32 = 8;

/// Aspiration windows: the shallowest depth they are used at, how much a
/// failed window widens, and the half-width beyond which the window is
/// dropped (the first half-width is [`Tune::AspirationWindow`]).
pub const ASPIRATION_MIN_DEPTH: i32 = 4;
pub const ASPIRATION_WIDENING: i32 = 3;
pub const ASPIRATION_MAX_WINDOW: i32 = 1000;

/// History: the bonus of a quiet move that cuts off, and the bound every
/// score is pulled back towards (gravity).
#[inline]
pub fn history_bonus(depth: i32) -> i32 {
    depth * depth
}
pub const HISTORY_MAX: i32 = 16384;
/// History: at each new search of a game every entry is shifted right by
/// this (halved), so the last move's findings order moves but count less.
pub const HISTORY_AGE_SHIFT: u32 = 1;

/// Transposition table: a new entry for a stored key replaces the old one
/// unless the old one, from the same search and not exact, is deeper by at
/// least this many plies.
pub const TT_SAME_KEY_DEPTH_MARGIN: i32 = 3;

/// Move ordering bonuses, added to the history score: the TT move first,
/// then captures, king moves that open a road, road blocks, killers.
pub const ORDER_TT_MOVE: i32 = 10_000_000;
/// The deepest node that scores its quiet moves only once picking reaches
/// them. Above it the subtrees searched meanwhile, and the history journal
/// that keeps their scores as they were, grow large, and such nodes are
/// few.
pub const QUIETS_DEFERRED_MAX_DEPTH: i32 = 8;
pub const ORDER_CAPTURE: i32 = 1_000_000;
pub const ORDER_KING_TO_ROAD: i32 = 950_000;
pub const ORDER_ROAD_BLOCK: i32 = 900_000;
pub const ORDER_KILLER_1: i32 = 800_000;
pub const ORDER_KILLER_2: i32 = 700_000;

/// Time management: the moves a game is assumed to have left when the
/// protocol does not say (tafl games are long: Copenhagen self-play runs
/// 50 to 100 moves a side), and the range that guess is kept in.
pub const MOVES_TO_GO_DEFAULT: u32 = 50;
pub const MOVES_TO_GO_MAX: u32 = 80;
/// Time management: the overheads kept in hand for the moves to come are
/// at most this share of the clock, in percent (the second when the
/// increment does not cover the overhead).
pub const RESERVE_MAX_PERCENT: u32 = 20;
pub const RESERVE_MAX_PERCENT_SUDDEN_DEATH: u32 = 50;
/// Time management: the first move plans this share of the time of a
/// move in the middle game, growing to all of it at `OPENING_PLIES`, on
/// boards of at least `OPENING_MIN_BOARD` squares a side. Smaller boards
/// have short games decided in the opening: there the reduction lost
/// (tablut, 10 s + 0.1 s: the build without it scored +107 +- 39 against
/// the manager before 4381522, where the build with it scored -60 +- 50).
pub const OPENING_SCALE: f64 = 0.35;
pub const OPENING_PLIES: u32 = 20;
pub const OPENING_MIN_BOARD: usize = 11;
/// Time management: the hard limit is this many times the planned time,
/// and never more than `HARD_MAX_PERCENT` of the clock.
pub const HARD_LIMIT_FACTOR: u32 = 3;
pub const HARD_MAX_PERCENT: u32 = 10;
/// Time management: how much a best move that keeps changing stretches
/// the soft limit, per change (at most four changes count), and how many
/// iterations pass before one change is forgotten.
pub const BEST_MOVE_CHANGE_STRETCH: f64 = 0.25;
pub const BEST_MOVE_CHANGES_COUNTED: u32 = 4;
pub const BEST_MOVE_CHANGE_DECAY_DEPTHS: i32 = 4;
/// Time management: a best move unchanged for this many iterations
/// shrinks the soft limit to `STABLE_SCALE` of itself; a score that fell
/// by at least `FALLING_SCORE_CP` since the last iteration stretches it by
/// `FALLING_SCALE`.
pub const STABLE_ITERATIONS: u32 = 4;
pub const STABLE_SCALE: f64 = 0.7;
pub const FALLING_SCORE_CP: i32 = 30;
pub const FALLING_SCALE: f64 = 1.3;
/// Time management: the next iteration is assumed to take the last one's
/// time times the ratio of the last two, kept in this range; one that
/// would not end before the hard limit is not begun.
pub const ITERATION_GROWTH_MIN: f64 = 1.5;
pub const ITERATION_GROWTH_MAX: f64 = 4.0;
/// Time management: ms kept in hand besides the move overhead.
pub const CLOCK_SAFETY_MS: u64 = 5;

/// A repetition the rules make decisive (`mover-loses`, `defenders-lose`)
/// scores this, less the plies to it: a clear result, but below
/// `WIN_BOUND`, since it depends on the path and not on the position.
pub const REPETITION_WIN: i32 = 10_000;
