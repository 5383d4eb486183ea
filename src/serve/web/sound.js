// @ts-check
// An optional move sound, made on the spot by the Web Audio API (no file
// to fetch): a short wooden knock, a lower double knock for a capture.

/** @type {AudioContext | null} */
let context = null;

/**
 * One knock at `when` (seconds on the context's clock).
 * @param {AudioContext} ctx
 * @param {number} when
 * @param {number} pitch
 */
function knock(ctx, when, pitch) {
  const osc = ctx.createOscillator();
  const gain = ctx.createGain();
  osc.type = "triangle";
  osc.frequency.setValueAtTime(pitch, when);
  osc.frequency.exponentialRampToValueAtTime(pitch * 0.55, when + 0.08);
  gain.gain.setValueAtTime(0.0001, when);
  gain.gain.exponentialRampToValueAtTime(0.35, when + 0.004);
  gain.gain.exponentialRampToValueAtTime(0.0001, when + 0.12);
  osc.connect(gain).connect(ctx.destination);
  osc.start(when);
  osc.stop(when + 0.14);
}

/**
 * Plays the sound of a move (`capture`: it took pieces).
 * @param {boolean} capture
 */
export function playMoveSound(capture) {
  try {
    const Ctx = window.AudioContext;
    if (!Ctx) return;
    if (!context) context = new Ctx();
    if (context.state === "suspended") context.resume();
    const now = context.currentTime + 0.01;
    knock(context, now, capture ? 260 : 420);
    if (capture) knock(context, now + 0.07, 200);
  } catch {
    /* no audio on this device: moves stay silent */
  }
}
