// @ts-check
// The game as a tree: each node is the position after one more move; the
// first child continues the main line, the others are variations (a move
// played from an earlier position starts one).

export class Node {
  constructor(parent, move, notation) {
    this.parent = parent;
    this.move = move; // "d1-d3", null at the root
    this.notation = notation || move; // with captures: "d1-d3xd4"
    this.children = [];
    this.pos = null; // /api/position's answer, fetched when needed
    this.review = null; // {score, best, loss, mark} once reviewed
    this.eval = null; // {chance, score, side}: the last search's verdict here
  }

  get ply() {
    let n = 0;
    for (let x = this; x.parent; x = x.parent) n++;
    return n;
  }

  // The moves from the root to here.
  path() {
    const moves = [];
    for (let x = this; x.parent; x = x.parent) moves.push(x.move);
    return moves.reverse();
  }

  // Whether this node lies on the main line.
  isMain() {
    for (let x = this; x.parent; x = x.parent) {
      if (x.parent.children[0] !== x) return false;
    }
    return true;
  }

  // The nodes from here on along first children (this one included).
  continuation() {
    const out = [this];
    for (let x = this; x.children.length; x = x.children[0]) out.push(x.children[0]);
    return out;
  }

  // The line through this node: the root, this node, and its continuation.
  line() {
    const back = [];
    for (let x = this.parent; x; x = x.parent) back.push(x);
    return back.reverse().concat(this.continuation());
  }
}

export class GameTree {
  // `setup`: {variant, rules, start}.
  constructor(setup) {
    this.setup = setup;
    this.root = new Node(null, null, null);
  }

  // The child of `node` for `move`, made if new (a variation when `node`
  // already has a continuation).
  add(node, move, notation) {
    const known = node.children.find((c) => c.move === move);
    if (known) {
      if (notation) known.notation = notation;
      return known;
    }
    const child = new Node(node, move, notation);
    node.children.push(child);
    return child;
  }

  // Takes `node` and what follows it out of the tree.
  remove(node) {
    if (!node.parent) return;
    node.parent.children = node.parent.children.filter((c) => c !== node);
  }

  // Makes `node`'s line the main line from its branching point up.
  promote(node) {
    for (let x = node; x.parent; x = x.parent) {
      const siblings = x.parent.children;
      const i = siblings.indexOf(x);
      if (i > 0) {
        siblings.splice(i, 1);
        siblings.unshift(x);
      }
    }
  }

  mainLine() {
    return this.root.continuation();
  }

  // The request fields that name the position at `node`.
  request(node) {
    return { ...this.setup, moves: node.path() };
  }
}
