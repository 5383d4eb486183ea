// @ts-check
// The board: an SVG drawing of a position, with moves by click or drag.
// It knows nothing of rules: the position it draws (from /api/position)
// lists the legal moves, and a move it is asked to play goes back to the
// page, which asks the server.

const SVG = "http://www.w3.org/2000/svg";
const CELL = 100;
const MARGIN = 44; // room for the coordinates

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  if (parent) parent.appendChild(node);
  return node;
}

export function squareName(file, rank) {
  return String.fromCharCode(97 + file) + (rank + 1);
}

export function parseSquare(name) {
  return { file: name.charCodeAt(0) - 97, rank: parseInt(name.slice(1), 10) - 1 };
}

export function splitMove(move) {
  const [from, to] = move.split("-");
  return { from, to };
}

export class Board {
  // `onMove(move)` is called for a move the person made; `onRefused(text)`
  // when a click cannot start or finish a move; `onSquare(name)` in edit mode.
  constructor(svg, { onMove, onRefused, onSquare }) {
    this.svg = svg;
    this.onMove = onMove;
    this.onRefused = onRefused;
    this.onSquare = onSquare;
    this.flipped = false;
    this.pos = null;
    this.selected = null;
    this.interactive = false;
    this.editing = false;
    this.arrows = [];
    // Arrows and circles the person draws with the right button, as on
    // lichess: [{from, to, brush}] (a circle when from === to).
    this.shapes = [];
    this.drawing = null;
    this.drag = null;
    this.dropped = null;
    svg.addEventListener("contextmenu", (e) => e.preventDefault());
    svg.addEventListener("pointerdown", (e) => this.pointerDown(e));
    svg.addEventListener("pointermove", (e) => this.pointerMove(e));
    svg.addEventListener("pointerup", (e) => this.pointerUp(e));
    svg.addEventListener("pointercancel", () => this.cancelDrag());
  }

  // Draws `pos`; `interactive` says whether the person may move now.
  show(pos, { interactive = false, lastMove = null, captured = [] } = {}) {
    const before = this.pos;
    const changed = before && pos && before.position !== pos.position;
    if (changed) {
      this.selected = null;
      this.shapes = [];
    }
    this.pos = pos;
    this.interactive = interactive;
    this.lastMove = lastMove;
    this.captured = captured;
    this.render();
    if (changed) this.animate(before, pos, lastMove);
  }

  // Slides the piece of the move that led from `before` to `pos` (not one
  // the person just dropped there, nor a jump to another position).
  animate(before, pos, lastMove) {
    const dropped = this.dropped;
    this.dropped = null;
    if (!lastMove || lastMove.to === dropped || before.size !== pos.size) return;
    const had = (p, sq) => p.pieces.king === sq || p.pieces.attackers.includes(sq) || p.pieces.defenders.includes(sq);
    if (!had(before, lastMove.from) || had(before, lastMove.to) || had(pos, lastMove.from)) return;
    const node = this.svg.querySelector(`.piece[data-square="${lastMove.to}"]`);
    if (!node || !node.animate) return;
    const a = this.centre(lastMove.from);
    const b = this.centre(lastMove.to);
    node.animate(
      [{ transform: `translate(${a.x - b.x}px, ${a.y - b.y}px)` }, { transform: "translate(0px, 0px)" }],
      { duration: 180, easing: "ease-out" },
    );
  }

  setFlipped(flipped) {
    this.flipped = flipped;
    this.render();
  }

  // Lines to draw as arrows: [{move, weight}] best first.
  setArrows(arrows) {
    this.arrows = arrows;
    this.renderArrows();
  }

  // Board coordinates of a square's centre.
  centre(name) {
    const n = this.pos.size;
    const { file, rank } = parseSquare(name);
    const col = this.flipped ? n - 1 - file : file;
    const row = this.flipped ? rank : n - 1 - rank;
    return { x: MARGIN + col * CELL + CELL / 2, y: row * CELL + CELL / 2 };
  }

  // The square under a pointer event, or null.
  squareAt(event) {
    if (!this.pos) return null;
    const pt = this.svg.createSVGPoint();
    pt.x = event.clientX;
    pt.y = event.clientY;
    const ctm = this.svg.getScreenCTM();
    if (!ctm) return null;
    const p = pt.matrixTransform(ctm.inverse());
    const n = this.pos.size;
    const col = Math.floor((p.x - MARGIN) / CELL);
    const row = Math.floor(p.y / CELL);
    if (col < 0 || row < 0 || col >= n || row >= n) return null;
    const file = this.flipped ? n - 1 - col : col;
    const rank = this.flipped ? row : n - 1 - row;
    return squareName(file, rank);
  }

  pieceAt(name) {
    const p = this.pos.pieces;
    if (p.king === name) return "king";
    if (p.attackers.includes(name)) return "attacker";
    if (p.defenders.includes(name)) return "defender";
    return null;
  }

  ownPiece(name) {
    const piece = this.pieceAt(name);
    if (!piece) return false;
    return this.pos.side === "attackers" ? piece === "attacker" : piece !== "attacker";
  }

  destinations(from) {
    return this.pos.legal.filter((m) => m.startsWith(from + "-")).map((m) => splitMove(m).to);
  }

  click(name) {
    if (this.editing) {
      this.onSquare(name);
      return;
    }
    if (!this.pos) return;
    if (this.pos.result) {
      this.onRefused(`The game is over: ${this.pos.result.text}.`);
      return;
    }
    if (!this.interactive) {
      this.onRefused("Wait for Konakis to move.");
      return;
    }
    if (this.selected) {
      if (name === this.selected) {
        this.selected = null;
        this.render();
        return;
      }
      if (this.ownPiece(name)) {
        this.select(name);
        return;
      }
      const move = `${this.selected}-${name}`;
      this.selected = null;
      this.render();
      this.onMove(move);
      return;
    }
    const piece = this.pieceAt(name);
    if (!piece) {
      this.onRefused(`Pick one of the ${this.pos.side}' pieces first.`);
    } else if (!this.ownPiece(name)) {
      this.onRefused(`It is the ${this.pos.side}' turn; that piece is the ${piece === "attacker" ? "attackers'" : "defenders'"}.`);
    } else {
      this.select(name);
    }
  }

  select(name) {
    this.selected = name;
    this.render();
    if (this.destinations(name).length === 0) {
      this.onRefused(`The piece on ${name} has no move.`);
    }
  }

  pointerDown(e) {
    const name = this.squareAt(e);
    if (!name) return;
    if (e.button === 2) {
      // The right button draws; it never moves.
      const brush = e.shiftKey ? "red" : e.altKey ? "blue" : e.ctrlKey ? "yellow" : "green";
      this.drawing = { from: name, brush };
      this.svg.setPointerCapture(e.pointerId);
      e.preventDefault();
      return;
    }
    if (e.button !== 0) return;
    if (this.shapes.length) {
      // A left click clears the drawing, as on lichess.
      this.shapes = [];
      this.renderArrows();
    }
    if (!this.editing && this.interactive && !this.pos.result && this.ownPiece(name)) {
      const node = this.svg.querySelector(`[data-square="${name}"].piece`);
      this.drag = { from: name, node, startX: e.clientX, startY: e.clientY, moved: false };
      this.svg.setPointerCapture(e.pointerId);
      e.preventDefault();
      return;
    }
    this.click(name);
    e.preventDefault();
  }

  pointerMove(e) {
    if (!this.drag) return;
    const dx = e.clientX - this.drag.startX;
    const dy = e.clientY - this.drag.startY;
    if (!this.drag.moved && Math.hypot(dx, dy) < 6) return;
    if (!this.drag.moved) {
      this.drag.moved = true;
      this.selected = this.drag.from;
      this.render();
      this.drag.node = this.svg.querySelector(`[data-square="${this.drag.from}"].piece`);
      if (this.drag.node) this.drag.node.classList.add("dragging");
    }
    const ctm = this.svg.getScreenCTM();
    if (!ctm || !this.drag.node) return;
    const scale = 1 / ctm.a;
    this.drag.node.setAttribute("transform", `translate(${dx * scale} ${dy * scale})`);
  }

  pointerUp(e) {
    if (this.drawing) {
      const { from, brush } = this.drawing;
      this.drawing = null;
      const to = this.squareAt(e);
      if (to) this.toggleShape(from, to, brush);
      return;
    }
    if (!this.drag) return;
    const drag = this.drag;
    this.drag = null;
    const name = this.squareAt(e);
    if (!drag.moved) {
      this.click(drag.from);
      return;
    }
    this.selected = null;
    this.render();
    if (name && name !== drag.from) {
      this.dropped = name;
      this.onMove(`${drag.from}-${name}`);
    }
  }

  cancelDrag() {
    this.drag = null;
    this.drawing = null;
    this.render();
  }

  // Draws an arrow (or a circle when `from` is `to`), or takes it away if
  // the same one is there; another colour on the same squares replaces it.
  toggleShape(from, to, brush) {
    const i = this.shapes.findIndex((s) => s.from === from && s.to === to);
    if (i >= 0) {
      const same = this.shapes[i].brush === brush;
      this.shapes.splice(i, 1);
      if (same) {
        this.renderArrows();
        return;
      }
    }
    this.shapes.push({ from, to, brush });
    this.renderArrows();
  }

  render() {
    const svg = this.svg;
    svg.replaceChildren();
    if (!this.pos) return;
    const n = this.pos.size;
    const width = MARGIN + n * CELL;
    const height = n * CELL + MARGIN;
    svg.setAttribute("viewBox", `0 0 ${width} ${height}`);
    const marks = this.pos.marks;
    const camps = new Set(marks.camps.flat());
    const hostile = new Set(marks.hostile);
    const corners = new Set(marks.corners);
    const restricted = new Set(marks.restricted);
    const squares = el("g", { class: "squares" }, svg);
    for (let rank = 0; rank < n; rank++) {
      for (let file = 0; file < n; file++) {
        const name = squareName(file, rank);
        const c = this.centre(name);
        const classes = ["square", (file + rank) % 2 ? "light" : "dark"];
        if (name === marks.throne) classes.push("throne");
        if (corners.has(name) && (marks.escape === "corners" || restricted.has(name))) classes.push("corner");
        if (marks.escape === "edge" && (file === 0 || rank === 0 || file === n - 1 || rank === n - 1)) classes.push("edge");
        if (camps.has(name)) classes.push("camp");
        if (hostile.has(name)) classes.push("hostile");
        if (this.lastMove && (this.lastMove.from === name || this.lastMove.to === name)) classes.push("last");
        if (this.selected === name) classes.push("selected");
        el("rect", {
          x: c.x - CELL / 2, y: c.y - CELL / 2, width: CELL, height: CELL,
          class: classes.join(" "), "data-square": name,
        }, squares);
        if (name === marks.throne || classes.includes("corner")) {
          // A St Andrew's cross marks the squares only the king may use.
          const d = CELL * 0.3;
          el("path", {
            d: `M${c.x - d} ${c.y - d}L${c.x + d} ${c.y + d}M${c.x + d} ${c.y - d}L${c.x - d} ${c.y + d}`,
            class: "mark",
          }, squares);
        }
      }
    }
    const coords = el("g", { class: "coords" }, svg);
    for (let i = 0; i < n; i++) {
      const file = this.flipped ? n - 1 - i : i;
      const t = el("text", { x: MARGIN + i * CELL + CELL / 2, y: n * CELL + MARGIN * 0.72 }, coords);
      t.textContent = String.fromCharCode(97 + file);
      const rank = this.flipped ? i : n - 1 - i;
      const r = el("text", { x: MARGIN * 0.5, y: i * CELL + CELL / 2 + 12 }, coords);
      r.textContent = String(rank + 1);
    }
    const ghosts = el("g", { class: "ghosts" }, svg);
    for (const name of this.captured || []) {
      const c = this.centre(name);
      el("circle", { cx: c.x, cy: c.y, r: CELL * 0.3, class: "ghost" }, ghosts);
    }
    const pieces = el("g", { class: "pieces" }, svg);
    const draw = (name, kind) => {
      const c = this.centre(name);
      const g = el("g", { class: `piece ${kind}`, "data-square": name, "data-piece": kind }, pieces);
      el("circle", { cx: c.x, cy: c.y, r: CELL * 0.38, class: "body" }, g);
      if (kind === "king") {
        const s = CELL * 0.2;
        el("path", {
          d: `M${c.x - s} ${c.y + s * 0.7}L${c.x - s} ${c.y - s * 0.5}L${c.x - s * 0.5} ${c.y}L${c.x} ${c.y - s * 0.9}L${c.x + s * 0.5} ${c.y}L${c.x + s} ${c.y - s * 0.5}L${c.x + s} ${c.y + s * 0.7}Z`,
          class: "crown",
        }, g);
      } else {
        el("circle", { cx: c.x, cy: c.y, r: CELL * 0.22, class: "ring" }, g);
      }
    };
    for (const s of this.pos.pieces.attackers) draw(s, "attacker");
    for (const s of this.pos.pieces.defenders) draw(s, "defender");
    if (this.pos.pieces.king) draw(this.pos.pieces.king, "king");
    if (this.selected && !this.editing) {
      const dots = el("g", { class: "dests" }, svg);
      for (const to of this.destinations(this.selected)) {
        const c = this.centre(to);
        el("circle", { cx: c.x, cy: c.y, r: CELL * 0.13, class: "dest", "data-square": to }, dots);
      }
    }
    el("g", { class: "arrows" }, svg);
    this.renderArrows();
  }

  renderArrows() {
    const layer = this.svg.querySelector("g.arrows");
    if (!layer || !this.pos) return;
    layer.replaceChildren();
    // Draw the weaker lines first, so the best arrow lies on top.
    for (const [i, a] of [...this.arrows.entries()].reverse()) {
      const { from, to } = splitMove(a.move);
      if (!from || !to) continue;
      const g = this.arrow(layer, from, to, i === 0 ? 16 : 10);
      if (!g) continue;
      g.setAttribute("class", `arrow ${a.kind || (i === 0 ? "best" : "other")}`);
      g.setAttribute("data-move", a.move);
    }
    for (const s of this.shapes) {
      if (s.from === s.to) {
        const c = this.centre(s.from);
        el("circle", { cx: c.x, cy: c.y, r: CELL * 0.45, class: `shape circle ${s.brush}`, "data-square": s.from }, layer);
      } else {
        const g = this.arrow(layer, s.from, s.to, 14);
        if (g) {
          g.setAttribute("class", `shape arrow ${s.brush}`);
          g.setAttribute("data-move", `${s.from}-${s.to}`);
        }
      }
    }
  }

  // An arrow from square to square of stroke width `w`, in `layer`.
  arrow(layer, from, to, w) {
    const p = this.centre(from);
    const q = this.centre(to);
    const len = Math.hypot(q.x - p.x, q.y - p.y);
    if (!len) return null;
    const ux = (q.x - p.x) / len;
    const uy = (q.y - p.y) / len;
    const head = w * 2.4;
    const sx = p.x + ux * CELL * 0.25;
    const sy = p.y + uy * CELL * 0.25;
    const ex = q.x - ux * head * 0.6;
    const ey = q.y - uy * head * 0.6;
    const px = -uy;
    const py = ux;
    const g = el("g", {}, layer);
    el("line", { x1: sx, y1: sy, x2: ex, y2: ey, "stroke-width": w }, g);
    const tip = `${q.x - ux * 8},${q.y - uy * 8}`;
    const l = `${ex - ux * head * 0.4 + px * head * 0.55},${ey - uy * head * 0.4 + py * head * 0.55}`;
    const r = `${ex - ux * head * 0.4 - px * head * 0.55},${ey - uy * head * 0.4 - py * head * 0.55}`;
    el("polygon", { points: `${tip} ${l} ${r}` }, g);
    return g;
  }
}
