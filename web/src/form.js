// The settings sidebar <-> the playground state's compile and property parts.
const $ = (id) => document.getElementById(id);

export const DEFAULT_JS_PROPERTY = `(result, input) =>
  result.code === 0 &&
  /makes integer from pointer without a cast/.test(result.stderr)`;

/** The default k: a few queries at once on our own server, one on a public instance. */
export const defaultK = (endpointKind) => (endpointKind === 'ce' ? 1 : 2);

/** Writes the compile, property and settings parts of `state` into the form. */
export function writeForm(state) {
  $('lang').value = state.lang;
  $('strategy').value = state.strategy;
  $('endpoint').value = state.endpoint.kind;
  $('ce-base').value = state.endpoint.base ?? '';
  $('flags').value = state.flags;
  $('execute').checked = !!state.execute;
  const p = state.property;
  for (const r of document.querySelectorAll('input[name=prop-kind]')) r.checked = r.value === p.kind;
  $('prop-regex').value = p.regex ?? '';
  for (const c of document.querySelectorAll('input[name=stream]')) c.checked = (p.streams ?? []).includes(c.value);
  $('prop-negate').checked = !!p.negate;
  $('exit-of').value = p.exitOf ?? 'compile';
  $('exit-op').value = p.exitOp ?? 'any';
  $('exit-value').value = String(p.exitValue ?? 0);
  $('prop-js').value = p.js ?? DEFAULT_JS_PROPERTY;
  $('k').value = String(state.settings.k);
  $('timeout').value = String(state.settings.timeoutS);
  $('share-verdicts').checked = state.settings.shareVerdicts !== false;
  showFields(state);
}

/** Reads the form into (a copy of) `state`. The compiler comes from its select when filled. */
export function readForm(state) {
  const kind = document.querySelector('input[name=prop-kind]:checked')?.value ?? 'regex';
  const compilerSelect = $('compiler');
  return {
    ...state,
    lang: $('lang').value,
    strategy: $('strategy').value,
    endpoint: { kind: $('endpoint').value, base: $('ce-base').value.trim() },
    compiler: compilerSelect.value || state.compiler,
    flags: $('flags').value,
    execute: $('execute').checked,
    property: {
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
export function showFields(state) {
  $('ce-base-field').hidden = state.endpoint.kind !== 'ce';
  $('compiler-fields').hidden = state.endpoint.kind === 'none';
  $('prop-regex-fields').hidden = state.property.kind !== 'regex';
  $('prop-js-fields').hidden = state.property.kind !== 'js';
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
