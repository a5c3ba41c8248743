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
  return { generate: (g) => mod.generate(g), seed: mod.seed };
}

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
    return { output: session.original(), trace: session.originalTrace(), rngSeed: config.rng_seed };
  } finally {
    session.free();
  }
}
