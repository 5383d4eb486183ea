// @ts-check
// The Review tab: the line on the board reviewed on the server, position
// by position with the time left, its graph, each side's accuracy and
// marks, and "Retry this mistake": the person looks for a better move
// where the game's move was marked, judged as the review judged it.

import { $ } from "./dom.js";
import { errorText } from "./api.js";
import * as Review from "./review.js";

/** @typedef {import("./tree.js").Node} Node */

/**
 * @typedef {{
 *   current: () => Node,
 *   setCurrent: (node: Node) => void,
 *   request: (node: Node) => Object,
 *   pauseGame: () => void,
 *   pauseAnalysis: () => void,
 *   resumeAnalysis: () => void,
 *   clearArrows: () => void,
 *   say: (text: string, info?: boolean) => void,
 *   render: () => void,
 *   metrics: any,
 * }} Page
 * @typedef {{mistake: Node, before: Node, tries: number}} Retry
 */


/** @param {number} x */
const pct = (x) => `${Math.round(x * 100)}%`;

export class ReviewPanel {
  /** @param {Page} page */
  constructor(page) {
    this.page = page;
    /** @type {AbortController | null} a review (or a retried move's check) running */
    this.running = null;
    /** @type {Node[] | null} the line reviewed */
    this.nodes = null;
    /** @type {any} each side's figures, for the summary */
    this.sides = null;
    /** @type {Retry | null} a marked move being retried */
    this.retry = null;
  }

  /** A new game: nothing reviewed. */
  reset() {
    this.stop();
    this.nodes = null;
    this.sides = null;
    $("graph").replaceChildren();
    $("review-summary").hidden = true;
    $("review-marks").replaceChildren();
    $("review-status").textContent = "Reviews the line on the board, from its first move to its last.";
  }

  stop() {
    if (this.running) {
      this.running.abort();
      this.running = null;
    }
  }

  /** The budget a review searches each position to, from the select. */
  limit() {
    const [kind, value] = $("review-limit").value.split(":");
    return { [kind]: parseInt(value, 10) };
  }

  /** Reviews the line through the position shown. */
  async start() {
    if (this.running) return;
    const page = this.page;
    page.pauseGame();
    page.pauseAnalysis();
    this.endRetry();
    const nodes = page.current().line();
    this.nodes = nodes;
    for (const n of nodes) n.review = null;
    const controller = new AbortController();
    this.running = controller;
    $("review-start").disabled = true;
    $("review-stop").disabled = false;
    $("review-progress").hidden = false;
    $("review-progress").max = nodes.length;
    $("review-progress").value = 0;
    $("review-summary").hidden = true;
    $("review-marks").replaceChildren();
    $("review-status").textContent = `Reviewing ${nodes.length} positions…`;
    const started = performance.now();
    // Until the first position is searched there is nothing to estimate
    // from: say how long it has been, so a deep review is never silent.
    let first = true;
    const waiting = setInterval(() => {
      if (!first) return;
      const secs = Math.round((performance.now() - started) / 1000);
      $("review-status").textContent = `Reviewing ${nodes.length} positions… ${secs} s (the time left shows once the first positions are searched)`;
    }, 1000);
    let data = null;
    try {
      data = await Review.review(nodes, {
        request: page.request(nodes[nodes.length - 1]),
        limit: this.limit(),
        signal: controller.signal,
        onQueued: () => page.say("Another client's search has the engine: the review starts once it ends.", true),
        onPosition: (done, total, left) => {
          first = false;
          $("review-progress").value = done;
          const secs = Math.round(left / 1000);
          $("review-status").textContent = `Reviewing: ${done} of ${total} positions` + (done > 1 ? `, about ${secs} s left` : "");
          Review.drawGraph($("graph"), nodes, page.current(), page.setCurrent);
        },
      });
    } catch (e) {
      page.say(`Review stopped: ${errorText(e)}`);
    }
    clearInterval(waiting);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    page.metrics.lastReview = { positions: nodes.length, seconds: parseFloat(seconds), finished: !!data };
    this.running = null;
    $("review-start").disabled = false;
    $("review-stop").disabled = true;
    $("review-progress").hidden = true;
    const budget = $("review-limit").selectedOptions[0].text;
    $("review-status").textContent = data
      ? `Reviewed ${nodes.length} positions in ${seconds} s (${budget} each${data.repeatable ? "; the same marks every time" : "; by time, so not repeatable"}).`
      : "Review stopped.";
    if (data) {
      this.sides = data.sides;
      this.showSummary();
    }
    page.render();
    page.resumeAnalysis();
  }

  /** Each side's figures and the list of marked moves. */
  showSummary() {
    const nodes = this.nodes;
    if (!nodes || !this.sides) return;
    const body = $("review-summary").querySelector("tbody");
    body.replaceChildren();
    for (const row of Review.summaryRows(this.sides)) {
      const tr = document.createElement("tr");
      for (const text of row) {
        const td = document.createElement("td");
        td.textContent = text;
        tr.append(td);
      }
      body.append(tr);
    }
    $("review-summary").hidden = false;
    const list = $("review-marks");
    list.replaceChildren();
    for (const n of nodes) {
      const r = n.review;
      if (!r || !r.mark) continue;
      const li = document.createElement("li");
      li.className = r.mark;
      li.textContent = Review.markText(n, Math.floor((n.ply - 1) / 2) + 1);
      li.addEventListener("click", () => this.page.setCurrent(n));
      list.append(li);
    }
  }

  /** Draws the graph with `current` marked, once a line is reviewed. */
  drawGraph(/** @type {Node} */ current) {
    if (this.nodes) Review.drawGraph($("graph"), this.nodes, current, this.page.setCurrent);
  }

  // ----- retrying a mistake -----

  /**
   * Puts the person at the position before the marked move shown and asks
   * for a better one: the engine's move is right at once; another is
   * searched as the review searched it, and is right when it gives away
   * less than an inaccuracy would.
   */
  beginRetry() {
    const node = this.page.current();
    const r = node.review;
    if (!r || !r.mark || !node.parent || this.running) return;
    this.retry = { mistake: node, before: node.parent, tries: 0 };
    this.page.setCurrent(node.parent);
    this.page.clearArrows();
    $("retry-status").hidden = false;
    $("retry-status").textContent = `Find a better move for the ${r.mover} than ${node.notation || node.move}.`;
  }

  endRetry() {
    this.retry = null;
    $("retry-status").hidden = true;
  }

  /**
   * A move was played from `from` to `child`: judged if it is a retry.
   * @param {Node} from
   * @param {Node} child
   */
  async played(from, child) {
    const retry = this.retry;
    if (!retry || from !== retry.before) return;
    const page = this.page;
    const mistake = retry.mistake.review;
    retry.tries++;
    const tell = (/** @type {string} */ text) => ($("retry-status").textContent = text);
    if (child.move === retry.mistake.move) {
      tell("That is the move that was played. Try another.");
      page.setCurrent(retry.before);
      return;
    }
    if (child.move === retry.before.review.best) {
      tell(`Yes: ${child.move} is Konakis's move here.`);
      this.retry = null;
      return;
    }
    tell(`Checking ${child.move}…`);
    const controller = new AbortController();
    this.running = controller;
    try {
      const line = [retry.before, child];
      const request = /** @type {{moves: string[]}} */ (page.request(child));
      const saved = retry.before.review;
      const data = await Review.review(line, {
        request, limit: this.limit(), from: request.moves.length - 1, signal: controller.signal,
      }).catch((e) => {
        page.say(errorText(e));
        return null;
      });
      line[0].review = saved;
      if (!data || this.retry !== retry) return;
      const verdict = data.moves[0];
      if (!verdict.mark) {
        tell(`Good: ${child.move} keeps the ${mistake.mover}' chances at ${pct(verdict.after)} (the game's move left ${pct(mistake.after)}).`);
        this.retry = null;
      } else {
        tell(`Not that either: ${child.move} leaves ${pct(verdict.after)} (${verdict.mark}). Try again.`);
        page.setCurrent(retry.before);
      }
    } finally {
      this.running = null;
      page.render();
    }
  }

  wire() {
    $("review-start").addEventListener("click", () => this.start());
    $("review-stop").addEventListener("click", () => this.stop());
    $("review-retry").addEventListener("click", () => this.beginRetry());
  }
}
