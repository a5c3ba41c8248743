// Generator mode's views: the original output (the generator's free run) and the trace tree
// of the best output, the original's tree with what the reduction removed struck out
// (generator-trace.js). The page passes the run record (state.js) in; this module only draws.
import { countUnits, markTrace } from './generator-trace.js';
import { $ } from './ui.js';

export class GeneratorView {
  /** A new run: nothing to show yet. */
  reset() {
    $('generator-original').textContent = '';
    $('generator-trace').replaceChildren();
    $('generator-trace-info').textContent = '';
  }

  /** The free run's output (from a run, or from Check). */
  showOriginal(output, trace, picks = null) {
    $('generator-original').textContent = output;
    if (trace) this.showTrace(trace, null, picks);
  }

  /** The run's trees: the original's, marked against the best's. */
  showRun(run) {
    if (run.original?.variant != null) $('generator-original').textContent = run.original.variant;
    if (run.originalTrace) this.showTrace(run.originalTrace, run.trace, run.picks);
    else if (run.trace) this.showTrace(run.trace, null, run.picks);
  }

  /** `picks`: {label: [value as text]}, to show a pick's value rather than its index. */
  showTrace(original, best, picks = null) {
    const marked = markTrace(original, best);
    const { kept, total } = countUnits(marked.nodes);
    $('generator-trace-info').textContent = !best
      ? `${total} unit${total === 1 ? '' : 's'} (loop iterations and taken selections)`
      : marked.exact
        ? `${kept} of ${total} units kept; removed ones struck out`
        : 'the best run’s own trace (a re-aligned replay changed some values)';
    $('generator-trace').replaceChildren(renderNodes(marked.nodes, picks ?? {}));
  }
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function renderNodes(nodes, picks) {
  const ul = el('ul');
  for (const n of nodes) ul.append(renderNode(n, picks));
  return ul;
}

function renderNode(n, picks) {
  const li = el('li', n.removed ? 'removed' : '');
  li.dataset.kind = n.kind;
  const head = el('span', 'trace-node');
  head.append(el('span', 'trace-label', n.label));
  li.append(head);
  if (n.kind === 'int') {
    const drawn = Object.hasOwn(picks, n.label) ? picks[n.label][n.value] : undefined;
    if (drawn === undefined) head.append(` = ${n.value}`);
    else head.append(` = ${drawn}`, el('span', 'hint', ` (choice ${n.value})`));
  } else if (n.kind === 'loop') {
    const kept = n.iterations.filter((it) => !it.removed).length;
    head.append(el('span', 'hint', ` loop: ${kept === n.iterations.length ? n.iterations.length : `${kept} of ${n.iterations.length}`} iteration${n.iterations.length === 1 ? '' : 's'}`));
    const ol = el('ol');
    n.iterations.forEach((it, i) => {
      const item = el('li', it.removed ? 'removed unit' : 'unit');
      item.append(el('span', 'hint', `iteration ${i + 1}`), renderNodes(it.nodes, picks));
      ol.append(item);
    });
    li.append(ol);
  } else if (n.kind === 'maybe') {
    head.append(el('span', 'hint', n.body ? (n.body.removed ? ' maybe: taken, removed' : ' maybe: taken') : ' maybe: not taken'));
    if (n.body) {
      const body = el('div', n.body.removed ? 'removed unit' : 'unit');
      body.append(renderNodes(n.body.nodes, picks));
      li.append(body);
    }
  }
  return li;
}
