// The settings sidebar <-> the playground state's compile and property parts.
const $ = (id) => document.getElementById(id);

export const DEFAULT_JS_PROPERTY = `(result, input) =>
  result.code === 0 &&
  /makes integer from pointer without a cast/.test(result.stderr)`;

/** The default k: a few queries at once on our own server, one on a public instance. */
export const defaultK = (endpointKind) => (endpointKind === 'ce' ? 1 : 2);

/** The property of one side: 'program' (the program, or a pair's variant) or 'seed'. */
export const propertyOf = (state, side) => (side === 'seed' ? state.seedProperty : state.property);

/** A seed's default property: the variant's, negated (the seed must not show the behaviour). */
export const seedPropertyFrom = (p) => ({ ...p, negate: !p.negate });

/** Writes the compile, property (of side `propSide`) and settings parts of `state` into the form. */
export function writeForm(state, propSide = 'program') {
  $('mode').value = state.mode;
  $('lang').value = state.lang;
  $('strategy').value = state.strategy;
  $('endpoint').value = state.endpoint.kind;
  $('ce-base').value = state.endpoint.base ?? '';
  $('flags').value = state.flags;
  $('execute').checked = !!state.execute;
  writeProperty(propertyOf(state, propSide));
  $('k').value = String(state.settings.k);
  $('timeout').value = String(state.settings.timeoutS);
  $('share-verdicts').checked = state.settings.shareVerdicts !== false;
  showFields(state, propSide);
}

function writeProperty(p) {
  for (const r of document.querySelectorAll('input[name=prop-kind]')) r.checked = r.value === p.kind;
  $('prop-regex').value = p.regex ?? '';
  for (const c of document.querySelectorAll('input[name=stream]')) c.checked = (p.streams ?? []).includes(c.value);
  $('prop-negate').checked = !!p.negate;
  $('exit-of').value = p.exitOf ?? 'compile';
  $('exit-op').value = p.exitOp ?? 'any';
  $('exit-value').value = String(p.exitValue ?? 0);
  $('prop-js').value = p.js ?? DEFAULT_JS_PROPERTY;
}

/** Reads the form into (a copy of) `state`, the property into side `propSide`'s. The
 *  compiler comes from its select when that is filled. */
export function readForm(state, propSide = 'program') {
  const kind = document.querySelector('input[name=prop-kind]:checked')?.value ?? 'regex';
  const compilerSelect = $('compiler');
  return {
    ...state,
    mode: $('mode').value,
    lang: $('lang').value,
    strategy: $('strategy').value,
    endpoint: { kind: $('endpoint').value, base: $('ce-base').value.trim() },
    compiler: compilerSelect.value || state.compiler,
    flags: $('flags').value,
    execute: $('execute').checked,
    [propSide === 'seed' ? 'seedProperty' : 'property']: {
      kind,
      regex: $('prop-regex').value,
      streams: [...document.querySelectorAll('input[name=stream]:checked')].map((c) => c.value),
      negate: $('prop-negate').checked,
      exitOf: $('exit-of').value,
      exitOp: $('exit-op').value,
      exitValue: Number($('exit-value').value) || 0,
      js: $('prop-js').value,
    },
    settings: {
      k: clamp(Number($('k').value) || defaultK($('endpoint').value), 1, 16),
      timeoutS: clamp(Number($('timeout').value) || 60, 1, 600),
      shareVerdicts: $('share-verdicts').checked,
    },
  };
}

/** Shows the fields that apply: CE's base URL, compiler fields unless "none", one property kind. */
export function showFields(state, propSide = 'program') {
  const p = propertyOf(state, propSide);
  $('ce-base-field').hidden = state.endpoint.kind !== 'ce';
  $('compiler-fields').hidden = state.endpoint.kind === 'none';
  $('prop-regex-fields').hidden = p.kind !== 'regex';
  $('prop-js-fields').hidden = p.kind !== 'js';
}

/** Fills the compiler select, keeping `current` when the list has it. */
export function fillCompilers(list, current) {
  const select = $('compiler');
  const options = list.map((c) => new Option(c.name === c.id ? c.id : `${c.name} (${c.id})`, c.id));
  if (current && !list.some((c) => c.id === current)) options.unshift(new Option(`${current} (not listed)`, current));
  select.replaceChildren(...options);
  if (current) select.value = current;
  return select.value;
}

function clamp(v, lo, hi) {
  return Math.min(hi, Math.max(lo, v));
}
