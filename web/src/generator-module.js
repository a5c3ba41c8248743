// Generator mode in the worker: a generator module's source becomes a module (a Blob URL and a
// dynamic import), whose `generate(g)` the engine's GeneratorSession runs synchronously here,
// in the engine's worker (it must: the engine calls it for every candidate). That is why a
// link's generator runs only once the person allows it (state.js, needsConsent and mayReplay).
import { generatorRngSeed } from './state.js';

/** Imports a generator module: `{generate, seed}`; throws with a readable reason. */
export async function loadGenerator(source) {
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  let mod;
  try {
    mod = await import(url);
  } catch (e) {
    throw new Error(`the generator module does not load: ${e?.message ?? e}`);
  } finally {
    URL.revokeObjectURL(url);
  }
  if (typeof mod.generate !== 'function') throw new Error('the generator module exports no generate(g) function');
  const picks = new Map();
  return { generate: (g) => mod.generate(noticingPicks(g, picks)), seed: mod.seed, picks };
}

/**
 * `g` noting each label's `pick` list in `picks` (label -> the list's values as text), so that
 * the page can show a trace's choice indices as the values drawn. A label picked from
 * different lists, or used by `int` too, maps to null: its indices stay indices.
 */
function noticingPicks(g, picks) {
  const note = (label, list) => {
    const shown = Array.isArray(list) ? list.map((v) => (typeof v === 'string' ? JSON.stringify(v) : String(v))) : null;
    const had = picks.get(label);
    if (had === undefined) picks.set(label, shown);
    else if (had !== null && (shown === null || had.length !== shown.length || had.some((v, i) => v !== shown[i]))) picks.set(label, null);
  };
  return new Proxy(g, {
    get(target, key) {
      if (key === 'pick') return (label, list) => (note(String(label), list), target.pick(label, list));
      if (key === 'int') return (label, lo, hi) => (picks.set(String(label), null), target.int(label, lo, hi));
      const v = target[key];
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

/** A module's pick lists as plain data, for a message: {label: [value as text]}. */
export const picksOf = (module) => Object.fromEntries([...module.picks].filter(([, list]) => list !== null));

/** The engine's config for a generator state (`generator`: state.generator) and its module. */
export function engineConfig(generator, module) {
  return { rng_seed: generatorRngSeed(generator.rngSeed, module.seed), align: generator.align, trace: generator.trace };
}

/** Runs the generator once (a free run): `{output, trace, rngSeed}`. */
export async function generateOnce(engine, generator) {
  const module = await loadGenerator(generator.source);
  const config = engineConfig(generator, module);
  const session = new engine.GeneratorSession(config, module.generate);
  try {
    return { output: session.original(), trace: session.originalTrace(), rngSeed: config.rng_seed, picks: picksOf(module) };
  } finally {
    session.free();
  }
}
