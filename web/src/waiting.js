// Seconds counting while something runs: the elapsed figure of the running view ticks every
// second, and when nothing has been heard for a while (an endpoint that has not answered
// yet, a slow first compile) the status line says for how long, so that a wait never looks
// like a hang.
import { formatDuration } from './progress.js';
import { $ } from './ui.js';

const QUIET_MS = 2000;
const SUFFIX = / · nothing heard for \d+ s$/;

export class Waiting {
  constructor() {
    this.timer = 0;
  }

  /** A run started: `elapsedId` is the element of its elapsed time (Progress or Witnesses). */
  start(elapsedId) {
    this.stop();
    this.elapsedId = elapsedId;
    this.started = this.heardAt = performance.now();
    this.timer = setInterval(() => this.tick(), 1000);
  }

  /** The run said something (progress, a state): the quiet ends. */
  heard() {
    this.heardAt = performance.now();
    const status = $('status');
    if (SUFFIX.test(status.textContent)) status.textContent = status.textContent.replace(SUFFIX, '');
  }

  /** `running`: the run is running (not paused). */
  tick(running = $('status').classList.contains('running')) {
    const now = performance.now();
    if (!running) return;
    $(this.elapsedId).textContent = formatDuration(now - this.started);
    const quiet = now - this.heardAt;
    if (quiet < QUIET_MS) return;
    const status = $('status');
    status.textContent = `${status.textContent.replace(SUFFIX, '')} · nothing heard for ${Math.floor(quiet / 1000)} s`;
  }

  stop() {
    clearInterval(this.timer);
    this.timer = 0;
  }
}

/** Shows `text` in `el` now and, after two seconds, with the seconds counting; call the
 *  returned function to stop. */
export function countSeconds(el, text) {
  const t0 = performance.now();
  el.textContent = text;
  const timer = setInterval(() => {
    const s = Math.floor((performance.now() - t0) / 1000);
    if (s >= 2) el.textContent = `${text} ${s} s`;
  }, 1000);
  return () => clearInterval(timer);
}
