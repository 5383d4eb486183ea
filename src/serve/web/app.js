// @ts-check
// The page: a game tree on a board, played against Konakis or between
// people, analysed, reviewed, imported and exported. Every rule question
// goes to the server (/api/position); every search too (/api/analyse).

import { getJSON, postJSON, analyse, errorText } from "./api.js";
import { $ } from "./dom.js";
import { Board, splitMove } from "./board.js";
import { GameTree } from "./tree.js";
import * as Review from "./review.js";
import * as Persist from "./persist.js";
import { playMoveSound } from "./sound.js";
import { Clocks, formatClock } from "./clock.js";
import * as Records from "./records.js";
import { copyText } from "./records.js";
import { Editor } from "./editor.js";
import { drawMoveList } from "./movelist.js";
import { Analysis } from "./analysis.js";
import { ReviewPanel } from "./reviewpanel.js";


// Timings a test or a curious person can read (docs/results/serve.md).
const metrics = (/** @type {any} */ (window).konakisMetrics = {
  ready: null, // ms from navigation start to the first board drawn
  analyseClick: null, // performance.now() of the last "Start analysis"
  firstInfo: null, // ms from that click to its first info on the page
  infoEvents: 0, // info events shown since that click
  engineReplies: 0,
  lastReview: null, // {positions, seconds, finished} of the last review
});

const app = {
  variants: [],
  tree: null,
  current: null,
  players: { attackers: "human", defenders: "engine" },
  /** @type {{kind: string, ms?: number, base?: number, inc?: number}} */
  time: { kind: "movetime", ms: 2000 },
  clocks: null, // Clocks (clock.js) in a game on the clock
  gameActive: false, // a game is being played: clocks run, Konakis moves
  gameEnd: null, // a result the rules do not give: {winner, reason, text}
  engine: null, // the engine's running move search: {controller, node, id, info}
  flipped: false,
  noteAt: null, // the node a green note was given at: moving on clears it
};

let board;

const editor = new Editor({
  say,
  render: () => render(),
  variantStart: () => variantInfo(app.tree.setup.variant).start,
  setUp: (start) => {
    editor.end();
    return setUpFrom(start);
  },
  showTab: (name) => showTab(name),
  currentRecord: () => (app.current && app.current.pos ? app.current.pos.position : null),
  copyText,
});

// ---------- messages ----------

// A refusal or an error (red), or with `info` a note (green).
function say(text, info = false) {
  $("message").textContent = text || "";
  $("message").classList.toggle("info", info);
  app.noteAt = info && text ? app.current : null;
}

function sideName(side) {
  return side === "attackers" ? "Attackers" : "Defenders";
}

// ---------- positions ----------

async function ensure(node) {
  if (node.pos) return node.pos;
  if (!node.posPromise) {
    node.posPromise = postJSON("/api/position", app.tree.request(node)).then((pos) => {
      node.pos = pos;
      nameMoves(node, pos);
      return pos;
    });
    node.posPromise.catch(() => (node.posPromise = null));
  }
  return node.posPromise;
}

// Fills the notation (with captures) of every move up to `node`.
function nameMoves(node, pos) {
  let x = node;
  for (let i = pos.moves.length - 1; i >= 0 && x && x.parent; i--, x = x.parent) {
    x.notation = pos.moves[i].notation;
  }
}

function mainTip() {
  const line = app.tree.mainLine();
  return line[line.length - 1];
}

function variantInfo(name) {
  return app.variants.find((v) => v.name === name);
}

// ---------- the game ----------

const analysis = new Analysis({
  current: () => app.current,
  request: (node) => app.tree.request(node),
  ensure,
  blocked: () => !!(app.engine || reviews.running),
  setArrows: (arrows) => board.setArrows(arrows),
  showEval,
  chanceOrScore,
  showSoldiers,
  playLine,
  showBetterMove,
  say,
  render: () => render(),
  metrics,
});

const reviews = new ReviewPanel({
  current: () => app.current,
  setCurrent: (node) => setCurrent(node),
  request: (node) => app.tree.request(node),
  // A review pauses the game it reviews.
  pauseGame: () => {
    if (app.engine || (app.gameActive && !app.gameEnd && !(mainTip().pos && mainTip().pos.result))) {
      stopEngine();
      stopClock();
      app.gameActive = false;
      say("The game is paused for the review; New game starts another.", true);
    }
  },
  pauseAnalysis: () => analysis.pause(),
  resumeAnalysis: () => analysis.resume(),
  clearArrows: () => board.setArrows([]),
  say,
  render: () => render(),
  metrics,
});

function readSettings() {
  const opponent = $("opponent").value;
  app.players = {
    "engine-defenders": { attackers: "human", defenders: "engine" },
    "engine-attackers": { attackers: "engine", defenders: "human" },
    people: { attackers: "human", defenders: "human" },
    engines: { attackers: "engine", defenders: "engine" },
  }[opponent];
  if ($("time-kind").value === "clock") {
    const base = Math.max(0.1, parseFloat($("clock-minutes").value) || 5) * 60000;
    const inc = Math.max(0, parseFloat($("clock-increment").value) || 0) * 1000;
    app.time = { kind: "clock", base, inc };
  } else {
    const s = Math.max(0.1, parseFloat($("movetime").value) || 2);
    app.time = { kind: "movetime", ms: Math.round(s * 1000) };
  }
  localStorage.setItem("konakis.settings", JSON.stringify({
    opponent, timeKind: $("time-kind").value, movetime: $("movetime").value,
    minutes: $("clock-minutes").value, increment: $("clock-increment").value,
  }));
}

function restoreSettings() {
  try {
    const s = JSON.parse(localStorage.getItem("konakis.settings") || "null");
    if (!s) return;
    $("opponent").value = s.opponent || "engine-defenders";
    $("time-kind").value = s.timeKind || "movetime";
    $("movetime").value = s.movetime || "2";
    $("clock-minutes").value = s.minutes || "5";
    $("clock-increment").value = s.increment || "3";
  } catch {
    /* settings from an older page: ignore */
  }
  showTimeKind();
}

function showTimeKind() {
  const clock = $("time-kind").value === "clock";
  $("time-movetime").hidden = clock;
  $("time-clock").hidden = !clock;
}

// A new game of the chosen variant from `start`, played with the Play
// tab's settings (`play` false: a board to study, no clocks, no engine).
async function newGame({ variant = $("variant").value, rules = {}, start = "startpos", moves = [], play = true } = {}) {
  stopEngine();
  reviews.reset();
  app.tree = new GameTree({ variant, rules, start });
  app.gameEnd = null;
  let node = app.tree.root;
  for (const m of moves) node = app.tree.add(node, m);
  try {
    await ensure(node);
  } catch (e) {
    say(errorText(e));
    throw e;
  }
  await ensure(app.tree.root);
  if (play) {
    readSettings();
    app.gameActive = true;
    // The clocks start with the first move, as on lichess: changing the
    // rules or starting a game costs no one time.
    app.clocks = app.time.kind === "clock" ? new Clocks(app.time.base, app.time.inc) : null;
    if (app.clocks && node.parent) app.clocks.start(node.pos.side);
  } else {
    app.gameActive = false;
    app.clocks = null;
  }
  say("");
  setCurrent(node);
  maybeEngineMove();
}

// Whether the board holds moves a person could lose by starting afresh: a
// game under way, or any moves at all (an imported game, a study).
function worthKeeping() {
  if (!app.tree || !app.tree.root.children.length) return false;
  if (app.gameActive && !app.gameEnd && !(mainTip().pos && mainTip().pos.result)) return true;
  return !app.gameActive;
}

// Asks before the board's game is thrown away; true to go on.
function confirmDiscard(what) {
  if (!worthKeeping()) return true;
  const plies = mainTip().ply;
  return window.confirm(`${what} sets this game (${plies} ${plies === 1 ? "move" : "moves"}) aside for good. Go on?`);
}

function humanSide() {
  const humans = ["attackers", "defenders"].filter((s) => app.players[s] === "human");
  return humans.length === 1 ? humans[0] : null;
}

// Whether the person may move on the board now.
function canMove(node) {
  if (editor.active || !node.pos || node.pos.result) return false;
  if (!app.gameActive || node !== mainTip()) return true;
  if (app.gameEnd) return false;
  return app.players[node.pos.side] === "human";
}

async function playMove(node, move) {
  const request = app.tree.request(node);
  request.moves.push(move);
  let pos;
  try {
    pos = await postJSON("/api/position", request);
  } catch (e) {
    say(`${move}: ${errorText(e)}`);
    return null;
  }
  const wasTip = app.gameActive && node === mainTip();
  const played = pos.moves[pos.moves.length - 1];
  if ($("sound").checked) playMoveSound(played.captured.length > 0);
  const child = app.tree.add(node, move, played.notation);
  child.pos = pos;
  nameMoves(child, pos);
  if (wasTip) {
    app.tree.promote(child);
    if (app.clocks) app.clocks.moved(node.pos.side, !!pos.result);
  }
  say("");
  // Follow the game unless the person is looking elsewhere.
  if (app.current === node || !wasTip) setCurrent(child);
  else render();
  maybeEngineMove();
  return child;
}

// ---------- clocks ----------

// The time `side` has left, or null in a game without clocks.
function remaining(side) {
  return app.clocks ? app.clocks.remaining(side) : null;
}

function stopClock() {
  if (app.clocks) app.clocks.stop();
}

function tickClocks() {
  const c = app.clocks;
  $("clock-top").hidden = !c;
  $("clock-bottom").hidden = !c;
  if (!c) return;
  // The person's own clock is nearest them, at the bottom.
  const bottom = humanSide() || (app.flipped ? "attackers" : "defenders");
  const top = bottom === "attackers" ? "defenders" : "attackers";
  for (const [id, side] of [["clock-top", top], ["clock-bottom", bottom]]) {
    const box = $(id);
    const left = remaining(side);
    box.querySelector(".who").textContent = `${sideName(side)}${app.players[side] === "engine" ? " · Konakis" : ""}`;
    box.querySelector(".time").textContent = formatClock(left);
    box.classList.toggle("running", c.running === side);
    box.classList.toggle("low", left < 10000);
  }
  const loser = app.gameEnd ? null : c.flagged();
  if (loser) {
    stopEngine();
    endGame(loser === "attackers" ? "defenders" : "attackers", "time");
  }
}

function endGame(winner, reason) {
  const why = reason === "time" ? "time ran out" : "resignation";
  app.gameEnd = { winner, reason: reason === "time" ? "time" : "resigned", text: `the ${winner} win: ${why}` };
  stopClock();
  render();
}

// ---------- Konakis' moves ----------

function stopEngine() {
  if (app.engine) {
    app.engine.controller.abort();
    app.engine = null;
  }
}

function maybeEngineMove() {
  if (!app.gameActive || app.gameEnd || app.engine) return;
  const tip = mainTip();
  if (!tip.pos || tip.pos.result || app.players[tip.pos.side] !== "engine") return;
  const controller = new AbortController();
  const request = { ...app.tree.request(tip), multipv: 1 };
  if (app.time.kind === "clock") {
    request.clock = {
      atime: Math.max(1, Math.round(remaining("attackers"))),
      dtime: Math.max(1, Math.round(remaining("defenders"))),
      ainc: app.time.inc,
      dinc: app.time.inc,
    };
  } else {
    request.movetime = app.time.ms;
  }
  const search = { controller, node: tip, id: null, info: null };
  app.engine = search;
  analysis.pause();
  render();
  analyse(request, {
    queued: () => say("Another client's search has the engine: Konakis moves once it ends.", true),
    start: (d) => (search.id = d.search),
    info: (d) => {
      if (d.multipv === 1 && !d.bound) {
        search.info = d;
        tip.eval = { chance: Review.attackersChance(d.wdl, tip.pos.side), score: d.score, side: tip.pos.side };
        if (!analysis.on) showEval(tip.eval.chance, tip.eval.score, tip.eval.side);
        renderStatus();
      }
    },
  }, controller.signal)
    .then(async (best) => {
      if (app.engine !== search) return;
      app.engine = null;
      if (!best || app.gameEnd || mainTip() !== tip) return;
      if (best.best) {
        metrics.engineReplies++;
        const child = await playMove(tip, best.best);
        // The verdict stays on the board through the person's turn.
        if (child && tip.eval && !child.eval) child.eval = tip.eval;
        if (child && app.current === child) render();
      }
      analysis.resume();
    })
    .catch((e) => {
      if (app.engine === search) app.engine = null;
      say(`Konakis could not move: ${errorText(e)}`);
      render();
    });
}

async function moveNow() {
  if (!app.engine || app.engine.id === null) return;
  await postJSON("/api/stop", { search: app.engine.id }).catch((e) => say(errorText(e)));
}

function resign() {
  if (!app.gameActive || app.gameEnd) return;
  const tip = mainTip();
  if (!tip.pos || tip.pos.result) return;
  if (!window.confirm("Resign this game?")) return;
  const loser = humanSide() || tip.pos.side;
  stopEngine();
  endGame(loser === "attackers" ? "defenders" : "attackers", "resigned");
}

// Takes back the last move of the game (and Konakis' reply to it), or in a
// study the move on the board.
async function takeBack() {
  if (editor.active) return;
  stopEngine();
  if (app.gameActive) {
    let tip = mainTip();
    if (!tip.parent) return;
    const human = humanSide();
    const drop = () => {
      const parent = tip.parent;
      app.tree.remove(tip);
      tip = parent;
    };
    drop();
    while (tip.parent && human && tip.pos && tip.pos.side !== human) drop();
    app.gameEnd = null;
    if (app.clocks) {
      app.clocks.stop();
      app.clocks.start(tip.pos.side);
    }
    setCurrent(tip);
    maybeEngineMove();
  } else {
    const node = app.current;
    if (!node.parent) return;
    app.tree.remove(node);
    setCurrent(node.parent);
  }
}

// ---------- drawing ----------

function setCurrent(node) {
  if (app.noteAt && app.noteAt !== node) say("");
  app.current = node;
  if (app.tree && !node.pos) {
    ensure(node).then(() => app.current === node && render()).catch((e) => say(errorText(e)));
  }
  render();
  if (analysis.on) analysis.schedule();
  else analysis.clearDisplay();
}

function render() {
  const node = app.current;
  if (!node) return;
  board.editing = editor.active;
  if (editor.active) {
    const marks = node.pos ? node.pos.marks : variantInfo(app.tree.setup.variant).marks;
    board.show(editor.position(marks), { interactive: false });
  } else if (node.pos) {
    const last = node.move ? splitMove(node.move) : null;
    const captured = node.pos.moves.length ? node.pos.moves[node.pos.moves.length - 1].captured : [];
    board.show(node.pos, { interactive: canMove(node), lastMove: last, captured });
    if (metrics.ready === null) metrics.ready = performance.now();
  }
  renderStatus();
  renderMoves();
  tickClocks();
  if (!analysis.on && !app.engine) {
    if (node.review) showEval(node.review.chance, node.review.score, node.review.side);
    else if (node.pos && node.pos.result) showEval(Review.resultChance(node.pos.result), null, null);
    else if (node.eval) showEval(node.eval.chance, node.eval.score, node.eval.side);
    else showEval(null, null, null);
  }
  reviews.drawGraph(node);
  showBetterMove(node);
  $("undo").disabled = !node.parent && !(app.gameActive && mainTip().parent);
  $("move-now").disabled = !app.engine;
  $("resign").disabled = !app.gameActive || !!app.gameEnd || !!(mainTip().pos && mainTip().pos.result);
  $("nav-first").disabled = !node.parent;
  $("nav-back").disabled = !node.parent;
  $("nav-forward").disabled = !node.children.length;
  $("nav-last").disabled = !node.children.length;
  scheduleSave();
}

function renderStatus() {
  const node = app.current;
  let text = "";
  if (editor.active) {
    text = `Setting up a position: the ${editor.side === "a" ? "attackers" : "defenders"} to move`;
  } else if (!node.pos) {
    text = "";
  } else if (node.pos.result) {
    const t = node.pos.result.text;
    text = t.charAt(0).toUpperCase() + t.slice(1) + ".";
  } else if (app.gameEnd && node === mainTip()) {
    const t = app.gameEnd.text;
    text = t.charAt(0).toUpperCase() + t.slice(1) + ".";
  } else if (app.engine && node === app.engine.node) {
    const d = app.engine.info;
    text = `Konakis (${node.pos.side}) is thinking…` + (d ? ` depth ${d.depth}, ${chanceOrScore(Review.attackersChance(d.wdl, node.pos.side), d.score, node.pos.side)}` : "");
  } else {
    text = `${sideName(node.pos.side)} to move`;
    if (app.gameActive && node === mainTip() && app.players[node.pos.side] === "human" && humanSide()) text += " — your move";
    if (app.gameActive && node !== mainTip()) text += " (looking back: moves here start a variation)";
  }
  $("status").textContent = text;
}

// Whether numbers are shown as scores in soldiers rather than winning
// chances (the Analyse tab's toggle).
function showSoldiers() {
  return $("show-soldiers").checked;
}

// The chances as people read them ("attackers 62%"), or the score in
// soldiers when the toggle asks for it.
function chanceOrScore(chance, score, side) {
  if (showSoldiers() && score) return Review.formatScore(score, side);
  return Review.formatChance(chance);
}

// The evaluation bar: its dark part is the attackers' expected score; the
// label says who stands better and by how much, the tooltip the other form.
function showEval(chance, score, side) {
  const share = chance === null || chance === undefined ? 0.5 : chance;
  $("eval-fill").style.height = `${(app.flipped ? 1 - share : share) * 100}%`;
  $("eval-bar").classList.toggle("flipped", app.flipped);
  const soldiers = score ? Review.formatScore(score, side) : "";
  const chanceText = Review.shortChance(chance);
  $("eval-text").textContent = showSoldiers() && soldiers ? soldiers : chanceText;
  $("eval-bar").title = chance === null || chance === undefined
    ? "Winning chances: the dark part is the attackers' share"
    : `${Review.formatChance(chance)}${soldiers ? `; score ${soldiers} (soldiers, the attackers' view)` : ""}`;
}

// At a move the review marked, the better move as an arrow and its line.
function showBetterMove(node) {
  const r = node.review;
  const better = r && r.mark && r.better && !reviews.retry ? r.better : null;
  if (!analysis.on) board.setArrows(better ? [{ move: better, kind: "better" }] : []);
  const box = $("review-better");
  if (!box) return;
  box.hidden = !better;
  if (better) {
    $("review-better-text").textContent =
      `${node.notation || node.move}${r.sign} gave away ${Math.round(r.loss * 100)} points of the ${r.mover}' chances. Better: ${better}` +
      (r.line && r.line.length > 1 ? ` (${r.line.slice(0, 8).join(" ")})` : "");
    $("review-retry").disabled = !!reviews.running;
  }
}

function renderMoves() {
  const rootSide = app.tree.root.pos ? app.tree.root.pos.side : null;
  const info = variantInfo(app.tree.setup.variant);
  const firstSide = info ? info.first : "attackers";
  const tip = mainTip();
  drawMoveList($("moves"), {
    root: app.tree.root,
    current: app.current,
    offset: rootSide && rootSide !== firstSide ? 1 : 0,
    result: (tip.pos && tip.pos.result) || (app.gameActive && app.gameEnd) || null,
    onJump: setCurrent,
  });
}

// ---------- what survives a reload, and links ----------

let saveTimer = null;

// Saves the game soon (once for a burst of changes) and puts the line on
// the board and the move shown into the address.
function scheduleSave() {
  if (!app.tree || !app.current || editor.active) return;
  const hash = Persist.fragment(app.tree, app.current);
  if (location.hash !== hash) history.replaceState(null, "", hash);
  clearTimeout(saveTimer);
  saveTimer = setTimeout(saveNow, 300);
}

function saveNow() {
  if (!app.tree || !app.current) return;
  const c = app.clocks;
  Persist.save({
    tree: app.tree,
    current: app.current,
    extra: {
      game: {
        active: app.gameActive,
        players: app.players,
        time: app.time,
        end: app.gameEnd,
        clocks: c ? c.saved() : null,
      },
      review: reviews.nodes && !reviews.running
        ? { tip: Persist.pathOf(reviews.nodes[reviews.nodes.length - 1]), sides: reviews.sides || null, status: $("review-status").textContent }
        : null,
    },
  });
}

// Opens the saved game, or the one the address names (the saved one when
// it holds that line: it has the variations and reviews too). False when
// there is neither.
async function restore() {
  const link = Persist.parseFragment(location.hash);
  const saved = Persist.load();
  if (link && !(saved && Persist.holds(saved.tree, link))) {
    if (!variantInfo(link.variant)) return false;
    $("variant").value = link.variant;
    try {
      await newGame({ variant: link.variant, rules: link.rules, start: link.start, moves: link.moves, play: false });
    } catch {
      return false;
    }
    let node = app.tree.root;
    for (const m of link.moves.slice(0, link.ply)) node = node.children.find((c) => c.move === m) || node;
    setCurrent(node);
    say("Opened from the link: a board to study. Start a game from the Play tab.", true);
    return true;
  }
  if (!saved || !variantInfo(saved.tree.setup.variant)) return false;
  const g = saved.data.game || {};
  app.tree = saved.tree;
  try {
    await ensure(app.tree.root);
    const current = link ? Persist.nodeOfLink(saved.tree, link) : saved.current;
    await ensure(current);
    await ensure(mainTip());
    $("variant").value = app.tree.setup.variant;
    app.gameActive = !!g.active;
    app.players = g.players || app.players;
    app.time = g.time || app.time;
    app.gameEnd = g.end || null;
    app.clocks = g.clocks ? Clocks.restore(g.clocks) : null;
    const r = saved.data.review;
    if (r) {
      const tip = Persist.nodeAt(app.tree, r.tip);
      const line = tip.line();
      if (line.every((n) => n.review)) {
        reviews.nodes = line;
        reviews.sides = r.sides || null;
        reviews.showSummary();
        $("review-status").textContent = r.status || "";
      }
    }
    setCurrent(current);
    maybeEngineMove();
    return true;
  } catch {
    Persist.forget();
    return false;
  }
}

// ---------- analysis (analysis.js) ----------

// Adds a line of moves from `node` to the tree (as a variation when it
// differs) and shows its end.
async function playLine(node, moves) {
  const request = app.tree.request(node);
  request.moves.push(...moves);
  try {
    const pos = await postJSON("/api/position", request);
    let x = node;
    for (const m of moves) x = app.tree.add(x, m);
    x.pos = pos;
    nameMoves(x, pos);
    setCurrent(x);
  } catch (e) {
    say(errorText(e));
  }
}

// ---------- review (reviewpanel.js) ----------

// ---------- the board editor (editor.js) ----------

function beginEdit() {
  const pos = app.current.pos;
  if (!pos) return;
  stopEngine();
  analysis.pause();
  editor.begin(pos);
  render();
}

function endEdit() {
  editor.end();
  render();
  analysis.resume();
}

// Sets up the board from a start point (`<record> <a|d> [n n]`), under the
// current variant, or under the first one of the record's size.
async function setUpFrom(start) {
  const record = start.trim().split(/\s+/)[0];
  const size = record.split("/").length - 2;
  let variant = app.tree.setup.variant;
  if (variantInfo(variant).size !== size) {
    const other = app.variants.find((v) => v.size === size);
    if (!other) {
      say(size > 11
        ? `That board is ${size}x${size}: Konakis plays boards up to 11x11 (7x7, 9x9 and 11x11), not ${size}x${size}.`
        : `No rule set here has a ${size}x${size} board.`);
      return false;
    }
    variant = other.name;
  }
  try {
    await postJSON("/api/position", { variant, start, moves: [] });
  } catch (e) {
    say(errorText(e));
    return false;
  }
  if (variant !== $("variant").value) $("variant").value = variant;
  await newGame({ variant, start, play: false });
  say(`Position set up (${variant}). Play moves on it, analyse it, or start a game from the Play tab.`, true);
  return true;
}


// ---------- wiring ----------

function showTab(name) {
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("button[data-tab]"))) b.classList.toggle("active", b.dataset.tab === name);
  for (const t of ["play", "analyse", "review", "edit"]) $(`tab-${t}`).hidden = t !== name;
  if (name === "edit") beginEdit();
  else if (editor.active) endEdit();
}

function navigate(where) {
  const node = app.current;
  if (where === "first") setCurrent(app.tree.root);
  else if (where === "back" && node.parent) setCurrent(node.parent);
  else if (where === "forward" && node.children.length) setCurrent(node.children[0]);
  else if (where === "last") {
    const c = node.continuation();
    setCurrent(c[c.length - 1]);
  }
}

function wire() {
  $("variant").addEventListener("change", () => {
    if (!confirmDiscard("Changing the rules")) {
      $("variant").value = app.tree.setup.variant;
      return;
    }
    localStorage.setItem("konakis.variant", $("variant").value);
    newGame().catch(() => {});
  });
  const fresh = () => confirmDiscard("A new game") && newGame().catch(() => {});
  $("new-game").addEventListener("click", fresh);
  $("start-game").addEventListener("click", fresh);
  $("share").addEventListener("click", async () => {
    const url = location.href;
    say((await copyText(url)) ? "A link to this position is copied: it opens the game at this move." : `Copy this link: ${url}`, true);
  });
  $("sound").checked = localStorage.getItem("konakis.sound") !== "false";
  $("sound").addEventListener("change", () => localStorage.setItem("konakis.sound", String($("sound").checked)));
  $("undo").addEventListener("click", takeBack);
  $("flip").addEventListener("click", () => {
    app.flipped = !app.flipped;
    board.setFlipped(app.flipped);
    render();
  });
  $("time-kind").addEventListener("change", showTimeKind);
  $("move-now").addEventListener("click", moveNow);
  $("resign").addEventListener("click", resign);
  $("analyse-toggle").addEventListener("click", () => analysis.toggle());
  $("multipv").addEventListener("change", () => analysis.on && analysis.schedule());
  reviews.wire();
  $("show-soldiers").checked = localStorage.getItem("konakis.soldiers") === "true";
  $("show-soldiers").addEventListener("change", () => {
    localStorage.setItem("konakis.soldiers", String($("show-soldiers").checked));
    render();
    analysis.redraw();
  });
  for (const b of /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("button[data-tab]"))) b.addEventListener("click", () => showTab(b.dataset.tab));
  editor.wire();
  const navs = { "nav-first": "first", "nav-back": "back", "nav-forward": "forward", "nav-last": "last" };
  for (const [id, where] of Object.entries(navs)) $(id).addEventListener("click", () => navigate(where));
  document.addEventListener("keydown", (e) => {
    if (/** @type {Element} */ (e.target).closest("input, textarea, select, dialog")) return;
    const keys = { ArrowLeft: "back", ArrowRight: "forward", Home: "first", End: "last" };
    if (keys[e.key]) {
      navigate(keys[e.key]);
      e.preventDefault();
    }
  });
  Records.wire({
    currentVariant: () => $("variant").value,
    openGame: async (g) => {
      if (!confirmDiscard("Loading a game")) return false;
      $("variant").value = g.variant;
      await newGame({ variant: g.variant, rules: g.rules, start: g.start, moves: g.moves, play: false });
      return true;
    },
    say,
    exportRequest: () => {
      const line = app.current.line();
      const tip = line[line.length - 1];
      const request = {
        ...app.tree.request(tip),
        attackers: app.players.attackers === "engine" && app.gameActive ? "Konakis" : "player",
        defenders: app.players.defenders === "engine" && app.gameActive ? "Konakis" : "player",
      };
      if (app.gameEnd && tip === mainTip()) request.result = { winner: app.gameEnd.winner, reason: app.gameEnd.reason };
      return request;
    },
  });
  setInterval(tickClocks, 100);
}

async function main() {
  board = new Board($("board"), {
    onMove: async (move) => {
      const from = app.current;
      const child = await playMove(from, move);
      if (child) reviews.played(from, child);
    },
    onRefused: say,
    onSquare: (name) => editor.square(name),
  });
  wire();
  restoreSettings();
  try {
    const [variants, info] = await Promise.all([getJSON("/api/variants"), getJSON("/api/info")]);
    app.variants = variants.variants;
    for (const select of [$("variant"), $("import-variant")]) {
      for (const v of app.variants) {
        const o = document.createElement("option");
        o.value = v.name;
        o.textContent = v.title;
        select.append(o);
      }
    }
    const saved = localStorage.getItem("konakis.variant");
    $("variant").value = variantInfo(saved) ? saved : variants.default;
    $("engine-name").textContent = `${info.name} ${info.version} · ${info.threads} thread${info.threads > 1 ? "s" : ""} · ${info.hash_mib} MiB`;
    if (!(await restore())) await newGame();
    window.addEventListener("hashchange", () => {
      // A link pasted into this tab's address bar.
      if (app.tree && app.current && location.hash !== Persist.fragment(app.tree, app.current)) restore();
    });
  } catch (e) {
    say(`Cannot reach the Konakis server: ${errorText(e)}`);
  }
}

main();
