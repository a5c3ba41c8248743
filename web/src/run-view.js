// The panels a reduction feeds: Progress (figures, chart, history), Result (the best so far:
// one program, or a pair side by side with its difference), Diff (the original against the
// result) and Output (what the endpoint answered). The page passes the worker's messages and
// the run record (state.js) in; this module only draws.
import { ProgressView, formatDuration } from './progress.js';
import { renderDiff } from './diff-view.js';
import { renderPair } from './pair-view.js';
import { renderOutput } from './output-view.js';
import { commandLine } from './setup-summary.js';
import { sideLabel } from './state.js';
import { $ } from './ui.js';

export class RunView {
  /** engine: the EngineClient (for token diffs); embed: no "Edit it" button in an embed;
   *  onPick(side, property, label): a diagnostic in the Output tab was clicked. */
  constructor({ engine, embed, onPick = null }) {
    this.engine = engine;
    this.embed = embed;
    this.onPick = onPick;
    this.progress = new ProgressView({
      chart: $('chart'),
      tokens: $('progress-tokens'),
      queries: $('progress-queries'),
      qps: $('progress-qps'),
      cache: $('progress-cache'),
      pass: $('progress-pass'),
      elapsed: $('progress-elapsed'),
      engine: $('progress-engine'),
      guard: $('progress-guard'),
      limit: $('progress-limit'),
      undone: $('progress-undone'),
      passes: $('passes'),
      history: $('history'),
    });
    this.pairDiffSeq = 0;
    this.offers = [];
  }

  /** A new run: empty panels, `info` where the result will be, `setup` what it tests. */
  reset(info, setup = '') {
    this.progress.reset();
    $('result').textContent = '';
    for (const id of ['result-seed', 'result-variant', 'result-diff', 'result-seed-info', 'result-variant-info', 'result-diff-info']) $(id).textContent = '';
    $('diff').replaceChildren();
    $('result-info').textContent = info;
    $('result-setup').textContent = setup;
    $('result-copy').hidden = true;
    $('result-use').hidden = true;
    $('result-flags').hidden = true;
  }

  /** A 'progress' or 'finished' message; a finished one brings the history of accepted steps. */
  update(msg) {
    this.progress.update(msg);
    if (msg.type === 'finished') this.progress.setHistory(msg.history);
  }

  /** The Result tab: the run's best so far (`restored`: from local storage). */
  showResult(run, finished, restored = false) {
    const s = run.stats;
    const work = run.replay ? 'replayed' : restored ? 'restored' : `${s.queries} queries${finished ? '' : ' so far'}`;
    $('result-info').textContent = `${s.tokens_before} → ${s.tokens_now} tokens (${percent(s)}), ${work}`;
    $('result-copy').hidden = false;
    if (run.setup) $('result-setup').textContent = run.setup;
    $('result-use').hidden = this.embed;
    this.showFlags(run, finished);
    if (!run.pair) {
      $('result').textContent = resultText(run);
      return;
    }
    const els = { seed: $('result-seed'), variant: $('result-variant'), diff: $('result-diff') };
    renderPair(run.best, null, els);
    $('result-seed-info').textContent = `${s.seed_tokens_before} → ${s.seed_tokens_after} tokens`;
    $('result-variant-info').textContent = `${s.variant_tokens_before} → ${s.variant_tokens_after} tokens`;
    $('result-diff-info').textContent = `${s.diff_tokens_before} → ${s.diff_tokens_after} tokens`;
    // Mark the differing tokens once the engine has diffed the pair (the latest pair only).
    const seq = ++this.pairDiffSeq;
    this.engine.diff(run.best.seed, run.best.variant).then((chunks) => seq === this.pairDiffSeq && renderPair(run.best, chunks, els), () => {});
  }

  /** The fewest flags that keep the property, once a flag reduction tried them (a run with
   *  reduceFlags), with build B's for a wrong-code property. */
  showFlags(run, finished) {
    $('result-flags').hidden = !run.flags;
    if (!run.flags) return;
    const { main, b } = run.flags;
    const words = (f) => (f.trim() ? f.trim() : '(none)');
    $('result-flags-text').textContent = `${finished ? 'Fewest flags' : 'Flags so far'} that keep the property: ${words(main)}${b !== undefined ? `; build B: ${words(b)}` : ''}`;
    $('result-flags-use').hidden = this.embed || !finished;
  }

  /** The Diff tab: the original program (a pair's variant) against its reduced form. */
  async showDiff(run) {
    if (!run?.best) return;
    const target = $('diff');
    if (run.state === 'running' && !run.replay) {
      // Diffing a large program costs the worker time the reduction needs: only between runs.
      target.textContent = 'The diff is shown when the reduction stops.';
      delete target.dataset.diffOf;
      return;
    }
    // A large program takes the engine a while to diff: say so rather than show nothing, or
    // another program's diff, or the note above.
    const best = run.pair ? run.best.variant : run.best;
    const key = `${run.id}:${best.length}`;
    if (target.dataset.diffOf !== key) target.textContent = 'Diffing…';
    try {
      renderDiff(target, await this.engine.diff(run.original.variant, best));
      target.dataset.diffOf = key;
    } catch (e) {
      target.textContent = `could not diff: ${e.message}`;
    }
  }

  /** The Output tab: the endpoint's answers by side ('variant', 'seed'); `pair` names them;
   *  `compiler`: the id the answers are from (with their options, the command that ran). */
  /** Templates the Output tab offers besides those its answers show ({label, property}). */
  setOffers(offers) {
    this.offers = offers;
  }

  async showOutputs(bySide, what, pair, compiler = '') {
    const shown = (this.outputsShown = (this.outputsShown ?? 0) + 1);
    const sides = Object.keys(bySide);
    const pickable = this.onPick && !this.embed;
    // The crash's signature and the errors are the engine's (the CLI's templates read them alike).
    const read = await Promise.all(sides.map((side) =>
      pickable ? this.engine.readAnswer(bySide[side]).catch(() => ({ signature: null, errors: [] })) : { signature: null, errors: [] }));
    if (shown !== this.outputsShown) return; // newer outputs are shown meanwhile
    const parts = sides.flatMap((side, i) => {
      const r = bySide[side];
      const command = r.options ? commandLine(compiler, r.options) : '';
      return renderOutput(r, `${what}${sides.length > 1 ? `: ${sideLabel(pair, side)}` : ''}`, command,
        pickable ? (property, label) => this.onPick(side, property, label) : null, read[i], side === 'variant' ? this.offers : []);
    });
    $('output').replaceChildren(...parts);
  }
}

/** The result as text to copy. */
export const resultText = (run) =>
  run.pair
    ? `/* seed */\n${run.best.seed}\n/* variant */\n${run.best.variant}`
    : // (a folder's: the program, then each file left, under its name)
      [run.best, ...(run.files ?? []).map((f) => `/* ---- ${f.filename} ---- */\n${f.contents}`)].join('\n');

/** The status line for a run's 'finished' message: {text, kind}. */
export function finishedStatus(run, msg) {
  const s = msg.stats;
  const seedSearch = run.seedSearch ? `, after ${run.seedSearch.queries} finding the seed` : '';
  const work = run.replay ? `replayed from ${msg.verdicts.length} recorded verdicts, no compiler used` : `${s?.queries} queries${seedSearch}`;
  const sizes = s && (run.pair
    ? `seed ${s.seed_tokens_before} → ${s.seed_tokens_after}, variant ${s.variant_tokens_before} → ${s.variant_tokens_after}, diff ${s.diff_tokens_before} → ${s.diff_tokens_after} tokens`
    : `${s.tokens_before} → ${s.tokens_now} tokens`);
  const summary = s ? `${sizes} (${work}) in ${formatDuration(msg.elapsedMs)}` : '';
  if (msg.state === 'done') return { text: `done: ${summary}`, kind: 'done' };
  if (msg.state === 'cancelled') return { text: s ? `cancelled: best so far ${summary}` : msg.message ?? 'cancelled', kind: 'idle' };
  return { text: `failed: ${msg.message}`, kind: 'error' };
}

function percent(s) {
  return s.tokens_before ? `${((100 * s.tokens_now) / s.tokens_before).toFixed(1)}%` : '';
}
