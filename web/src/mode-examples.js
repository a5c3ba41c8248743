// Each mode's example comes with what it is reduced for: generator mode opens with the
// password generator, whose property reads its output with no compiler, while the other
// modes' sample programs are C, compiled by gcc. Switching modes swaps the one setup for the
// other only while the person has not changed it (it is still the example's); their own
// property and endpoint always stay.
import { SAMPLE_GENERATOR, SAMPLE_GENERATOR_SETUP } from './generator-sample.js';
import { DEFAULT_PROPERTY, isGenerator } from './state.js';

const sameProperty = (p, q) => ['kind', 'regex', 'negate', 'exitOf', 'exitOp', 'exitValue'].every((k) => p[k] === q[k]) &&
  JSON.stringify(p.streams ?? []) === JSON.stringify(q.streams ?? []);

const C_SETUP = { endpoint: { kind: 'whittle', base: '', pool: '' }, property: DEFAULT_PROPERTY };

const isSetup = (state, setup) => state.endpoint.kind === setup.endpoint.kind && sameProperty(state.property, setup.property);

/** `next` (a mode change from `before`) with the example setup of its mode, when the setup
 *  was the other example's and the generator is the sample; else `next` as it is. */
export function withModeExample(before, next) {
  if (isGenerator(before) === isGenerator(next) || next.generator.source !== SAMPLE_GENERATOR) return next;
  const [from, to] = isGenerator(next) ? [C_SETUP, SAMPLE_GENERATOR_SETUP] : [SAMPLE_GENERATOR_SETUP, C_SETUP];
  if (!isSetup(next, from)) return next;
  return { ...next, endpoint: { ...to.endpoint }, property: { ...next.property, ...to.property, streams: [...to.property.streams] } };
}
