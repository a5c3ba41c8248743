// The Output tab: what the endpoint answered for a program (exit code, streams, and how much
// of the compiler ran when the answer carries its coverage).
const ASM_SHOWN = 20000;

/** `command`: what ran, when the answer says (its compilationOptions). */
export function renderOutput(result, what, command = '') {
  const parts = [h('p', `Answer for ${what}: exit code ${result.code}`, 'muted')];
  if (command) parts.push(h('h3', 'command'), h('pre', `$ ${command}`, 'command'));
  const block = (title, text) => text && parts.push(h('h3', title), h('pre', text));
  block('stderr', result.stderr);
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

function h(tag, text, cls) {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
