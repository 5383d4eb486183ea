// @ts-check
// The one way the page's modules find their elements.

/**
 * The element `id` of the page (every id the code names is in
 * index.html; typed loosely, as its kind varies: input, select, svg…).
 * @param {string} id
 * @returns {any}
 */
export function $(id) {
  return document.getElementById(id);
}
