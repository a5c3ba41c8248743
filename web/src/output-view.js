// The Output tab: what the endpoint answered for a program (exit code and streams).
const ASM_SHOWN = 20000;

export function renderOutput(result, what) {
  const parts = [h('p', `Answer for ${what}: exit code ${result.code}`, 'muted')];
  const block = (title, text) => text && parts.push(h('h3', title), h('pre', text));
  block('stderr', result.stderr);
  block('stdout', result.stdout);
  if (result.run) {
    parts.push(h('h3', `run: exit code ${result.run.code}`));
    block('run stdout', result.run.stdout);
    block('run stderr', result.run.stderr);
  }
  block('asm', result.asm.length > ASM_SHOWN ? `${result.asm.slice(0, ASM_SHOWN)}\n…` : result.asm);
  if (parts.length === 1) parts.push(h('p', '(no output)', 'muted'));
  return parts;
}

function h(tag, text, cls) {
  const e = document.createElement(tag);
  e.textContent = text;
  if (cls) e.className = cls;
  return e;
}
