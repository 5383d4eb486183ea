// @ts-check
// The Import and Export dialogs: records read by the server (/api/import)
// into games the page opens, and the line on the board written as a
// Konakis or OpenTafl record (/api/export). The page tells it how to open
// a game and what to export; it knows nothing else of the page.

import { $ } from "./dom.js";
import { postJSON, errorText } from "./api.js";

/**
 * @typedef {{index: number, line: number, variant: string, rules: Object<string, string>, start: string,
 *   moves: string[], guessed: boolean, result: any, recorded: any, attackers?: string, defenders?: string,
 *   note?: string}} ImportedGame
 * @typedef {{
 *   currentVariant: () => string,
 *   openGame: (g: ImportedGame) => Promise<boolean>,
 *   say: (text: string, info?: boolean) => void,
 *   exportRequest: () => Object,
 * }} Page
 */


/**
 * Copies `text` to the clipboard; false when the browser refuses.
 * @param {string} text
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    const area = document.createElement("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    return ok;
  }
}

/** @type {ImportedGame[]} */
let imported = [];
let format = "konakis";

/** @param {Page} page */
async function readImport(page) {
  $("import-message").textContent = "";
  $("import-load").disabled = true;
  $("import-games").hidden = true;
  try {
    const answer = await postJSON("/api/import", { text: $("import-text").value, variant: $("import-variant").value });
    imported = answer.games;
    const choice = $("import-choice");
    choice.replaceChildren();
    for (const g of imported) {
      const o = document.createElement("option");
      o.value = String(g.index);
      const result = g.result || g.recorded;
      const who = g.attackers || g.defenders ? ` · ${g.attackers || "?"} – ${g.defenders || "?"}` : "";
      o.textContent = `#${g.index + 1} (line ${g.line}) · ${g.variant}${g.guessed ? " (guessed)" : ""} · ${g.moves.length} plies` +
        (result ? ` · ${result.winner ? result.winner + " won" : "draw"}` : "") + who;
      choice.append(o);
    }
    $("import-games").hidden = imported.length < 2;
    $("import-load").disabled = false;
    const notes = [];
    if (answer.errors.length) notes.push(`${answer.errors.length} record(s) could not be read; the first: ${answer.errors[0]}`);
    if (answer.truncated) notes.push(`only the first ${imported.length} games are listed`);
    $("import-message").textContent = notes.join("; ");
    if (imported.length === 1) await loadImported(page);
  } catch (e) {
    $("import-message").textContent = errorText(e);
  }
}

/** @param {Page} page */
async function loadImported(page) {
  const g = imported.find((x) => String(x.index) === String($("import-choice").value)) || imported[0];
  if (!g) return;
  try {
    if (!(await page.openGame(g))) return;
  } catch {
    return;
  }
  $("import-dialog").close();
  const notes = [`Loaded game ${g.index + 1}: ${g.moves.length} plies of ${g.variant}${g.guessed ? " (the record names no rules: guessed)" : ""}.`];
  if (g.recorded && !g.result) notes.push(`Recorded result: ${g.recorded.text}.`);
  if (g.note) notes.push(g.note + ".");
  page.say(notes.join(" "), true);
}

/** @param {Page} page */
async function refreshExport(page) {
  $("export-message").textContent = "";
  try {
    const answer = await postJSON("/api/export", { ...page.exportRequest(), format });
    $("export-text").value = answer.text;
  } catch (e) {
    $("export-text").value = "";
    $("export-message").textContent = errorText(e);
  }
}

/**
 * Wires the Import and Export buttons and dialogs.
 * @param {Page} page
 */
export function wire(page) {
  $("import").addEventListener("click", () => {
    $("import-variant").value = page.currentVariant();
    $("import-message").textContent = "";
    $("import-dialog").showModal();
  });
  $("import-file").addEventListener("change", async () => {
    const file = $("import-file").files[0];
    if (!file) return;
    if (file.size > 8 * 1024 * 1024) {
      $("import-message").textContent = "That file is larger than 8 MiB.";
      return;
    }
    $("import-text").value = await file.text();
    readImport(page);
  });
  $("import-read").addEventListener("click", () => readImport(page));
  $("import-load").addEventListener("click", () => loadImported(page));
  $("export").addEventListener("click", () => {
    $("export-dialog").showModal();
    refreshExport(page);
  });
  const formats = /** @type {NodeListOf<HTMLButtonElement>} */ (document.querySelectorAll("#export-dialog [data-format]"));
  for (const b of formats) {
    b.addEventListener("click", () => {
      format = b.dataset.format || "konakis";
      for (const x of formats) x.classList.toggle("active", x === b);
      refreshExport(page);
    });
  }
  $("export-copy").addEventListener("click", async () => {
    $("export-message").textContent = (await copyText($("export-text").value)) ? "Copied." : "Select the text and copy it.";
  });
  $("export-save").addEventListener("click", () => {
    const blob = new Blob([$("export-text").value], { type: "text/plain" });
    const a = document.createElement("a");
    a.href = URL.createObjectURL(blob);
    a.download = format === "opentafl" ? "konakis-game.otg" : "konakis-game.txt";
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
}
