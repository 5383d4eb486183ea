// @ts-check
// The board editor: pieces placed and taken off square by square, the
// side to move, and position records in and out. It holds the position
// being made; the page draws it (`position()`) and sets it up for play
// (`Page.setUp`), which the server checks.

import { $ } from "./dom.js";

/**
 * @typedef {"attacker" | "defender" | "king"} Piece
 * @typedef {{
 *   say: (text: string, info?: boolean) => void,
 *   render: () => void,
 *   variantStart: () => string,
 *   setUp: (start: string) => Promise<boolean>,
 *   showTab: (name: string) => void,
 *   currentRecord: () => string | null,
 *   copyText: (text: string) => Promise<boolean>,
 * }} Page
 */


/**
 * The pieces of a position record (`/3t3/…/`, rank 1 first).
 * @param {string} record
 * @returns {Map<string, Piece>}
 */
export function piecesOfRecord(record) {
  /** @type {Map<string, Piece>} */
  const pieces = new Map();
  record.slice(1, -1).split("/").forEach((row, rank) => {
    let file = 0;
    for (const m of row.matchAll(/(\d+)|([tTK])/g)) {
      if (m[1]) file += parseInt(m[1], 10);
      else {
        pieces.set(String.fromCharCode(97 + file) + (rank + 1), m[2] === "t" ? "attacker" : m[2] === "T" ? "defender" : "king");
        file++;
      }
    }
  });
  return pieces;
}

export class Editor {
  /** @param {Page} page */
  constructor(page) {
    this.page = page;
    /** Whether a position is being made now. */
    this.active = false;
    /** @type {Map<string, Piece>} */
    this.pieces = new Map();
    this.size = 0;
    /** "a" or "d": the side to move. */
    this.side = "a";
    /** @type {Piece | "empty"} */
    this.palette = "attacker";
  }

  /**
   * Starts editing `pos` (/api/position's answer).
   * @param {{size: number, side: string, pieces: {attackers: string[], defenders: string[], king: string | null}}} pos
   */
  begin(pos) {
    /** @type {Map<string, Piece>} */
    const pieces = new Map();
    pos.pieces.attackers.forEach((s) => pieces.set(s, "attacker"));
    pos.pieces.defenders.forEach((s) => pieces.set(s, "defender"));
    if (pos.pieces.king) pieces.set(pos.pieces.king, "king");
    this.start(pieces, pos.size, pos.side === "attackers" ? "a" : "d");
  }

  /**
   * @param {Map<string, Piece>} pieces
   * @param {number} size
   * @param {string} side
   */
  start(pieces, size, side) {
    this.pieces = pieces;
    this.size = size;
    this.side = side;
    this.active = true;
    $("edit-side").value = side;
  }

  end() {
    this.active = false;
  }

  /**
   * The position being made, as the board draws positions.
   * @param {any} marks the board's special squares
   */
  position(marks) {
    /** @type {{attackers: string[], defenders: string[], king: string | null}} */
    const pieces = { attackers: [], defenders: [], king: null };
    for (const [sq, kind] of this.pieces) {
      if (kind === "attacker") pieces.attackers.push(sq);
      else if (kind === "defender") pieces.defenders.push(sq);
      else pieces.king = sq;
    }
    return {
      size: this.size, pieces, marks,
      legal: [], side: this.side === "a" ? "attackers" : "defenders", position: "editing", result: null, moves: [],
    };
  }

  /**
   * A click on `name`: the palette's piece goes there (or comes off).
   * @param {string} name
   */
  square(name) {
    if (!this.active) return;
    if (this.palette === "empty" || this.pieces.get(name) === this.palette) {
      this.pieces.delete(name);
    } else {
      if (this.palette === "king") {
        for (const [sq, kind] of this.pieces) {
          if (kind === "king" && sq !== name) {
            this.pieces.delete(sq);
            this.page.say(`A board has one king: it moved from ${sq} to ${name}.`, true);
          }
        }
      }
      this.pieces.set(name, this.palette);
    }
    this.page.render();
  }

  /** The position being made as a start point: `<record> <a|d>`. */
  startPoint() {
    let out = "/";
    for (let rank = 0; rank < this.size; rank++) {
      let empty = 0;
      for (let file = 0; file < this.size; file++) {
        const kind = this.pieces.get(String.fromCharCode(97 + file) + (rank + 1));
        if (!kind) {
          empty++;
          continue;
        }
        if (empty) out += empty;
        empty = 0;
        out += kind === "attacker" ? "t" : kind === "defender" ? "T" : "K";
      }
      if (empty) out += empty;
      out += "/";
    }
    return `${out} ${this.side}`;
  }

  /** Wires the Edit board tab's controls. */
  wire() {
    const page = this.page;
    const palette = /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("#palette button"));
    for (const b of palette) {
      b.addEventListener("click", () => {
        this.palette = /** @type {Piece | "empty"} */ (b.dataset.piece);
        for (const x of palette) x.classList.toggle("active", x === b);
      });
    }
    $("edit-side").addEventListener("change", () => {
      if (this.active) this.side = $("edit-side").value;
      page.render();
    });
    $("edit-clear").addEventListener("click", () => {
      if (this.active) this.pieces.clear();
      page.render();
    });
    $("edit-start").addEventListener("click", () => {
      if (!this.active) return;
      this.pieces = piecesOfRecord(page.variantStart());
      page.render();
    });
    $("edit-done").addEventListener("click", async () => {
      if (!this.active) return;
      const start = this.startPoint();
      const kept = { pieces: this.pieces, size: this.size, side: this.side };
      this.active = false;
      if (await page.setUp(start)) {
        page.showTab("analyse");
      } else {
        // The position was refused: keep editing what the person made.
        this.start(kept.pieces, kept.size, kept.side);
        page.render();
      }
    });
    $("record-load").addEventListener("click", async () => {
      let text = $("record-input").value.trim();
      if (!text) return;
      if (text.split(/\s+/).length === 1) text += ` ${$("edit-side").value}`;
      if (await page.setUp(text)) page.showTab("analyse");
    });
    $("record-copy").addEventListener("click", async () => {
      // While editing, the position on the board is the one being made.
      const record = this.active ? this.startPoint() : page.currentRecord();
      if (!record) return;
      $("record-input").value = record;
      page.say((await page.copyText(record)) ? "Position record copied." : "Select the record above and copy it.", true);
    });
  }
}
