// @ts-check
// The Analyse tab: an infinite search of the position shown, restarted as
// the person moves through the game, with its lines, their chances and
// arrows. It pauses while Konakis plays a game move or a review runs (the
// page says when: `Page.blocked`), and resumes after.

import { $ } from "./dom.js";
import { analyse, errorText } from "./api.js";
import * as Review from "./review.js";

/** @typedef {import("./tree.js").Node} Node */

/**
 * @typedef {{
 *   current: () => Node,
 *   request: (node: Node) => Object,
 *   ensure: (node: Node) => Promise<any>,
 *   blocked: () => boolean,
 *   setArrows: (arrows: {move: string, kind?: string}[]) => void,
 *   showEval: (chance: number, score: any, side: string) => void,
 *   chanceOrScore: (chance: number, score: any, side: string) => string,
 *   showSoldiers: () => boolean,
 *   playLine: (node: Node, moves: string[]) => void,
 *   showBetterMove: (node: Node) => void,
 *   say: (text: string, info?: boolean) => void,
 *   render: () => void,
 *   metrics: any,
 * }} Page
 * @typedef {{controller: AbortController, node: Node, pos: any, lines: any[]}} Run
 */


export class Analysis {
  /** @param {Page} page */
  constructor(page) {
    this.page = page;
    /** Whether the person asked for analysis. */
    this.on = false;
    /** @type {Run | null} the search running now */
    this.run = null;
    /** @type {number | undefined} */
    this.timer = undefined;
  }

  /** Start or stop analysing (the Analyse tab's button). */
  toggle() {
    this.on = !this.on;
    $("analyse-toggle").textContent = this.on ? "Stop analysis" : "Start analysis";
    const metrics = this.page.metrics;
    if (this.on) {
      metrics.analyseClick = performance.now();
      metrics.firstInfo = null;
      metrics.infoEvents = 0;
      this.start();
    } else {
      clearTimeout(this.timer);
      this.pause();
      $("analysis-stats").textContent = "Stopped.";
      this.page.setArrows([]);
      this.page.render();
    }
  }

  /** Stops the running search (a game move or review needs the engine). */
  pause() {
    if (this.run) {
      this.run.controller.abort();
      this.run = null;
    }
  }

  /** Searches again if the person asked for analysis. */
  resume() {
    if (this.on) this.schedule();
  }

  /** The position shown changed: search it soon (once for a burst of steps). */
  schedule() {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.start(), 80);
  }

  /** Empties the lines; the board shows a review's better move, if any. */
  clearDisplay() {
    $("lines").querySelector("tbody").replaceChildren();
    this.page.showBetterMove(this.page.current());
  }

  async start() {
    this.pause();
    const page = this.page;
    if (!this.on || page.blocked()) return;
    const node = page.current();
    const pos = await page.ensure(node).catch(() => null);
    if (!pos || node !== page.current() || !this.on || page.blocked()) return;
    this.clearDisplay();
    if (pos.result) {
      $("analysis-stats").textContent = "The game is over in this position.";
      return;
    }
    const controller = new AbortController();
    /** @type {Run} */
    const run = { controller, node, pos, lines: [] };
    this.run = run;
    const multipv = parseInt($("multipv").value, 10);
    $("analysis-stats").textContent = "Searching…";
    const metrics = page.metrics;
    analyse({ ...page.request(node), infinite: true, multipv }, {
      queued: () => {
        if (this.run === run) $("analysis-stats").textContent = "Waiting: another client's search has the engine…";
      },
      info: (/** @type {any} */ d) => {
        if (this.run !== run) return;
        if (metrics.analyseClick !== null && metrics.firstInfo === null) metrics.firstInfo = performance.now() - metrics.analyseClick;
        metrics.infoEvents++;
        run.lines[d.multipv - 1] = d;
        run.lines.length = Math.min(run.lines.length, multipv);
        this.draw(run);
        stats(d.depth, d.nodes, d.nps, d.time);
      },
      progress: (/** @type {any} */ d) => {
        if (this.run !== run) return;
        stats(run.lines[0] ? run.lines[0].depth : 0, d.nodes, d.nps, d.time);
      },
    }, controller.signal).catch((e) => {
      if (this.run === run) page.say(`Analysis stopped: ${errorText(e)}`);
    });
  }

  /** Draws the lines again (the chances/soldiers toggle changed). */
  redraw() {
    if (this.run) this.draw(this.run);
  }

  /** @param {Run} run */
  draw(run) {
    const page = this.page;
    const pos = run.pos;
    const body = $("lines").querySelector("tbody");
    body.replaceChildren();
    /** @type {{move: string}[]} */
    const arrows = [];
    run.lines.forEach((d) => {
      if (!d) return;
      const tr = document.createElement("tr");
      const score = document.createElement("td");
      score.className = "score";
      const bound = d.bound === "lower" ? "+" : d.bound === "upper" ? "−" : "";
      const chance = Review.attackersChance(d.wdl, pos.side);
      score.textContent = page.chanceOrScore(chance, d.score, pos.side) + bound;
      score.title = page.showSoldiers() ? Review.formatChance(chance) : `score ${Review.formatScore(d.score, pos.side)} (soldiers, the attackers' view)`;
      const depth = document.createElement("td");
      // A proven win ends the search at once: its depth says nothing then.
      const proven = d.score && (d.score.win !== undefined || d.score.loss !== undefined);
      depth.textContent = proven ? `${Math.max(d.seldepth, d.pv.length)}` : `${d.depth}/${d.seldepth}`;
      depth.title = proven ? "moves searched to the end of the game" : "depth / selective depth";
      const line = document.createElement("td");
      line.className = "pv";
      d.pv.forEach((/** @type {string} */ m, /** @type {number} */ i) => {
        const s = document.createElement("span");
        s.textContent = m;
        s.title = "Play the line to here";
        s.addEventListener("click", () => page.playLine(run.node, d.pv.slice(0, i + 1)));
        line.append(s, " ");
      });
      tr.append(score, depth, line);
      body.append(tr);
      if (d.pv.length) arrows.push({ move: d.pv[0] });
    });
    page.setArrows(arrows);
    const best = run.lines[0];
    if (best) {
      run.node.eval = { chance: Review.attackersChance(best.wdl, pos.side), score: best.score, side: pos.side };
      page.showEval(run.node.eval.chance, best.score, pos.side);
    }
  }
}

/**
 * @param {number} depth
 * @param {number} nodes
 * @param {number} nps
 * @param {number} time
 */
function stats(depth, nodes, nps, time) {
  const kn = (/** @type {number} */ n) => (n >= 1e6 ? `${(n / 1e6).toFixed(1)} M` : `${Math.round(n / 1e3)} k`);
  $("analysis-stats").textContent = `depth ${depth} · ${kn(nodes)} nodes · ${kn(nps)} nodes/s · ${(time / 1000).toFixed(1)} s`;
}
