// @ts-check
// The game's clocks: each side's time left, the side whose time runs, and
// the increment it gains for a move. The page draws them (`draw`) and asks
// who ran out (`flagged`); nothing here knows the rules.

/** @typedef {"attackers" | "defenders"} Side */

export class Clocks {
  /**
   * @param {number} base milliseconds each side starts with
   * @param {number} inc milliseconds added for each move made
   */
  constructor(base, inc) {
    /** @type {{attackers: number, defenders: number}} */
    this.left = { attackers: base, defenders: base };
    this.inc = inc;
    /** @type {Side | null} */
    this.running = null;
    this.since = 0;
  }

  /**
   * Clocks as saved (`saved()`), running again from now.
   * @param {{attackers: number, defenders: number, inc: number, running: Side | null}} s
   */
  static restore(s) {
    const c = new Clocks(0, s.inc);
    c.left = { attackers: s.attackers, defenders: s.defenders };
    if (s.running) c.start(s.running);
    return c;
  }

  /** What to save: the time left now, and whose runs. */
  saved() {
    return { attackers: this.remaining("attackers"), defenders: this.remaining("defenders"), inc: this.inc, running: this.running };
  }

  /** @param {Side} side */
  start(side) {
    this.running = side;
    this.since = performance.now();
  }

  stop() {
    if (!this.running) return;
    this.left[this.running] -= performance.now() - this.since;
    this.running = null;
  }

  /**
   * The time `side` has left now.
   * @param {Side} side
   */
  remaining(side) {
    return this.left[side] - (this.running === side ? performance.now() - this.since : 0);
  }

  /**
   * `mover` made a move: it gains the increment, and the other side's
   * clock runs unless the game is over.
   * @param {Side} mover
   * @param {boolean} over
   */
  moved(mover, over) {
    this.stop();
    this.left[mover] += this.inc;
    if (!over) this.start(mover === "attackers" ? "defenders" : "attackers");
  }

  /** The side whose time ran out, if one did (its clock then stops at 0). */
  flagged() {
    const side = this.running;
    if (!side || this.remaining(side) > 0) return null;
    this.stop();
    this.left[side] = 0;
    return side;
  }
}

/**
 * "4:07", or "0:09.3" under ten seconds.
 * @param {number} ms
 */
export function formatClock(ms) {
  const t = Math.max(0, ms);
  const min = Math.floor(t / 60000);
  const sec = Math.floor((t % 60000) / 1000);
  if (t < 10000) return `${min}:${String(sec).padStart(2, "0")}.${Math.floor((t % 1000) / 100)}`;
  return `${min}:${String(sec).padStart(2, "0")}`;
}
