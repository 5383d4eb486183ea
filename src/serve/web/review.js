// Game review: every position of a line searched at a fixed depth or time,
// the evaluation graph, and the moves that lost the most marked.
//
// Scores are shown from the attackers' view (+ the attackers stand better)
// in soldiers; a proven result counts as CAP.

const SVG = "http://www.w3.org/2000/svg";

// Centi-soldiers a proven win is worth here, and where scores are capped
// (a move from +9 to +12 soldiers loses nothing that matters).
export const CAP = 1000;
// Score lost by a move (the mover's view, centi-soldiers) from which it is
// marked, as in the programs people use for chess.
export const THRESHOLDS = [
  { name: "blunder", min: 300, sign: "??" },
  { name: "mistake", min: 120, sign: "?" },
  { name: "inaccuracy", min: 50, sign: "?!" },
];

// A search score ({cp}|{win}|{loss}, the side to move's view) as
// centi-soldiers for the attackers, capped.
export function attackersView(score, side) {
  let v;
  if (score.win !== undefined) v = CAP;
  else if (score.loss !== undefined) v = -CAP;
  else v = Math.max(-CAP, Math.min(CAP, score.cp));
  return side === "attackers" ? v : -v;
}

// "+1.25", "−0.40", "A#3" (the attackers win in 3 moves), "D#1".
export function formatScore(score, side) {
  if (!score) return "";
  if (score.win !== undefined || score.loss !== undefined) {
    const winner = score.win !== undefined ? side : side === "attackers" ? "defenders" : "attackers";
    const n = score.win !== undefined ? score.win : score.loss;
    return `${winner === "attackers" ? "A" : "D"}#${n}`;
  }
  const v = side === "attackers" ? score.cp : -score.cp;
  const text = (Math.abs(v) / 100).toFixed(2);
  return v > 0 ? `+${text}` : v < 0 ? `\u2212${text}` : "0.00";
}

// The attackers' share of the evaluation bar (0..1).
export function barShare(value) {
  return 0.5 + 0.5 * Math.tanh(value / 400);
}

function markFor(loss) {
  return THRESHOLDS.find((t) => loss >= t.min) || null;
}

// Searches every node of `nodes` (a line, root first), fills each node's
// `review`, and says how far it got through `onProgress(done, total)`.
// `search(node)` resolves with the search's bestmove data (null when
// stopped), `ensure(node)` with the node's position. Returns false when
// stopped.
export async function review(nodes, { search, ensure, onProgress, signal }) {
  for (const [i, node] of nodes.entries()) {
    if (signal.aborted) return false;
    const pos = await ensure(node);
    if (pos.result) {
      const w = pos.result.winner;
      node.review = { value: w === "attackers" ? CAP : w === "defenders" ? -CAP : 0, score: null, side: pos.side, best: null };
    } else {
      const best = await search(node);
      if (!best) return false;
      node.review = { value: attackersView(best.score, pos.side), score: best.score, side: pos.side, best: best.best, pv: best.pv, depth: best.depth };
    }
    onProgress(i + 1, nodes.length);
  }
  for (let i = 1; i < nodes.length; i++) {
    const node = nodes[i];
    const before = nodes[i - 1].review;
    const sign = before.side === "attackers" ? 1 : -1;
    let loss = sign * (before.value - node.review.value);
    if (before.best === node.move) loss = 0;
    node.review.mover = before.side;
    node.review.loss = Math.max(0, loss);
    const mark = markFor(node.review.loss);
    node.review.mark = mark ? mark.name : null;
    node.review.sign = mark ? mark.sign : "";
    node.review.better = mark && before.best !== node.move ? before.best : null;
  }
  return true;
}

// Per side: moves, marks, and the average score lost.
export function summary(nodes) {
  const sides = {};
  for (const side of ["attackers", "defenders"]) {
    sides[side] = { moves: 0, inaccuracy: 0, mistake: 0, blunder: 0, lost: 0 };
  }
  for (const node of nodes.slice(1)) {
    const r = node.review;
    if (!r || r.loss === undefined) continue;
    const s = sides[r.mover];
    s.moves++;
    s.lost += r.loss;
    if (r.mark) s[r.mark]++;
  }
  for (const s of Object.values(sides)) s.average = s.moves ? Math.round(s.lost / s.moves) : 0;
  return sides;
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Draws the evaluation graph of `nodes` into `svg`; a click on a point
// calls `onJump(node)`. `current` is marked.
export function drawGraph(svg, nodes, current, onJump) {
  const W = 600;
  const H = 160;
  const mid = H / 2;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  el("rect", { x: 0, y: 0, width: W, height: H, class: "graph-bg" }, svg);
  const reviewed = nodes.filter((n) => n.review);
  if (reviewed.length < 1) return;
  const step = nodes.length > 1 ? W / (nodes.length - 1) : W;
  const y = (v) => mid - (barShare(v) - 0.5) * 2 * (mid - 6);
  const points = [];
  nodes.forEach((n, i) => {
    if (n.review) points.push([i * step, y(n.review.value), n, i]);
  });
  const line = points.map(([x, yy]) => `${x.toFixed(1)},${yy.toFixed(1)}`).join(" ");
  const first = points[0];
  const last = points[points.length - 1];
  // Dark above the line (the attackers' share), light below, as in the bar.
  el("polygon", { points: `${first[0]},${H} ${line} ${last[0]},${H}`, class: "graph-area" }, svg);
  el("polyline", { points: line, class: "graph-line" }, svg);
  el("line", { x1: 0, y1: mid, x2: W, y2: mid, class: "graph-axis" }, svg);
  const ci = nodes.indexOf(current);
  if (ci >= 0) el("line", { x1: ci * step, y1: 0, x2: ci * step, y2: H, class: "graph-current" }, svg);
  for (const [x, yy, n, i] of points) {
    const mark = n.review.mark;
    const dot = el("circle", {
      cx: x, cy: yy, r: mark ? 5 : 3.2,
      class: `graph-point ${mark || ""}`, "data-ply": i,
    }, svg);
    const t = el("title", {}, dot);
    t.textContent = `ply ${i}${n.move ? " " + n.notation : ""}: ${formatScore(n.review.score, n.review.side) || (n.review.value > 0 ? "attackers win" : n.review.value < 0 ? "defenders win" : "draw")}`;
    dot.addEventListener("click", () => onJump(n));
    // A wide invisible column makes every ply easy to hit.
    const hit = el("rect", { x: x - step / 2, y: 0, width: Math.max(step, 4), height: H, class: "graph-hit", "data-ply": i }, svg);
    hit.addEventListener("click", () => onJump(n));
  }
}
