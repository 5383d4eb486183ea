// @ts-check
// What survives a reload and what a link carries. The whole game tree
// (variations, reviews and evaluations included) is kept in the browser's
// local storage; the address names the line on the board and the move
// shown (`#variant=…&moves=…&ply=…`), so a position or game can be shared.

import { GameTree, Node } from "./tree.js";

const KEY = "konakis.game";
const VERSION = 1;

/**
 * @typedef {{variant: string, rules: Object<string, string>, start: string}} Setup
 * @typedef {{m: string, n?: string, r?: any, e?: any, c?: SavedNode[]}} SavedNode
 * @typedef {{variant: string, rules: Object<string, string>, start: string, moves: string[], ply: number}} Link
 */

/**
 * A node and what follows it, as plain data.
 * @param {Node} node
 * @returns {SavedNode}
 */
function saveNode(node) {
  /** @type {SavedNode} */
  const out = { m: node.move || "" };
  if (node.notation && node.notation !== node.move) out.n = node.notation;
  if (node.review) out.r = node.review;
  if (node.eval) out.e = node.eval;
  if (node.children.length) out.c = node.children.map(saveNode);
  return out;
}

/**
 * @param {Node} parent
 * @param {SavedNode[]} children
 */
function loadChildren(parent, children) {
  for (const c of children || []) {
    if (typeof c.m !== "string" || !/^[a-z]\d+-[a-z]\d+$/.test(c.m)) continue;
    const node = new Node(parent, c.m, c.n || c.m);
    node.review = c.r || null;
    node.eval = c.e || null;
    parent.children.push(node);
    loadChildren(node, c.c || []);
  }
}

/**
 * The child indices that lead from the root to `node`.
 * @param {Node} node
 * @returns {number[]}
 */
export function pathOf(node) {
  const out = [];
  for (let x = node; x.parent; x = x.parent) out.push(x.parent.children.indexOf(x));
  return out.reverse();
}

/**
 * The node at child indices `path` (as far as it leads).
 * @param {GameTree} tree
 * @param {number[]} path
 */
export function nodeAt(tree, path) {
  let x = tree.root;
  for (const i of path || []) {
    if (!x.children[i]) break;
    x = x.children[i];
  }
  return x;
}

/**
 * Writes the page's state; `state.tree` is a GameTree, the rest plain data.
 * @param {{tree: GameTree, current: Node, extra: Object}} state
 */
export function save({ tree, current, extra }) {
  const data = {
    version: VERSION,
    setup: tree.setup,
    root: saveNode(tree.root),
    current: pathOf(current),
    ...extra,
  };
  try {
    localStorage.setItem(KEY, JSON.stringify(data));
  } catch {
    /* storage full or refused: the game lives on in the page */
  }
}

/**
 * The saved state: the tree rebuilt, the current node and the rest as
 * saved; null when there is none or it is from another version.
 */
export function load() {
  let data;
  try {
    data = JSON.parse(localStorage.getItem(KEY) || "null");
  } catch {
    return null;
  }
  if (!data || data.version !== VERSION || !data.setup || typeof data.setup.variant !== "string") return null;
  const tree = new GameTree({ variant: data.setup.variant, rules: data.setup.rules || {}, start: data.setup.start || "startpos" });
  const root = data.root || {};
  tree.root.review = root.r || null;
  tree.root.eval = root.e || null;
  loadChildren(tree.root, root.c || []);
  return { tree, current: nodeAt(tree, data.current), data };
}

export function forget() {
  localStorage.removeItem(KEY);
}

/**
 * The address fragment that names the line through `node` and the move shown.
 * @param {GameTree} tree
 * @param {Node} node
 */
export function fragment(tree, node) {
  const line = node.line();
  const tip = line[line.length - 1];
  const p = new URLSearchParams();
  p.set("variant", tree.setup.variant);
  const rules = Object.entries(tree.setup.rules || {});
  if (rules.length) p.set("rules", rules.map(([k, v]) => `${k}:${v}`).join(","));
  if (tree.setup.start && tree.setup.start !== "startpos") p.set("start", tree.setup.start);
  const moves = tip.path();
  if (moves.length) p.set("moves", moves.join(","));
  if (node.ply !== moves.length) p.set("ply", String(node.ply));
  return "#" + p.toString();
}

/**
 * The game an address names, or null.
 * @param {string} hash
 * @returns {Link | null}
 */
export function parseFragment(hash) {
  if (!hash || hash.length < 2) return null;
  const p = new URLSearchParams(hash.slice(1));
  const variant = p.get("variant");
  if (!variant) return null;
  /** @type {Object<string, string>} */
  const rules = {};
  for (const pair of (p.get("rules") || "").split(",")) {
    const [k, v] = pair.split(":");
    if (k && v) rules[k] = v;
  }
  const moves = (p.get("moves") || "").split(",").filter((m) => m);
  const ply = p.has("ply") ? Math.max(0, Math.min(moves.length, parseInt(p.get("ply") || "0", 10) || 0)) : moves.length;
  return { variant, rules, start: p.get("start") || "startpos", moves, ply };
}

/**
 * Whether a saved tree holds the line a link names (then the saved state,
 * with its variations and reviews, is the better one to open).
 * @param {GameTree} tree
 * @param {Link} link
 */
export function holds(tree, link) {
  const s = tree.setup;
  if (s.variant !== link.variant || (s.start || "startpos") !== link.start) return false;
  if (JSON.stringify(s.rules || {}) !== JSON.stringify(link.rules)) return false;
  let x = tree.root;
  for (const m of link.moves) {
    const next = x.children.find((c) => c.move === m);
    if (!next) return false;
    x = next;
  }
  return true;
}

/**
 * The node a link's line and ply lead to in `tree` (which holds it).
 * @param {GameTree} tree
 * @param {Link} link
 */
export function nodeOfLink(tree, link) {
  let x = tree.root;
  for (const m of link.moves.slice(0, link.ply)) {
    const next = x.children.find((c) => c.move === m);
    if (!next) break;
    x = next;
  }
  return x;
}
