// Small page-wide helpers: element lookup, the status line, the notice bar, copy buttons.
/**
 * The page's element with this id. Typed loosely on purpose: ids name inputs, selects and
 * buttons alike, and each caller knows which it asked for.
 * @type {(id: string) => any}
 */
export const $ = (id) => document.getElementById(id);

/** The status line at the bottom; `kind` styles it (idle, running, paused, done, error). */
export function setStatus(text, kind) {
  $('status').textContent = text;
  $('status').className = `status ${kind}`;
}

export function showNotice(text) {
  $('notice-text').textContent = text;
  $('notice').hidden = false;
}

/** Copies `text`, and says on `button` for a moment whether that worked. */
export async function copy(text, button) {
  const label = button.textContent;
  try {
    await navigator.clipboard.writeText(text);
    button.textContent = 'Copied';
  } catch {
    button.textContent = 'Copy failed: select and copy';
  }
  setTimeout(() => (button.textContent = label), 1500);
}
