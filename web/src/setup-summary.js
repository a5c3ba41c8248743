// One line saying what a reduction tests: the endpoint, the compiler, its flags and the
// property, for the Result tab and embeds (which have no settings sidebar to look at).

const STREAMS = { stdout: 'stdout', stderr: 'stderr', asm: 'asm', run: 'the run’s output', source: 'the program' };

/** "gcc -O2 -Wall (whittle serve); property: stderr matches “…”, compiler exit code = 0". */
export function describeSetup(state, side = 'variant') {
  const p = side === 'seed' ? state.seedProperty : state.property;
  const compiler = state.endpoint.kind === 'none'
    ? 'no compiler (the property reads the program)'
    : `${[state.compiler || '(no compiler chosen)', state.flags.trim()].filter(Boolean).join(' ')} (${state.endpoint.kind === 'ce' ? 'Compiler Explorer' : 'whittle serve'})`;
  return `${compiler}; property: ${describeProperty(p)}`;
}

export function describeProperty(p) {
  if (p.kind === 'js') return `JavaScript ${oneLine(p.js)}`;
  const parts = [];
  if (p.regex) {
    const where = (p.streams ?? []).map((s) => STREAMS[s] ?? s).join(' or ') || 'nothing';
    parts.push(`${where} ${p.negate ? 'does not match' : 'matches'} “${p.regex}”`);
  }
  if (p.exitOp && p.exitOp !== 'any') parts.push(`${p.exitOf === 'run' ? 'program' : 'compiler'} exit code ${p.exitOp === 'eq' ? '=' : '≠'} ${p.exitValue}`);
  return parts.join(', ') || 'anything (no condition)';
}

const oneLine = (text) => {
  const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
  return flat.length > 120 ? `${flat.slice(0, 119)}…` : flat;
};

/** The command an answer says ran (its compilationOptions), as a shell would read it. */
export function commandLine(compiler, options) {
  const quote = (a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`);
  return [compiler, ...options].filter((a) => a !== '').map(quote).join(' ');
}
