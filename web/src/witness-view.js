// Witness mode's view (the Witnesses tab): the search's figures, the witnesses as they come
// (each with its changes, rule, line, before → after, and its unified diff to the failing
// program, as pair mode shows a pair's difference), and, when the endpoint measured the
// compiler's coverage, its files and functions ranked by suspiciousness (Ochiai). The page
// passes the run record (state.js) in; this module only draws.
import { formatDuration } from './progress.js';
import { $ } from './ui.js';

const RANKED_FILES = 10;
const RANKED_FUNCTIONS = 20;

export class WitnessView {
  /** onUseAsSeed(text): the person wants a witness as a pair's seed. */
  constructor({ onUseAsSeed }) {
    this.onUseAsSeed = onUseAsSeed;
    this.shown = 0; // witnesses in the list
  }

  /** A new search: empty figures and list. */
  reset(info = 'Looking for witnesses…') {
    for (const id of ['wit-queries', 'wit-witnesses', 'wit-failing', 'wit-passing', 'wit-rejected', 'wit-elapsed']) $(id).textContent = '–';
    $('witness-info').textContent = info;
    $('witness-list').replaceChildren();
    $('ranking').hidden = true;
    this.shown = 0;
    this.rankingShown = null;
  }

  /** The run's figures, its new witnesses and its ranking (after a 'progress' or 'finished'). */
  show(run, elapsedMs) {
    const s = run.stats;
    if (!s) return;
    $('wit-queries').textContent = `${s.queries} of ${s.budget}`;
    $('wit-witnesses').textContent = String(s.witnesses);
    $('wit-failing').textContent = String(s.failing);
    $('wit-passing').textContent = `${s.passing}${s.not_diverse ? ` (${s.not_diverse} not diverse)` : ''}`;
    $('wit-rejected').textContent = `${s.rejected}${s.syntax_rejected ? ` (+${s.syntax_rejected} did not parse)` : ''}`;
    if (elapsedMs !== undefined) $('wit-elapsed').textContent = formatDuration(elapsedMs);
    $('witness-info').textContent = summary(run);
    if (run.witnesses.length < this.shown) this.reset();
    for (const w of run.witnesses.slice(this.shown)) $('witness-list').append(this.item(w));
    this.shown = run.witnesses.length;
    if (run.ranking !== this.rankingShown) this.showRanking(run.ranking, run.witnesses.length);
  }

  item(w) {
    const box = el('details', 'witness');
    box.open = w.index < 3;
    box.dataset.index = String(w.index);
    const head = el('summary', null);
    head.append(el('span', 'witness-title', `Witness ${w.index + 1}`));
    head.append(el('span', 'hint', ` ${w.changes.length === 1 ? 'one change' : `${w.changes.length} changes`}${w.distance == null ? '' : `, distance ${w.distance.toFixed(2)}`}`));
    const changes = el('ul', 'witness-changes');
    for (const c of w.changes) {
      const li = el('li', null);
      li.append(el('span', 'hint', `line ${c.line}, ${c.rule}: `), el('code', 'before', c.before || '(nothing)'), ' → ', el('code', 'after', c.after || '(nothing)'));
      changes.append(li);
    }
    const diff = el('pre', 'code witness-diff');
    renderUnified(diff, w.diff);
    const use = el('button', 'small editable-only', 'Pair with it');
    use.title = 'Pair mode with this witness as the seed and the failing program as the variant, to reduce both to the difference that matters';
    use.addEventListener('click', () => this.onUseAsSeed(w.text));
    box.append(head, changes, diff, use);
    return box;
  }

  showRanking(ranking, witnesses) {
    this.rankingShown = ranking;
    $('ranking').hidden = !ranking;
    if (!ranking) return;
    // Without a witness every covered line scores alike: a ranking of ties says nothing.
    for (const id of ['ranking-files', 'ranking-functions']) $(id).hidden = witnesses === 0;
    if (witnesses === 0) {
      $('ranking-info').textContent = 'none yet: the compiler’s code is ranked against the witnesses’ coverage, and there is no witness';
      return;
    }
    $('ranking-info').textContent = `Ochiai: the coverage of the failing program and its failing mutants against that of ${witnesses} witness${witnesses === 1 ? '' : 'es'}`;
    table($('ranking-files'), 'file', ranking.files.slice(0, RANKED_FILES));
    table($('ranking-functions'), 'function', ranking.functions.slice(0, RANKED_FUNCTIONS));
  }
}

/** A line about the search so far. */
function summary(run) {
  const s = run.stats;
  if (s.original === 'untested') return 'Testing the failing program…';
  const n = run.witnesses.length;
  const found = n === 0 ? 'no witness yet' : `${n} witness${n === 1 ? '' : 'es'}`;
  return `${found} after ${s.queries} tests${s.max_order > 1 ? ` (mutants of up to ${s.max_order} changes tried)` : ''}${s.done ? '' : '…'}`;
}

/** The status line for a witness search's 'finished' message: {text, kind}. */
export function witnessFinishedStatus(msg) {
  const s = msg.stats;
  if (msg.state === 'failed') return { text: `failed: ${msg.message}`, kind: 'error' };
  if (!s) return { text: msg.state, kind: 'idle' };
  const n = s.witnesses;
  const counts = `${s.queries} tests: ${s.failing} still failing, ${s.passing} passing, ${s.rejected} rejected, in ${formatDuration(msg.elapsedMs)}`;
  if (msg.state === 'cancelled') return { text: `cancelled: ${n} witness${n === 1 ? '' : 'es'} after ${counts}`, kind: 'idle' };
  if (n === 0) return { text: `done: no witness in ${counts}. Raise the budget or try another search seed`, kind: 'done' };
  return { text: `done: ${n} witness${n === 1 ? '' : 'es'} in ${counts}`, kind: 'done' };
}

/** The status line while a pair's automatic seed is searched for. */
export const seedingStatus = (s) =>
  s ? `finding a seed… ${s.queries} of ${s.budget} tests, ${s.failing} mutants still failing, ${s.rejected} rejected` : 'finding a seed…';

/** "line 5: c > 10 → c >= 10; …" */
export const changesText = (changes) => changes.map((c) => `line ${c.line}: ${c.before} → ${c.after}`).join('; ');

/** A unified diff with its removed and added lines marked. */
function renderUnified(pre, diff) {
  pre.replaceChildren(...diff.split(/(?<=\n)/).map((line) => {
    if (/^(---|\+\+\+) /.test(line)) return el('span', 'diff-head', line);
    if (line.startsWith('-')) return el('del', null, line);
    if (line.startsWith('+')) return el('ins', null, line);
    if (line.startsWith('@@')) return el('span', 'diff-hunk', line);
    return document.createTextNode(line);
  }));
}

function table(t, what, rows) {
  const head = el('tr', null);
  for (const h of [what, 'score', 'lines']) head.append(el('th', null, h));
  t.replaceChildren(head, ...rows.map((r) => {
    const tr = el('tr', null);
    tr.append(el('td', null, r.name), el('td', null, r.score.toFixed(3)), el('td', null, String(r.statements)));
    return tr;
  }));
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}
