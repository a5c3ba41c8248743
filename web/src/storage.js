// Local storage: the page's last state, and the best result of the last reduction, so both
// survive a reload. Embeds never write (they are someone else's page).

const STATE_KEY = 'whittle.state.v1';
const BEST_KEY = 'whittle.best.v1';

let writable = true;

export function disableWrites() {
  writable = false;
}

export function saveState(state) {
  write(STATE_KEY, state);
}

export function loadState() {
  return read(STATE_KEY);
}

/** best: see bestRecord in state.js. */
export function saveBest(best) {
  write(BEST_KEY, best);
}

export function loadBest() {
  return read(BEST_KEY);
}

export function clearBest() {
  if (writable) localStorage.removeItem(BEST_KEY);
}

function write(key, value) {
  if (!writable) return;
  try {
    localStorage.setItem(key, JSON.stringify(value));
  } catch (e) {
    // Full (a huge program) or disabled: the page works on without it.
    console.warn(`whittle: could not save to local storage: ${e.message}`);
  }
}

function read(key) {
  try {
    return JSON.parse(localStorage.getItem(key) ?? 'null');
  } catch {
    return null;
  }
}
