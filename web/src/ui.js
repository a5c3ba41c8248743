// Small page-wide helpers: element lookup, the status line, the notice bar, copy buttons.
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
