// @ts-check
// The playground's state as plain data, and the pure transitions the page makes on it. No DOM
// and no globals, so that node can test it (tests/web/state.test.mjs).
//
// Three pieces, each replaced (never changed in place) by the transitions below:
//   state: what the person set up, saved to local storage and carried by permalinks: mode,
//          language, the two texts, their properties, the compile settings;
//   run:   the current (or last) reduction, as the worker's messages tell it;
//   link:  what a permalink brought besides the state (its recorded verdicts and the engine
//          build that recorded them), kept only while it still fits the state.
//
// A pair's two sides are 'seed' and 'variant'. In one-program mode the program is the variant
// side: its text is `state.variant`, its property `state.property`. In generator mode
// (GReduce) the program is a generator's output: `state.generator` holds the generator module's
// source and its settings, and the output is tested as the variant, with `state.property`. In
// witness mode (DiWi) the program is a failing one, with `state.property`, and the search
// looks for mutants of it that lose the property and compile; `state.witness` holds the
// search's settings, which pair mode's automatic seed (a witness of the variant) uses too.
/**
 * @typedef {import('./types.js').State} State
 * @typedef {import('./types.js').Run} Run
 * @typedef {import('./types.js').RunMessage} RunMessage
 * @typedef {import('./types.js').Side} Side
 */
import { SAMPLE_PROGRAM, SAMPLE_SEED } from './sample.js';
import { SAMPLE_GENERATOR } from './generator-sample.js';
import { apiBase, apiBases, poolBases } from './endpoint.js';
import { describeStep, wrongCodeSteps } from './wrong-code.js';
import { describeSlow, slowSteps } from './slow-compile.js';
import { compileText } from './setup-summary.js';
import { cleanFiles } from './files.js';

export const DEFAULT_JS_PROPERTY = `(result, input) =>
  result.code === 0 &&
  /makes integer from pointer without a cast/.test(result.stderr)`;

/** The default k: a few queries at once on our own server, one on a public instance. */
export const defaultK = (endpointKind) => (endpointKind === 'ce' ? 1 : 2);

/** A seed's default property: the variant's, negated (the seed must not show the behaviour). */
export const seedPropertyFrom = (p) => ({ ...p, negate: !p.negate });

export const DEFAULT_PROPERTY = Object.freeze({
  kind: 'regex',
  regex: 'makes integer from pointer without a cast',
  streams: ['stderr'],
  negate: false,
  exitOf: 'compile',
  exitOp: 'eq',
  exitValue: 0,
  js: DEFAULT_JS_PROPERTY,
  // A JavaScript property's other compiles ({compiler, flags, execute}), whose answers it is
  // given after the first's.
  compiles: [],
  wrongCode: Object.freeze({ compiler: '', flags: '-O0', guard: true, guardCompiler: '' }),
  // A slow compile: more than `factor` times as long as the compiler with `flags`.
  slow: Object.freeze({ factor: 5, flags: '-O0' }),
  // A regex's "and no compile error but those": the errors of the output it was picked from.
  noNewErrors: false,
  allowedErrors: [],
});

/** Generator mode's defaults: the paper's password generator; random seed '' is the module's own. */
export const DEFAULT_GENERATOR = Object.freeze({ source: SAMPLE_GENERATOR, rngSeed: '', align: 'realign', trace: 'hdd' });

/** The witness search's defaults; `autoSeed`: pair mode finds its seed (a witness). */
export const DEFAULT_WITNESS = Object.freeze({ rngSeed: 1, budget: 200, autoSeed: false });

export const MODES = ['single', 'pair', 'generator', 'witness'];

/** A fresh copy of the state the page opens with. @returns {State} */
export function defaultState() {
  return {
    mode: /** @type {import('./types.js').Mode} */ ('single'), // or 'pair', 'generator', 'witness'
    lang: 'c',
    variant: SAMPLE_PROGRAM, // the program, or a pair's variant
    seed: SAMPLE_SEED, // pair mode only
    files: [], // {filename, contents} beside the program (both sides of a pair) in every compile
    strategy: 'perses',
    skipPasses: '', // passes the strategy leaves out, by name: 'rename, types'
    endpoint: { kind: 'whittle', base: '', pool: '' }, // pool: other instances' base URLs
    compiler: '',
    flags: '-O2 -Wall',
    execute: false,
    property: { ...DEFAULT_PROPERTY }, // the variant's
    seedProperty: seedPropertyFrom(DEFAULT_PROPERTY),
    // timeoutS 0: adaptive (ten times the original's slowest compile, at least a second)
    // confirm 0: steps are confirmed (twice) only when the original's three tests disagree
    // reduceFlags: after the program, the flags that keep the property are reduced too
    settings: { k: defaultK('whittle'), timeoutS: 0, confirm: 0, shareVerdicts: true, reduceFlags: false },
    generator: { ...DEFAULT_GENERATOR }, // generator mode only
    witness: { ...DEFAULT_WITNESS }, // witness mode, and pair mode's automatic seed
  };
}

// --- reading the state -----------------------------------------------------------------------

/** @param {State} state */
export const isPair = (state) => state.mode === 'pair';
/** @param {State} state */
export const isGenerator = (state) => state.mode === 'generator';
/** @param {State} state */
export const isWitness = (state) => state.mode === 'witness';

/** Pair mode with an automatic seed: the worker finds the seed (a witness of the variant). */
export const autoSeeded = (state) => isPair(state) && !!state.witness.autoSeed;

/** The sides this state reduces: the variant, and in pair mode the seed. */
/** @param {State} state @returns {Side[]} */
export const sidesOf = (state) => (isPair(state) ? ['variant', 'seed'] : ['variant']);

/** @param {State} state @param {Side} side */
export const textOf = (state, side) => (side === 'seed' ? state.seed : state.variant);

/** What the page calls a side: 'program' in one-program mode (`pair`: whether it is a pair). */
export const sideLabel = (pair, side) => (pair ? side : 'program');
export const sideName = (state, side) => sideLabel(isPair(state), side);

const propertyField = (side) => (side === 'seed' ? 'seedProperty' : 'property');

export const propertyOf = (state, side) => state[propertyField(side)];

/** The sides whose own property a run tests: an automatic seed's is derived from the
 *  variant's (it compiles, and the variant's does not hold). */
export const propertySides = (state) => (autoSeeded(state) ? ['variant'] : sidesOf(state));

/** Whether a property is JavaScript (which a link's state may not run unasked). */
/** Whether a property of the run is wrong code (two builds, and perhaps the guard's). */
export const usesWrongCode = (state) => propertySides(state).some((side) => propertyOf(state, side).kind === 'wrong-code');

/** Whether a property of the run is a slow compile (timed against a reference compile). */
export const usesSlow = (state) => propertySides(state).some((side) => propertyOf(state, side).kind === 'slow');

export const usesJs = (state) => propertySides(state).some((side) => propertyOf(state, side).kind === 'js');

/** Whether the state runs a generator: JavaScript that runs in the engine's sandbox (no
 *  network, away from the page), to reduce and to replay alike; a link's may not run unasked
 *  either, and an embed never runs one (it shows the recorded outputs). */
export const usesGenerator = (state) => isGenerator(state);

/** Whether acting on the state runs JavaScript it carries (a property or a generator). */
export const runsCode = (state) => usesJs(state) || usesGenerator(state);

/** Runs are comparable (their verdicts replay) when mode, programs, language, strategy and
 *  skipped passes match
 *  (in generator mode: the generator, its random seed and its settings). */
/** @param {State} state */
export const runKey = (state) => {
  if (isGenerator(state)) {
    const g = state.generator;
    return JSON.stringify([state.mode, g.source, String(g.rngSeed ?? ''), g.align, g.trace]);
  }
  const key = [state.mode, state.variant, isPair(state) ? state.seed : null, state.lang, state.strategy];
  // Without skipped passes or files the key is as it was before they existed: stored runs
  // still match.
  if (state.skipPasses || state.files.length) key.push(state.skipPasses);
  if (state.files.length) key.push(JSON.stringify(state.files));
  return JSON.stringify(key);
};

// --- changing the state ----------------------------------------------------------------------

/** @param {State} state @param {import('./types.js').Mode} mode @returns {State} */
export const setMode = (state, mode) => ({ ...state, mode });
/** @param {State} state @param {string} lang @returns {State} */
export const setLang = (state, lang) => ({ ...state, lang });
/** @param {State} state @param {Side} side @param {string} text @returns {State} */
export const setText = (state, side, text) => ({ ...state, [side === 'seed' ? 'seed' : 'variant']: text });
/** @param {State} state @param {Side} side @param {import('./types.js').Property} property @returns {State} */
export const setProperty = (state, side, property) => ({ ...state, [propertyField(side)]: { ...property } });
/** @param {State} state @param {Partial<State['settings']>} settings @returns {State} */
export const setSettings = (state, settings) => ({ ...state, settings: { ...state.settings, ...settings } });
/** @param {State} state @param {unknown} files @returns {State} */
export const setFiles = (state, files) => ({ ...state, files: cleanFiles(files) });
/** @param {State} state @param {Partial<State['generator']>} generator @returns {State} */
export const setGenerator = (state, generator) => ({ ...state, generator: { ...state.generator, ...generator } });
/** @param {State} state @param {Partial<State['witness']>} witness @returns {State} */
export const setWitness = (state, witness) => ({ ...state, witness: { ...state.witness, ...witness } });

/**
 * The random seed a generator run starts from: the state's (a non-negative integer, as text or
 * a number), else the module's `seed` export, else 0. Throws on anything else.
 */
export function generatorRngSeed(seed, moduleSeed) {
  const given = String(seed ?? '').trim();
  const value = given !== '' ? given : moduleSeed ?? 0;
  const n = typeof value === 'number' ? value : /^\d+$/.test(String(value)) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n) || n < 0) throw new Error(`the seed must be a whole number from 0 to ${Number.MAX_SAFE_INTEGER}, not ${JSON.stringify(value)}`);
  return n;
}

/**
 * The settings form's values over `state`: `form` holds mode, lang, strategy, skipPasses, endpoint,
 * compiler, flags, execute, settings and the property it shows, which is side `propSide`'s.
 */
export function applyForm(state, form, propSide) {
  const { property, settings, compiler, ...rest } = form;
  let next = { ...state, ...rest, compiler: compiler || state.compiler };
  // (What the form does not show, a picked diagnostic's allowed errors, stays.)
  next = setProperty(next, propSide, { ...propertyOf(state, propSide), ...property });
  next = setSettings(next, settings);
  // Keep k polite: the default follows the endpoint unless the person chose their own.
  if (next.endpoint.kind !== state.endpoint.kind && state.settings.k === defaultK(state.endpoint.kind)) {
    next = setSettings(next, { k: defaultK(next.endpoint.kind) });
  }
  return next;
}

/** A state from a link or local storage: older ones call the variant `program` and a random
 *  seed `seed` (witness and generator), and may lack newer fields (the defaults fill them).
 *  @param {any} saved @returns {State} */
export function withDefaults(saved) {
  const s = isPlainObject(saved) ? { ...saved } : {};
  if ('program' in s) {
    s.variant ??= s.program;
    delete s.program;
  }
  for (const key of ['witness', 'generator']) {
    const { seed, ...own } = isPlainObject(s[key]) ? s[key] : {};
    if (seed !== undefined) s[key] = { rngSeed: seed, ...own };
  }
  const { seedProperty, ...rest } = s;
  const out = typedMerge(defaultState(), rest);
  out.seedProperty = typedMerge(seedPropertyFrom(out.property), seedProperty);
  if (!MODES.includes(out.mode)) out.mode = 'single';
  return clamped(out);
}

/** The ranges a state's numbers must keep (the settings form's): a link asking for a million
 *  compiles at once or a timeout of years gets the nearest sane value. */
export const LIMITS = Object.freeze({
  k: [1, 16],
  timeoutS: [0, 600],
  confirm: [0, 10],
  budget: [2, 100000],
  rngSeed: [0, 0xffffffff],
  exitValue: [-(2 ** 31), 2 ** 32 - 1],
  factor: [1, 1000],
  compiles: 4,
});

/** `n` as a whole number in [lo, hi]; `fallback` when it is no finite number.
 *  @param {unknown} n @param {readonly number[]} range @param {number} fallback */
export function clampInt(n, [lo, hi], fallback) {
  if (typeof n !== 'number' || !Number.isFinite(n)) return fallback;
  return Math.min(hi, Math.max(lo, Math.round(n)));
}

/** The state with its numbers in their LIMITS. */
function clamped(state) {
  const d = defaultState();
  const factor = (n) => (typeof n === 'number' && Number.isFinite(n) ? Math.min(LIMITS.factor[1], Math.max(LIMITS.factor[0], n)) : d.property.slow.factor);
  const text = (v) => (typeof v === 'string' ? v : '');
  const compiles = (list) => list.filter(isPlainObject).slice(0, LIMITS.compiles).map((c) => ({ compiler: text(c.compiler), flags: text(c.flags), execute: c.execute === true })).filter((c) => c.compiler);
  const exit = (p, dp) => ({
    ...p,
    exitValue: clampInt(p.exitValue, LIMITS.exitValue, dp.exitValue),
    slow: { ...p.slow, factor: factor(p.slow.factor) },
    compiles: compiles(p.compiles),
  });
  return {
    ...state,
    settings: {
      ...state.settings,
      k: clampInt(state.settings.k, LIMITS.k, d.settings.k),
      timeoutS: clampInt(state.settings.timeoutS, LIMITS.timeoutS, d.settings.timeoutS),
      confirm: clampInt(state.settings.confirm ?? 0, LIMITS.confirm, d.settings.confirm),
    },
    witness: {
      ...state.witness,
      budget: clampInt(state.witness.budget, LIMITS.budget, d.witness.budget),
      rngSeed: clampInt(state.witness.rngSeed, LIMITS.rngSeed, d.witness.rngSeed),
    },
    property: exit(state.property, d.property),
    seedProperty: exit(state.seedProperty, d.seedProperty),
    files: cleanFiles(state.files),
  };
}

const isPlainObject = (v) => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `saved`'s fields over `defaults`', each only where it has the default's type (a link is a
 *  stranger's file, and a number where text belongs would break the editor); nested objects
 *  likewise; fields the defaults do not have are dropped. */
function typedMerge(defaults, saved) {
  const out = { ...defaults };
  if (!isPlainObject(saved)) return out;
  for (const [key, value] of Object.entries(saved)) {
    if (!(key in defaults)) continue;
    const d = defaults[key];
    if (isPlainObject(d)) out[key] = typedMerge(d, value);
    else if (typeof value === typeof d && Array.isArray(value) === Array.isArray(d)) out[key] = value;
  }
  return out;
}

// --- links -----------------------------------------------------------------------------------

/** What a decoded permalink asks for: its state, and the reduction it recorded (if any; a
 *  generator's with its recorded outputs, which an embed shows instead of running it). */
export function fromLink(decoded) {
  const { verdicts, engine, outputs, ...rest } = decoded;
  const state = withDefaults(rest);
  // A witness search records nothing to replay.
  if (typeof verdicts !== 'string' || !/^[01]*$/.test(verdicts) || isWitness(state)) return { state, link: null };
  const link = { verdicts, engine: typeof engine === 'string' ? engine : null };
  const recorded = isGenerator(state) && recordedOutputs(outputs);
  if (recorded) link.outputs = recorded;
  return { state, link };
}

const isTrace = (t) => isPlainObject(t) && Array.isArray(t.nodes);

/** A generator run's recorded outputs from a link, or null when they are not all there:
 *  {original, best} (texts) and, when recorded, {originalTrace, trace}. */
export function recordedOutputs(o) {
  if (!isPlainObject(o) || typeof o.original !== 'string' || typeof o.best !== 'string') return null;
  const out = { original: o.original, best: o.best };
  if (isTrace(o.originalTrace)) out.originalTrace = o.originalTrace;
  if (isTrace(o.trace)) out.trace = o.trace;
  return out;
}

/** A finished generator run's outputs, to record in its link. */
const outputsOf = (run) =>
  recordedOutputs({ original: run.original?.variant, best: run.best, originalTrace: run.originalTrace, trace: run.trace });

/** The run an embed shows for a generator link's recording: the recorded outputs, as a
 *  finished replay (nothing runs: an embed never runs a link's code). */
export function recordedRun(state, outputs) {
  const bytes = (text) => new TextEncoder().encode(text).length;
  return {
    ...startRun(state, null, { lang: null, replay: true }),
    state: 'done',
    original: { variant: outputs.original, seed: null },
    originalTrace: outputs.originalTrace ?? null,
    trace: outputs.trace ?? null,
    best: outputs.best,
    stats: { tokens_before: bytes(outputs.original), tokens_now: bytes(outputs.best) },
    recorded: true,
  };
}

/** A link's recording applies only to the programs, language and strategy it was made for. */
export const linkAfterEdit = (link, before, after) => (link && runKey(before) === runKey(after) ? link : null);

/** The state to share: what local storage would hold, minus the unused side, plus the
 *  recorded verdicts when wanted and they belong to this state (the last run's, or the link's). */
export function shareableState(state, { run = null, link = null, engineId = null } = {}) {
  const s = structuredClone(state);
  if (!isPair(s)) {
    delete s.seed;
    delete s.seedProperty;
  }
  if (isGenerator(s)) delete s.variant; // the program is the generator's output
  else delete s.generator;
  if (!isWitness(s) && !isPair(s)) delete s.witness;
  const own = run?.verdicts && run.key === runKey(state);
  const recording = own ? { verdicts: run.verdicts, engine: engineId, outputs: run.generator ? outputsOf(run) : null } : link;
  if (state.settings.shareVerdicts && recording?.verdicts) {
    s.verdicts = recording.verdicts;
    s.engine = recording.engine;
    if (recording.outputs) s.outputs = recording.outputs;
  }
  return s;
}

// --- what a link asks of the machine that opens it --------------------------------------------
//
// A permalink is a file a stranger hands you. Its state names an endpoint to contact, a
// compiler, flags, whether to run the compiled program, and perhaps a JavaScript property. The
// page lists these (linkRequests) and does none of them until the person allows the link once
// (needsConsent); replaying the link's recorded verdicts needs none of them.

/**
 * What acting on `state` (checking, reducing) would ask of this machine and the network, for
 * the page to show when the state came from a link: [{key, text, warn}], where key is one of
 * 'endpoint', 'pool', 'compiler', 'flags', 'execute', 'wrong-code', 'parallel', 'js', 'nothing'; warn marks what
 * reaches beyond this page and this machine's compiler, or runs code.
 */
export function linkRequests(state) {
  const asks = [];
  const { endpoint } = state;
  if (endpoint.kind === 'none') {
    asks.push({ key: 'endpoint', text: 'compiles nothing: no compile endpoint (the property reads only the program text)', warn: false });
  } else {
    const ce = endpoint.kind === 'ce';
    const where = ce ? `Compiler Explorer at ${apiBase(endpoint)}` : 'this page’s own whittle serve';
    asks.push(ce
      ? { key: 'endpoint', text: `sends the program to an outside endpoint: Compiler Explorer at ${apiBase(endpoint)}`, warn: true }
      : { key: 'endpoint', text: 'compiles on this page’s own whittle serve (the server this page came from)', warn: false });
    const pool = poolBases(endpoint);
    if (pool.length) asks.push({ key: 'pool', text: `and to ${pool.length === 1 ? 'another instance' : `${pool.length} other instances`} with the same compilers: ${pool.join(', ')}`, warn: true });
    asks.push({ key: 'compiler', text: state.compiler ? `with the compiler ${state.compiler}` : 'with a compiler you choose (the link names none)', warn: false });
    const flags = (state.flags ?? '').trim();
    asks.push({ key: 'flags', text: flags ? `with the flags ${flags} (passed to the compiler as they are)` : 'with no flags', warn: false });
    asks.push(state.execute || usesWrongCode(state)
      ? { key: 'execute', text: `runs the compiled program (execution is on), on the machine of ${where}`, warn: true }
      : { key: 'execute', text: 'execution is off: the compiled program is not started', warn: false });
    if (usesWrongCode(state)) {
      const steps = wrongCodeSteps(state, state.property, null);
      const also = [`${describeStep(steps.b)} (build B)`];
      if (steps.warnings) also.push(`${steps.warnings.compiler} with warnings as errors and with sanitizers (the undefined-behaviour guard)`);
      asks.push({ key: 'wrong-code', text: `also compiles and runs the program with ${also.join(', and ')}`, warn: false });
    }
    const compiles = propertySides(state).flatMap((side) => (propertyOf(state, side).kind === 'js' ? (propertyOf(state, side).compiles ?? []) : []));
    if (compiles.length) {
      asks.push({ key: 'compiles', text: `also compiles the program with ${compiles.map(compileText).join(', ')} for the JavaScript property`, warn: compiles.some((c) => c.execute) });
    }
    if (usesSlow(state)) {
      asks.push({ key: 'slow', text: `times each compile against the compiler with ${state.property.slow.flags || 'no flags'} (a slow-compile property: ${describeSlow(state, state.property)})`, warn: false });
    }
    const k = state.settings?.k ?? 1;
    if (k > 1) asks.push({ key: 'parallel', text: `up to ${k} compile requests at a time`, warn: false });
  }
  if (usesJs(state)) {
    const which = propertySides(state).length > 1 && propertySides(state).every((side) => propertyOf(state, side).kind === 'js') ? 'JavaScript properties' : 'a JavaScript property';
    asks.push({ key: 'js', text: `carries ${which}: code from the link that runs in your browser, in a sandbox away from this page and with no network access`, warn: true });
  }
  if (usesGenerator(state)) {
    asks.push({ key: 'generator', text: 'carries a generator: JavaScript from the link that runs in your browser, in a sandbox away from this page and with no network access, to reduce and to replay alike', warn: true });
  }
  if (endpoint.kind === 'none' && !runsCode(state)) {
    asks.push({ key: 'nothing', text: 'nothing here leaves this page or runs code', warn: false });
  }
  return asks;
}

/**
 * Whether the page must ask before it acts on `state`: it came from a link the person has not
 * allowed yet (`untrustedLink`), and acting would contact an endpoint (with the link's
 * compiler, flags and execution) or run a JavaScript property they did not write
 * (`jsTrusted`: they wrote or edited it themselves).
 */
export function needsConsent(state, { untrustedLink = false, jsTrusted = false } = {}) {
  if (!untrustedLink) return false;
  return state.endpoint.kind !== 'none' || (runsCode(state) && !jsTrusted);
}

/** Whether a link's recorded reduction may replay now: a replay needs no endpoint and no
 *  property, but a generator's replay runs the generator, which needs the person's leave. */
export const mayReplay = (state, { untrustedLink = false, jsTrusted = false } = {}) =>
  !usesGenerator(state) || !untrustedLink || jsTrusted;

/** Whether the page may contact the state's endpoint (to list its compilers, say) now: never
 *  from an embed, and from a link only once it is allowed. */
export const mayContactEndpoint = (state, { untrustedLink = false, embed = false } = {}) =>
  !embed && state.endpoint.kind !== 'none' && !untrustedLink;

// --- what blocks a reduction -----------------------------------------------------------------

/** Why the texts cannot be reduced yet (`reports`: the last parse report of each side), or null. */
export function syntaxBlocker(state, reports) {
  // A generator's output is valid by construction: nothing to parse first.
  if (isGenerator(state)) return reports.variant ? null : 'the engine is still loading';
  for (const side of sidesOf(state)) {
    if (side === 'seed' && autoSeeded(state)) continue; // the search writes the seed
    if (!reports[side]) return 'the engine is still loading';
    // One program and a pair are reduced even where the grammar fails (no candidate may add
    // an error); a witness search, the automatic seed's too, needs a whole tree.
    const tolerant = !isWitness(state) && !autoSeeded(state);
    if (!reports[side].ok && !tolerant) return `the ${sideName(state, side)} does not parse: fix the syntax error first`;
  }
  return null;
}

/**
 * Why a reduction (or a check) cannot start, or null. `jsTrusted`: a JavaScript property may
 * run; `untrustedLink`: the state came from a link not yet allowed (see needsConsent);
 * `embed`: the page is an embed, which only replays.
 */
export function blocker(state, { reports, jsTrusted, untrustedLink = false, embed = false }) {
  const syntax = syntaxBlocker(state, reports);
  if (syntax) return syntax;
  if (embed) return 'an embed only replays a recorded reduction: open it in the playground to reduce';
  if (usesJs(state) && !jsTrusted) return 'this link’s JavaScript property has not been allowed to run: it is someone else’s code; read it, then press Run or Allow';
  if (usesGenerator(state) && !jsTrusted) return 'this link’s generator has not been allowed to run: it is someone else’s JavaScript; read it, then press Allow';
  if (needsConsent(state, { untrustedLink, jsTrusted })) return 'this link has not been allowed to compile yet: read what it asks (at the top of the page) and press Allow';
  if (state.endpoint.kind !== 'none' && !state.compiler) return 'choose a compiler';
  if (usesWrongCode(state)) {
    if (isPair(state) || isWitness(state)) return 'the wrong-code property is for one program or a generator: choose that mode, or another property';
    if (state.endpoint.kind === 'none') return 'the wrong-code property compiles and runs two builds: choose an endpoint';
  }
  if (isWitness(state) && state.property.kind === 'js' && state.property.compiles?.length) {
    return 'a witness search judges one compile a mutant: remove the JavaScript property’s other compiles, or reduce instead';
  }
  if (usesSlow(state)) {
    if (isPair(state) || isWitness(state)) return 'the slow-compile property is for one program or a generator: choose that mode, or another property';
    if (state.endpoint.kind === 'none') return 'the slow-compile property times the compiler: choose an endpoint';
  }
  return null;
}

// --- what the worker gets --------------------------------------------------------------------

const propertyConfig = (p) => (p.kind === 'js' ? { kind: 'js', js: p.js } : { ...p, js: undefined, wrongCode: undefined, slow: undefined });

/** A property's own compiles (a wrong-code property's builds, a slow one's reference) and
 *  what the worker's tester needs of it; undefined for properties of one compile. */
function stepsProperty(state, p, guardFlags) {
  if (p.kind === 'wrong-code') {
    const steps = wrongCodeSteps(state, p, guardFlags);
    return { steps, execute: true, property: { kind: 'wrong-code', steps } };
  }
  if (p.kind === 'slow') {
    const steps = slowSteps(state, p);
    return { steps, execute: false, property: { kind: 'slow', steps, factor: p.slow.factor, compile: describeStep(state) } };
  }
  if (p.kind === 'js' && p.compiles?.length) {
    // (named c1, c2, ... in the order the function gets their answers)
    const steps = Object.fromEntries(p.compiles.map((c, i) => [`c${i + 1}`, { compiler: c.compiler, flags: c.flags, execute: !!c.execute }]));
    return { steps, execute: state.execute, property: { kind: 'js', js: p.js, compiles: Object.keys(steps) } };
  }
  return undefined;
}

/** What the worker needs to query the endpoint and test a property (the variant's unless
 *  `side` says otherwise; a pair's reduction gets the seed's too). A wrong-code property's
 *  builds are the run's `steps` (its guard's flags, `guardFlags`, are the engine's). */
export function testConfig(state, side = 'variant', guardFlags = null) {
  const p = propertyOf(state, side);
  const own = stepsProperty(state, p, guardFlags);
  return {
    endpoint: state.endpoint,
    compiler: state.compiler,
    flags: state.flags,
    // (a generator's output is one file)
    files: isGenerator(state) ? [] : state.files,
    execute: own ? own.execute : state.execute,
    steps: own?.steps,
    property: own ? own.property : propertyConfig(p),
    seedProperty: isPair(state) && side === 'variant' ? propertyConfig(state.seedProperty) : undefined,
    // (a check, and the original's first compiles, under the adaptive limit: a minute)
    timeoutMs: (state.settings.timeoutS || 60) * 1000,
    adaptive: !state.settings.timeoutS,
    confirm: state.settings.confirm ?? 0,
  };
}

/** What a check of side `side` depends on: its program (a generator's source), the language
 *  and what testConfig sends; a check result stands while this stays the same.
 *  @param {State} state @param {Side} [side] */
export const checkKey = (state, side = 'variant') =>
  JSON.stringify([isGenerator(state) ? state.generator : textOf(state, side), state.lang, testConfig(state, side)]);

/** A 'reduce' or 'replay' message's config (`lang`: the language the parse settled on;
 *  `guardFlags`: see testConfig). */
export function reduceConfig(state, lang, guardFlags = null) {
  return {
    mode: state.mode,
    lang,
    variant: state.variant,
    seed: isPair(state) ? state.seed : undefined,
    strategy: state.strategy,
    skipPasses: state.skipPasses,
    // k compiles in flight on each instance of the pool.
    k: state.settings.k * Math.max(1, apiBases(state.endpoint).length),
    generator: isGenerator(state) ? { ...state.generator } : undefined,
    witness: isWitness(state) || autoSeeded(state) ? { ...state.witness } : undefined,
    // (a pair's flags are its two programs' and stay; without an endpoint there are none)
    reduceFlags: !!state.settings.reduceFlags && !isPair(state) && !isWitness(state) && state.endpoint.kind !== 'none',
    ...testConfig(state, 'variant', guardFlags),
  };
}

// --- the reduction run -----------------------------------------------------------------------
//
// run: {id, replay, pair, original: {variant, seed}, lang, key, state, verdicts, best, stats,
//       outputs}. state: 'running' | 'paused' | 'done' | 'failed' | 'cancelled' | 'restored'.
//       A witness search (witness: true) has no best: `witnesses` (as found, each with its
//       changes and diff), `ranking` (with coverage) and its own `stats`. A pair with an
//       automatic seed is `seeding` until the worker reports the seed it found; meanwhile
//       `seedSearch` holds the search's stats.

/** A new run of `state` (after `previous`, whose id it follows).
 *  @param {State} state @param {Run | null} previous @param {{lang: string | null, replay?: boolean}} how
 *  @returns {Run} */
export function startRun(state, previous, { lang, replay = false }) {
  // (A replay's seed is the state's: the one an earlier search found.)
  const seeding = autoSeeded(state) && !replay;
  return {
    id: (previous?.id ?? 0) + 1,
    replay,
    pair: isPair(state),
    generator: isGenerator(state),
    witness: isWitness(state),
    seeding,
    seedSearch: null,
    witnesses: [],
    ranking: null,
    // A generator's original is its output, which the worker reports ('generated').
    original: { variant: isGenerator(state) ? null : state.variant, seed: isPair(state) && !seeding ? state.seed : null },
    originalTrace: null,
    trace: null,
    lang,
    key: runKey(state),
    state: 'running',
    verdicts: null,
    best: null,
    stats: null,
    outputs: {},
  };
}

export const isActive = (run) => !!run && (run.state === 'running' || run.state === 'paused');

/** The run after one of the worker's reduction messages (see reduction.js); messages of
 *  other runs leave it as it is. */
/** @param {Run | null} run @param {RunMessage} msg @returns {Run | null} */
export function runMessage(run, msg) {
  if (!run || msg.run !== run.id) return run;
  switch (msg.type) {
    case 'state':
      return { ...run, state: msg.state };
    case 'generated':
      return { ...run, original: { ...run.original, variant: msg.original }, originalTrace: msg.trace, picks: msg.picks ?? null };
    case 'seeding':
      return { ...run, seedSearch: msg.stats };
    case 'seed':
      return { ...run, seeding: false, seedSearch: msg.stats, original: { ...run.original, seed: msg.seed } };
    case 'progress':
      if (run.witness) return witnessesIn(run, msg);
      if (msg.flags) run = { ...run, flags: msg.flags };
      return msg.best === undefined ? run : { ...run, best: msg.best, files: msg.files ?? run.files, stats: msg.stats, trace: msg.trace ?? run.trace };
    case 'original':
      return { ...run, outputs: { ...run.outputs, [msg.side]: msg.result } };
    case 'finished':
      if (run.witness) return msg.stats ? { ...witnessesIn({ ...run, witnesses: [] }, msg), state: msg.state } : { ...run, state: msg.state };
      return msg.stats
        ? { ...run, state: msg.state, best: msg.best, files: msg.files ?? run.files, stats: msg.stats, verdicts: msg.verdicts, trace: msg.trace ?? run.trace, flags: msg.flags ?? run.flags }
        : { ...run, state: msg.state };
    default:
      return run;
  }
}

/** A witness search's run after a message with its stats: the witnesses it brings are new
 *  ones (a 'finished' one brings them all), its ranking the latest. */
const witnessesIn = (run, msg) => ({
  ...run,
  stats: msg.stats,
  witnesses: msg.witnesses ? [...run.witnesses, ...msg.witnesses] : run.witnesses,
  ranking: msg.ranking !== undefined ? msg.ranking : run.ranking,
});

/** What local storage keeps of a run's best result, so that it survives a reload. */
export function bestRecord(run, finished, savedAt) {
  const stats = Object.fromEntries(Object.entries(run.stats).filter(([k]) => /tokens|queries/.test(k)));
  return {
    mode: run.pair ? 'pair' : run.generator ? 'generator' : 'single',
    key: run.key,
    setup: run.setup ?? null,
    best: run.best,
    original: run.original.variant,
    seed: run.original.seed,
    lang: run.lang,
    stats,
    savedAt,
    finished,
  };
}

/** Whether a saved best result is worth showing with `state`: it is of this state's programs,
 *  mode, language and strategy (runKey), and it reduced something (a run that failed on its
 *  original has nothing to restore). */
export const bestBelongsTo = (saved, state) =>
  !!saved?.stats && saved.key === runKey(state) && saved.stats.tokens_now < saved.stats.tokens_before;

/** The run a saved best result stands for (it replays nothing and belongs to no state), or
 *  null when the record is unusable. */
export function restoredRun(saved) {
  if (!saved?.best || !saved.stats) return null;
  return {
    id: 0,
    replay: false,
    pair: saved.mode === 'pair',
    generator: saved.mode === 'generator',
    original: { variant: saved.original, seed: saved.seed ?? null },
    lang: saved.lang,
    key: null,
    state: 'restored',
    verdicts: null,
    best: saved.best,
    stats: saved.stats,
    outputs: {},
    finished: !!saved.finished,
    savedAt: saved.savedAt,
    setup: typeof saved.setup === 'string' ? saved.setup : null,
  };
}
