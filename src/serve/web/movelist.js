// @ts-check
// The move list: a view drawn anew from the game tree, numbered as people
// number turns (`1. d1-d3 f4-f3`, `1…` for a line that starts with the
// second side), variations in brackets, review marks after the moves.

/** @typedef {import("./tree.js").Node} Node */

/**
 * @typedef {{
 *   root: Node,
 *   current: Node,
 *   offset: number,
 *   result: {text?: string, winner?: string | null} | null,
 *   onJump: (node: Node) => void,
 * }} View
 * `offset` is 1 when the root's side to move is not the side that moves
 * first in the variant (the first move is then the second of a turn).
 */

/**
 * @param {Node} node
 * @param {View} view
 */
function moveSpan(node, view) {
  const span = document.createElement("span");
  span.className = "mv";
  if (node === view.current) span.classList.add("current");
  if (node.review && node.review.mark) span.classList.add(node.review.mark);
  span.textContent = node.notation || node.move;
  span.dataset.ply = String(node.ply);
  span.addEventListener("click", () => view.onJump(node));
  return span;
}

/**
 * A move with its number, never broken across lines.
 * @param {HTMLElement} parent
 * @param {Node} node
 * @param {boolean} forceNumber
 * @param {View} view
 */
function appendMove(parent, node, forceNumber, view) {
  const index = node.ply - 1 + view.offset;
  const turn = Math.floor(index / 2) + 1;
  const unit = document.createElement("span");
  unit.className = "turn";
  if (index % 2 === 0 || forceNumber) {
    const num = document.createElement("span");
    num.className = "num";
    num.textContent = index % 2 === 0 ? `${turn}.` : `${turn}…`;
    unit.append(num);
  }
  unit.append(moveSpan(node, view));
  parent.append(unit, " ");
}

/**
 * @param {HTMLElement} parent
 * @param {Node} from
 * @param {View} view
 */
function appendLine(parent, from, view) {
  let x = from;
  let force = true;
  while (x.children.length) {
    const main = x.children[0];
    appendMove(parent, main, force, view);
    force = false;
    for (const v of x.children.slice(1)) {
      const box = document.createElement("span");
      box.className = "variation";
      box.append("( ");
      appendMove(box, v, true, view);
      appendLine(box, v, view);
      box.append(") ");
      parent.append(box);
      force = true;
    }
    x = main;
  }
}

/**
 * Draws the list into `box` and scrolls the list, never the page (a page
 * that jumps under the pointer, or pushes the board off a phone's
 * screen), to the current move.
 * @param {HTMLElement} box
 * @param {View} view
 */
export function drawMoveList(box, view) {
  box.replaceChildren();
  appendLine(box, view.root, view);
  if (view.result) {
    const r = document.createElement("span");
    r.className = "result";
    const text = view.result.text || (view.result.winner ? `the ${view.result.winner} win` : "a draw");
    r.textContent = text.charAt(0).toUpperCase() + text.slice(1) + ".";
    box.append(r);
  }
  const cur = box.querySelector(".mv.current");
  if (cur) {
    const b = box.getBoundingClientRect();
    const c = cur.getBoundingClientRect();
    if (c.top < b.top) box.scrollTop -= b.top - c.top;
    else if (c.bottom > b.bottom) box.scrollTop += c.bottom - b.bottom;
  }
}
