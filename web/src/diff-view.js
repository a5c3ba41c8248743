// The result's diff against the original, from the engine's token diff: kept text plain,
// deleted text struck out, inserted text highlighted. Long deleted runs fold to one line.

const FOLD_LINES = 6;

export function renderDiff(container, chunks) {
  const frag = document.createDocumentFragment();
  let deleted = 0;
  for (const { tag, text } of chunks) {
    if (tag === 'equal') frag.append(text);
    else if (tag === 'insert') frag.append(node('ins', text));
    else {
      deleted += text.length;
      const lines = text.split('\n').length - 1;
      if (lines <= FOLD_LINES) frag.append(node('del', text));
      else frag.append(folded(text, lines));
    }
  }
  container.replaceChildren(frag);
  return { deletedChars: deleted };
}

function folded(text, lines) {
  const fold = node('span', `⋯ ${lines} deleted lines (show)`);
  fold.className = 'fold';
  fold.title = 'Click to show the deleted text';
  fold.addEventListener('click', () => fold.replaceWith(node('del', text)), { once: true });
  return fold;
}

function node(tag, text) {
  const e = document.createElement(tag);
  e.textContent = text;
  return e;
}
