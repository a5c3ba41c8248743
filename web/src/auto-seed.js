// Pair mode with an automatic seed, in the worker: first a witness search on the variant that
// stops at its first witness (a mutant that compiles and lacks the variant's property), then
// the pair's reduction with that witness as its seed, whose property is the same: it compiles
// and lacks the variant's (compilesWithout in property.js). One run id throughout; pause, resume and cancel reach whichever phase
// is under way.
//
// Messages out: the search's 'state', 'original' and 'notice' as they are, its progress as
//   {type: 'seeding', stats, elapsedMs}, then {type: 'seed', seed, changes, stats} once found;
//   then the reduction's messages (reduction.js). A search that ends without a witness
//   finishes the run: {type: 'finished', state, message}.
import { Reduction } from './reduction.js';
import { WitnessSearch } from './witness-search.js';

export class AutoSeededPair {
  constructor(engine, msg, post, compilers) {
    this.engine = engine;
    this.compilers = compilers;
    this.msg = msg;
    this.run = msg.run;
    this.post = (m) => post(m); // (postMessage must not be called as a method)
    const config = { ...msg.config, witness: { ...msg.config.witness, want: 1 } };
    this.phase = new WitnessSearch(engine, { ...msg, config }, (m) => this.fromSearch(m), compilers);
  }

  start() {
    this.phase.start();
  }

  pause() {
    this.phase.pause();
  }

  resume() {
    this.phase.resume();
  }

  cancel() {
    this.phase.cancel();
  }

  dispose() {
    this.phase.dispose();
  }

  fromSearch(m) {
    if (m.type === 'progress') return this.post({ type: 'seeding', run: m.run, stats: m.stats, elapsedMs: m.elapsedMs });
    if (m.type !== 'finished') return this.post(m);
    const [witness] = m.witnesses ?? [];
    if (m.state !== 'done' || !witness) {
      const s = m.stats;
      const message = m.state === 'done'
        ? `no seed found in ${s.queries} tests (${s.failing} mutants still had the property, ${s.rejected} did not compile): raise the witness budget, try another search seed, or uncheck “automatic seed” and write a seed`
        : m.message;
      return this.post({ type: 'finished', run: m.run, state: m.state === 'done' ? 'failed' : m.state, message });
    }
    this.post({ type: 'seed', run: m.run, seed: witness.text, changes: witness.changes, stats: m.stats });
    const search = this.phase;
    setTimeout(() => search.dispose(), 0); // (its finish is still on the stack)
    this.phase = new Reduction(this.engine, { ...this.msg, config: { ...this.msg.config, seed: witness.text } }, this.post, this.compilers);
    this.phase.activeMs = m.elapsedMs; // the run's time includes the search's
    this.phase.start();
  }
}
