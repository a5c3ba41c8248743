// "Open in Compiler Explorer" for a reduction's result: a `/clientstate/` link with the reduced
// program, the compiler and the flags (for a pair, a full link with both programs and a diff
// of their sources), at the endpoint's instance (godbolt.org when the endpoint is not one).
// "Short link" asks the instance's /api/shortener for a /z/ link, where it has one.
import { DEFAULT_CE_BASE, apiBase } from './endpoint.js';
import { clientStateLink, pairLink, shortenerBody } from './ce-link.js';
import { $, copy } from './ui.js';

export class CeExport {
  constructor() {
    this.what = null; // {base, program | pair} of the result shown
    $('result-ce-short').addEventListener('click', () => this.shorten());
  }

  /** The Result tab shows `run`'s best, made with `state`'s compiler and flags. */
  update(run, state) {
    const link = $('result-ce');
    const short = $('result-ce-short');
    const exportable = run?.best && !run.generator && !run.witness && state.endpoint.kind !== 'none' && state.compiler;
    link.hidden = short.hidden = !exportable;
    if (!exportable) return (this.what = null);
    const base = state.endpoint.kind === 'ce' ? apiBase(state.endpoint) : DEFAULT_CE_BASE;
    const common = { lang: run.lang ?? state.lang, compiler: state.compiler, flags: state.flags ?? '' };
    this.what = run.pair
      ? { base, body: { ...common, seed: run.best.seed, variant: run.best.variant } }
      : { base, body: { ...common, source: run.best, execute: !!state.execute, files: state.files } };
    link.href = run.pair ? pairLink(base, this.what.body) : clientStateLink(base, this.what.body);
    link.title = `Open the result at ${base} with ${state.compiler}${common.flags ? ` and ${common.flags}` : ''}` +
      (state.endpoint.kind === 'ce' ? '' : ' (the compiler ids of whittle serve may not exist there: pick one in Compiler Explorer)');
    short.textContent = 'Short link';
  }

  /** A /z/ link from the instance's shortener, copied; said plainly when it has none. */
  async shorten() {
    if (!this.what) return;
    const button = $('result-ce-short');
    const { base, body } = this.what;
    try {
      const res = await fetch(`${base}/api/shortener`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
        body: JSON.stringify(shortenerBody(body)),
      });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      const { url } = await res.json();
      if (typeof url !== 'string' || !/^https?:\/\//.test(url)) throw new Error('no link in its answer');
      $('result-ce').href = url;
      await copy(url, button);
    } catch (e) {
      button.textContent = `no short link (${e.message}): use Open`;
    }
  }
}
