// @ts-check
// Winning chances and the game review. The server's WDL model turns each
// search's score into chances of a win, a draw and a loss (docs/http-api.md);
// the page shows them as the attackers' or the defenders' percentage, and the
// review (/api/review: every position searched to a fixed budget, every move
// judged by the winning chances it gave away) draws their graph and marks
// inaccuracies ?!, mistakes ? and blunders ??.

import { review as reviewApi } from "./api.js";

const SVG = "http://www.w3.org/2000/svg";

// The attackers' expected score (0..1, a draw counting a half) from a
// [win, draw, loss] in permille for `side`, the side to move.
export function attackersChance(wdl, side) {
  if (!wdl) return null;
  const mine = (wdl[0] + wdl[1] / 2) / 1000;
  return side === "attackers" ? mine : 1 - mine;
}

// The chances of a finished game: the winner's are certain.
export function resultChance(result) {
  if (!result) return null;
  return result.winner === "attackers" ? 1 : result.winner === "defenders" ? 0 : 0.5;
}

// "attackers 62%": the side that stands better and its expected score.
export function formatChance(p) {
  if (p === null || p === undefined) return "";
  if (Math.abs(p - 0.5) < 0.005) return "even 50%";
  return p > 0.5 ? `attackers ${Math.round(p * 100)}%` : `defenders ${Math.round((1 - p) * 100)}%`;
}

// "A 62%", for narrow places (the evaluation bar).
export function shortChance(p) {
  if (p === null || p === undefined) return "";
  if (Math.abs(p - 0.5) < 0.005) return "50%";
  return p > 0.5 ? `A ${Math.round(p * 100)}%` : `D ${Math.round((1 - p) * 100)}%`;
}

// A search score ({cp}|{win}|{loss}, the side to move's view) in soldiers
// from the attackers' view: "+1.25", "−0.40", "A#3" (the attackers win in
// 3 moves), "D#1".
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

// Reviews `nodes` (a line, root first) with the budget `limit`
// ({nodes}|{depth}|{movetime}): `request` is the line's game as the API
// takes it. Fills node.review per position as it comes
// ({chance, wdl, score, side, best, pv, depth}) and calls onPosition(done,
// total, leftMs); then adds each move's verdict. With `from`, `nodes` starts
// at the position after that many moves of `request`'s line. To each
// move's node it adds {mover, loss, before, after, accuracy, mark, sign,
// better, line}. `onQueued` is called if another client's work has the
// engine first. Resolves with the review's data, or null when stopped.
/**
 * @param {any[]} nodes
 * @param {{request: Object, limit: Object, from?: number, signal: AbortSignal,
 *   onPosition?: (done: number, total: number, left: number) => void,
 *   onQueued?: () => void}} options
 */
export async function review(nodes, { request, limit, from = 0, signal, onPosition, onQueued }) {
  const data = await reviewApi({ ...request, ...limit, from }, {
    queued: () => onQueued && onQueued(),
    position: (d) => {
      const node = nodes[d.index - from];
      if (!node) return;
      node.review = {
        chance: attackersChance(d.wdl, d.side),
        wdl: d.wdl, score: d.score, side: d.side, best: d.best, pv: d.pv, depth: d.depth,
      };
      if (onPosition) onPosition(d.done, d.total, d.left);
    },
  }, signal);
  if (!data) return null;
  for (const m of data.moves) {
    const node = nodes[m.index - from];
    if (!node || !node.review) continue;
    Object.assign(node.review, {
      mover: m.mover, loss: m.loss, before: m.before, after: m.after, accuracy: m.accuracy,
      mark: m.mark, sign: m.sign, better: m.better, line: m.line,
    });
  }
  return data;
}

// The summary table's rows: [label, attackers, defenders].
export function summaryRows(sides) {
  const a = sides.attackers;
  const d = sides.defenders;
  return [
    ["Accuracy", `${a.accuracy.toFixed(0)}%`, `${d.accuracy.toFixed(0)}%`],
    ["Moves", a.moves, d.moves],
    ["Inaccuracies ?!", a.inaccuracies, d.inaccuracies],
    ["Mistakes ?", a.mistakes, d.mistakes],
    ["Blunders ??", a.blunders, d.blunders],
    ["Average loss (points of winning chances)", a.average_loss.toFixed(1), d.average_loss.toFixed(1)],
  ];
}

// "12. d1-d3?? blunder: the attackers' chances 62% → 31%; better e5-e8".
export function markText(node, turn) {
  const r = node.review;
  const pct = (x) => `${Math.round(x * 100)}%`;
  return `${turn}. ${node.notation || node.move}${r.sign} ${r.mark}: the ${r.mover}' chances ${pct(r.before)} \u2192 ${pct(r.after)}` +
    (r.better ? `; better ${r.better}` : "");
}

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

// Draws the winning-chances graph of `nodes` into `svg`: the dark part is
// the attackers' share, as in the evaluation bar. A click on a point calls
// `onJump(node)`; `current` is marked.
export function drawGraph(svg, nodes, current, onJump) {
  const W = 600;
  const H = 160;
  const pad = 6;
  svg.replaceChildren();
  svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
  el("rect", { x: 0, y: 0, width: W, height: H, class: "graph-bg" }, svg);
  const reviewed = nodes.filter((n) => n.review);
  if (reviewed.length < 1) return;
  const step = nodes.length > 1 ? W / (nodes.length - 1) : W;
  const y = (p) => pad + p * (H - 2 * pad);
  const points = [];
  nodes.forEach((n, i) => {
    if (n.review) points.push([i * step, y(n.review.chance), n, i]);
  });
  const line = points.map(([x, yy]) => `${x.toFixed(1)},${yy.toFixed(1)}`).join(" ");
  const first = points[0];
  const last = points[points.length - 1];
  // Light below the line: the defenders' share.
  el("polygon", { points: `${first[0]},${H} ${line} ${last[0]},${H}`, class: "graph-area" }, svg);
  el("polyline", { points: line, class: "graph-line" }, svg);
  el("line", { x1: 0, y1: H / 2, x2: W, y2: H / 2, class: "graph-axis" }, svg);
  const ci = nodes.indexOf(current);
  if (ci >= 0) el("line", { x1: ci * step, y1: 0, x2: ci * step, y2: H, class: "graph-current" }, svg);
  for (const [x, yy, n, i] of points) {
    const mark = n.review.mark;
    const dot = el("circle", {
      cx: x, cy: yy, r: mark ? 5 : 3.2,
      class: `graph-point ${mark || ""}`, "data-ply": i,
    }, svg);
    const t = el("title", {}, dot);
    const score = n.review.score ? ` (${formatScore(n.review.score, n.review.side)})` : "";
    t.textContent = `ply ${i}${n.move ? " " + (n.notation || n.move) : ""}: ${formatChance(n.review.chance)}${score}`;
    // A wide invisible column makes every ply easy to hit.
    const hit = el("rect", { x: x - step / 2, y: 0, width: Math.max(step, 4), height: H, class: "graph-hit", "data-ply": i }, svg);
    hit.addEventListener("click", (e) => {
      e.preventDefault();
      onJump(n);
    });
  }
}
