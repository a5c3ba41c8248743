// The settings sidebar <-> the playground state's compile and property parts.
import { autoSeeded, defaultK, DEFAULT_JS_PROPERTY, DEFAULT_PROPERTY, DEFAULT_WITNESS, isPair, LIMITS, propertyOf } from './state.js';
import { compilesOf, compileText } from './setup-summary.js';

const $ = (id) => document.getElementById(id);

/** Writes the compile, property (of side `propSide`) and settings parts of `state` into the form. */
export function writeForm(state, propSide = 'variant') {
  $('mode').value = state.mode;
  $('lang').value = state.lang;
  $('strategy').value = state.strategy;
  $('skip-passes').value = state.skipPasses;
  $('endpoint').value = state.endpoint.kind;
  $('ce-base').value = state.endpoint.base ?? '';
  $('pool').value = state.endpoint.pool ?? '';
  $('flags').value = state.flags;
  $('execute').checked = !!state.execute;
  writeProperty(propertyOf(state, propSide));
  $('k').value = String(state.settings.k);
  $('timeout').value = state.settings.timeoutS ? String(state.settings.timeoutS) : ''; // '': adaptive
  $('confirm').value = state.settings.confirm ? String(state.settings.confirm) : ''; // '': when flaky
  $('share-verdicts').checked = state.settings.shareVerdicts !== false;
  $('reduce-flags').checked = !!state.settings.reduceFlags;
  $('auto-seed').checked = !!state.witness.autoSeed;
  $('wit-budget').value = String(state.witness.budget);
  $('wit-rng-seed').value = String(state.witness.rngSeed);
  showFields(state, propSide);
}

function writeProperty(p) {
  for (const r of document.querySelectorAll('input[name=prop-kind]')) r.checked = r.value === p.kind;
  $('prop-regex').value = p.regex ?? '';
  for (const c of document.querySelectorAll('input[name=stream]')) c.checked = (p.streams ?? []).includes(c.value);
  $('prop-negate').checked = !!p.negate;
  $('prop-no-new-errors').checked = !!p.noNewErrors;
  $('exit-of').value = p.exitOf ?? 'compile';
  $('exit-op').value = p.exitOp ?? 'any';
  $('exit-value').value = String(p.exitValue ?? 0);
  $('prop-js').value = p.js ?? DEFAULT_JS_PROPERTY;
  // (left as typed while it reads as the same compiles: a half-typed line stays)
  const compiles = p.compiles ?? [];
  if (JSON.stringify(compilesOf($('prop-js-compiles').value, LIMITS.compiles)) !== JSON.stringify(compiles)) $('prop-js-compiles').value = compiles.map(compileText).join('\n');
  const w = p.wrongCode ?? DEFAULT_PROPERTY.wrongCode;
  for (const [id, value] of [['wrong-b-compiler', w.compiler], ['wrong-guard-compiler', w.guardCompiler]]) selectValue($(id), value);
  $('wrong-b-flags').value = w.flags;
  $('wrong-guard').checked = !!w.guard;
  const slow = p.slow ?? DEFAULT_PROPERTY.slow;
  $('slow-factor').value = String(slow.factor);
  $('slow-flags').value = slow.flags;
}

/** Selects `value` in `select`, listing it first when the compiler list lacks it ('' is
 *  “as build A”). */
function selectValue(select, value) {
  if (![...select.options].some((o) => o.value === value)) select.prepend(new Option(value ? `${value} (not listed)` : 'as build A', value));
  select.value = value;
}

/** The form's values, for applyForm (state.js): the property shown is one side's; the
 *  compiler is '' while its select is empty. */
export function readForm() {
  const kind = document.querySelector('input[name=prop-kind]:checked')?.value ?? 'regex';
  return {
    mode: $('mode').value,
    lang: $('lang').value,
    strategy: $('strategy').value,
    skipPasses: $('skip-passes').value.trim(),
    endpoint: { kind: $('endpoint').value, base: $('ce-base').value.trim(), pool: $('pool').value.trim() },
    compiler: $('compiler').value,
    flags: $('flags').value,
    execute: $('execute').checked,
    property: {
      kind,
      regex: $('prop-regex').value,
      streams: [...document.querySelectorAll('input[name=stream]:checked')].map((c) => c.value),
      negate: $('prop-negate').checked,
      noNewErrors: $('prop-no-new-errors').checked,
      exitOf: $('exit-of').value,
      exitOp: $('exit-op').value,
      exitValue: Number($('exit-value').value) || 0,
      js: $('prop-js').value,
      compiles: compilesOf($('prop-js-compiles').value, LIMITS.compiles),
      wrongCode: {
        compiler: $('wrong-b-compiler').value,
        flags: $('wrong-b-flags').value,
        guard: $('wrong-guard').checked,
        guardCompiler: $('wrong-guard-compiler').value,
      },
      slow: {
        factor: clamp(Number($('slow-factor').value) || DEFAULT_PROPERTY.slow.factor, 1, 1000),
        flags: $('slow-flags').value,
      },
    },
    settings: {
      k: clamp(Number($('k').value) || defaultK($('endpoint').value), 1, 16),
      timeoutS: $('timeout').value.trim() === '' ? 0 : clamp(Number($('timeout').value) || 0, 0, 600),
      confirm: clamp(Math.round(Number($('confirm').value)) || 0, 0, 10),
      shareVerdicts: $('share-verdicts').checked,
      reduceFlags: $('reduce-flags').checked,
    },
    witness: {
      autoSeed: $('auto-seed').checked,
      budget: clamp(Math.round(Number($('wit-budget').value)) || DEFAULT_WITNESS.budget, 2, 100000),
      rngSeed: wholeNumber($('wit-rng-seed').value, DEFAULT_WITNESS.rngSeed),
    },
  };
}

/** Shows the fields that apply: CE's base URL, compiler fields unless "none", one property kind. */
export function showFields(state, propSide = 'variant') {
  const p = propertyOf(state, propSide);
  $('ce-base-field').hidden = state.endpoint.kind !== 'ce';
  $('pool-field').hidden = state.endpoint.kind === 'none';
  $('compiler-fields').hidden = state.endpoint.kind === 'none';
  $('prop-regex-fields').hidden = p.kind !== 'regex';
  $('prop-js-fields').hidden = p.kind !== 'js';
  $('prop-wrong-fields').hidden = p.kind !== 'wrong-code';
  $('prop-slow-fields').hidden = p.kind !== 'slow';
  $('wrong-guard-field').hidden = !p.wrongCode?.guard;
  // A pair needs the search's settings only to find its seed, whose property is derived.
  $('witness-fields').hidden = isPair(state) && !state.witness.autoSeed;
  $('prop-side-switch').hidden = autoSeeded(state);
  $('auto-seed-property').hidden = !autoSeeded(state);
}

/** Fills the compiler selects (the compiler's, and a wrong-code property's: `wrongCode`),
 *  keeping each current choice when the list has it. Returns the compiler chosen. */
export function fillCompilers(list, current, wrongCode = DEFAULT_PROPERTY.wrongCode) {
  const options = () => list.map((c) => new Option(c.name === c.id ? c.id : `${c.name} (${c.id})`, c.id));
  const select = $('compiler');
  select.replaceChildren(...options());
  if (current && !list.some((c) => c.id === current)) select.prepend(new Option(`${current} (not listed)`, current));
  if (current) select.value = current;
  for (const [id, value] of [['wrong-b-compiler', wrongCode.compiler], ['wrong-guard-compiler', wrongCode.guardCompiler]]) {
    $(id).replaceChildren(new Option('as build A', ''), ...options());
    selectValue($(id), value);
  }
  return select.value;
}

/** A whole number from 0 up (the search's random seed), else `fallback`. */
function wholeNumber(text, fallback) {
  const n = Number(text);
  return text.trim() !== '' && Number.isSafeInteger(n) && n >= 0 ? n : fallback;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
