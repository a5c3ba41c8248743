// The minimized pair side by side, with the tokens that differ highlighted (from the engine's
// token diff of seed against variant), and the unified diff below.

/** best: {seed, variant, diff}; chunks: engine diff(seed, variant) or null while unknown. */
export function renderPair({ seed, variant, diff }, chunks, els) {
  if (chunks) {
    els.seed.replaceChildren(...chunks.filter((c) => c.tag !== 'insert').map((c) => piece(c, 'del')));
    els.variant.replaceChildren(...chunks.filter((c) => c.tag !== 'delete').map((c) => piece(c, 'ins')));
  } else {
    els.seed.textContent = seed;
    els.variant.textContent = variant;
  }
  els.diff.textContent = diff;
}

function piece({ tag, text }, mark) {
  if (tag === 'equal') return document.createTextNode(text);
  const e = document.createElement(mark);
  e.textContent = text;
  return e;
}
