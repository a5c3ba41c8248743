// Drives one witness search (DiWi) in the worker: the engine's WitnessSearch hands out
// mutants of the failing program (the first the program itself); each is compiled through the
// endpoint and observed: 'failing' while the property holds, else 'passing' (a witness) if the
// compile succeeded (exit code 0), else 'rejected'. The original's and passing mutants'
// observations carry the compile's coverage (whittle serve's tcc answers with one) or, without
// it, the assembly as a trace; the lines the compiler's messages on the original point at
// focus the mutations. The loop itself (k in flight, pause on a dead endpoint, cancel,
// progress) is the reduction's.
//
// config: as a reduction's (reduction.js), with witness: {rngSeed, budget, want?}; mode 'pair'
// when the search finds a pair's automatic seed (the failing program is then the variant).
//
// Messages out (all carry `run`): 'state', 'original', 'notice' as a reduction's, and
//   {type: 'progress', stats, elapsedMs, clientCacheHits, inFlight, witnesses?, ranking?}
//        (witnesses: the ones found since the last message; ranking: when it changed)
//   {type: 'finished', state, message?, stats, witnesses, ranking, rules, elapsedMs}
import { makeProperty, PropertyError } from './property.js';
import { Reduction } from './reduction.js';

/** What a compile answer says besides the verdict: its coverage, else its assembly. */
export function observed(result) {
  if (result.coverage) return { coverage: result.coverage };
  return result.asm ? { trace: result.asm } : {};
}

/** Which compiler messages a property is about: those its regex matches (none for a function). */
export function aboutBug(property) {
  if (property?.kind === 'js' || !property?.regex || property.negate) return undefined;
  try {
    const re = new RegExp(property.regex);
    return (message) => re.test(message);
  } catch {
    return undefined; // the property's own check says what is wrong with it
  }
}

export class WitnessSearch extends Reduction {
  constructor(engine, msg, post, compilers) {
    super(engine, msg, post, compilers);
    this.sent = 0; // witnesses sent so far
    this.rankedWith = -1; // the witness count the last ranking sent was made with
    // The failing program is a pair's variant when this search finds its seed.
    this.pair = this.config.mode === 'pair';
    this.what = this.pair ? 'variant' : 'program';
  }

  start() {
    const { lang, variant, witness = {} } = this.config;
    try {
      if (this.recording !== null) throw new Error('a witness search has no recording to replay: press Find witnesses');
      this.properties = { variant: makeProperty(this.config.property) };
      this.about = aboutBug(this.config.property);
      this.compiler = this.compilers(this.config, (e) =>
        this.send({ type: 'notice', message: `rate limited (HTTP 429): waiting ${e.seconds} s before the next query` }));
      this.session = new this.engine.WitnessSearch({ lang, text: variant, rng_seed: witness.rngSeed, budget: witness.budget, want: witness.want });
    } catch (e) {
      return this.finish('failed', e.message);
    }
    this.setState('running');
  }

  /** Compiles the mutant and observes it: {outcome, coverage?, trace?, about?}. */
  async test(query, signal) {
    const result = await this.compiler.compile(query.text, signal);
    const report = `${result.stderr ?? ''}\n${result.stdout ?? ''}`;
    const about = this.about;
    if (query.original) {
      this.send({ type: 'original', result, side: 'variant' });
      // Mutations go mostly near where the compiler complains about the failing program
      // (`<source>:12:5: warning: ...`, as Compiler Explorer and whittle serve name it), and
      // when the property is a regex, near the messages it matches: what the bug is about.
      this.session?.focusOn(report, '<source>', about);
    }
    let outcome;
    try {
      outcome = await this.outcome(result, query.text);
    } catch (e) {
      if (!(e instanceof PropertyError) || query.original) throw e;
      this.propertyErrors++;
      this.send({ type: 'notice', message: `${e.message} (on ${this.propertyErrors} mutant${this.propertyErrors > 1 ? 's' : ''}; counted as rejected)` });
      return { outcome: 'rejected' };
    }
    // A failing mutant's observation too: one that printed part of what the failing program
    // printed about the bug, and nothing else, is nearer a witness (the engine builds on it).
    if (outcome === 'rejected') return { outcome };
    const said = about ? { about: this.engine.WitnessSearch.messagesAbout(report, about) } : {};
    return { outcome, ...observed(result), ...said };
  }

  async outcome(result, text) {
    if (await this.properties.variant.test(result, text)) return 'failing';
    return result.code === 0 ? 'passing' : 'rejected';
  }

  snapshot(type) {
    const msg = this.figures(type);
    const { stats } = msg;
    if (stats.witnesses > this.sent) {
      msg.witnesses = this.session.witnesses(this.sent);
      this.sent = stats.witnesses;
    }
    // The ranking changes with the witnesses (and once the original's coverage is in).
    if (stats.original === 'failing' && this.rankedWith !== stats.witnesses) {
      this.rankedWith = stats.witnesses;
      msg.ranking = this.session.ranking();
    }
    return msg;
  }

  finish(state, message) {
    if (this.isOver()) return;
    const elapsedMs = this.end(state);
    if (!this.session) return this.send({ type: 'finished', state, message });
    const stats = this.session.stats();
    if (state === 'done' && stats.original !== 'failing') {
      state = 'failed';
      message = `the ${this.what} does not have the property, so it is no failing program to find witnesses of (they are mutants that lose the property). ` +
        'See the Output tab for what the endpoint answered, and adjust the property.';
    }
    this.send({
      ...this.figures('finished'),
      state,
      message,
      elapsedMs,
      stats,
      witnesses: this.session.witnesses(0),
      ranking: this.session.ranking(),
      rules: this.session.rules(),
    });
  }
}
