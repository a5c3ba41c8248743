// The Output tab: what the endpoint answered for a program (exit code, streams, and how much
// of the compiler ran when the answer carries its coverage). With `onPick`, its diagnostics and a
// crash are offered as properties (diagnostics.js): onPick(property, label).
import { crashTemplate, diagnosticOf, diagnosticProperty } from './diagnostics.js';

const ASM_SHOWN = 20000;

/** `command`: what ran, when the answer says (its compilationOptions); `signature` and
 *  `errors`: what the engine reads in the answer (the crash's signature or null, its error
 *  messages); `offers`: other templates ({label, property}) to pick. */
export function renderOutput(result, what, command = '', onPick = null, { signature = null, errors = [] } = {}, offers = []) {
  const took = Number.isFinite(result.ms) ? `, in ${(result.ms / 1000).toFixed(2)} s` : '';
  const parts = [h('p', `Answer for ${what}: exit code ${result.code}${took}`, 'muted')];
  if (command) parts.push(h('h3', 'command'), h('pre', `$ ${command}`, 'command'));
  const block = (title, text) => text && parts.push(h('h3', title), h('pre', text));
  if (onPick) {
    // (templates from elsewhere: wrong code across a Compiler Explorer link's two compilers)
    for (const offer of offers) parts.push(pickButton(`Use ${offer.label} as the property`, () => onPick(offer.property, offer.label)));
    const crash = crashTemplate(signature);
    if (crash) parts.push(pickButton(`Use ${crash.label} as the property`, () => onPick(crash.property, crash.label)));
    // (how slow, against what: the property's Slow compile fields)
    if (took) parts.push(pickButton('Use a slow compile as the property', () => onPick({ kind: 'slow' }, 'a slow compile (see the property’s fields for how slow)')));
    if (result.stderr) parts.push(h('h3', 'stderr'), pickableStderr(result.stderr, onPick, errors));
  } else {
    block('stderr', result.stderr);
  }
  block('stdout', result.stdout);
  if (result.run) {
    parts.push(h('h3', `run: exit code ${result.run.code}`));
    block('run stdout', result.run.stdout);
    block('run stderr', result.run.stderr);
  }
  block('asm', result.asm.length > ASM_SHOWN ? `${result.asm.slice(0, ASM_SHOWN)}\n…` : result.asm);
  if (result.coverage) parts.push(h('h3', 'compiler coverage'), h('p', coverageSummary(result.coverage), 'muted'));
  if (parts.length === 1) parts.push(h('p', '(no output)', 'muted'));
  return parts;
}

/** "3 files, 40 functions, 512 lines of the compiler ran". */
export function coverageSummary(coverage) {
  const files = Object.values(coverage);
  const functions = files.flatMap((f) => Object.values(f));
  const lines = functions.reduce((n, l) => n + (Array.isArray(l) ? l.length : 0), 0);
  return `${files.length} files, ${functions.length} functions, ${lines} lines of the compiler ran`;
}

/** stderr with each diagnostic line a button that makes it the property. */
function pickableStderr(text, onPick, errors) {
  const pre = document.createElement('pre');
  pre.className = 'pickable';
  text.split('\n').forEach((line, i) => {
    if (i) pre.append('\n');
    const d = diagnosticOf(line);
    if (!d) return pre.append(line);
    const label = `the ${d.severity} “${d.message}”`;
    const el = h('span', line, `diag ${d.severity}`);
    el.setAttribute('role', 'button');
    el.tabIndex = 0;
    el.title = `Use as the property: the output keeps ${label}`;
    const pick = () => onPick(diagnosticProperty(d, errors), label);
    el.addEventListener('click', pick);
    el.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), pick()));
    pre.append(el);
  });
  return pre;
}

function pickButton(text, onClick) {
  const b = h('button', text, 'small');
  b.type = 'button';
  b.addEventListener('click', onClick);
  return b;
}

function h(tag, text, cls) {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
