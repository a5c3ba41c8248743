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
  if (p.kind === 'js') return `JavaScript ${oneLine(p.js)}${p.compiles?.length ? `, given also the answers of ${p.compiles.map(compileText).join(', ')}` : ''}`;
  if (p.kind === 'wrong-code') {
    const b = `${p.wrongCode.compiler || 'build A’s compiler'} ${p.wrongCode.flags}`.trim();
    return `wrong code: the program built with ${b} runs otherwise${p.wrongCode.guard ? ', guarded against undefined behaviour' : ''}`;
  }
  if (p.kind === 'slow') return `a slow compile: more than ${p.slow.factor} times as long as with ${p.slow.flags.trim() || 'no flags'}`;
  const parts = [];
  if (p.regex) {
    const where = (p.streams ?? []).map((s) => STREAMS[s] ?? s).join(' or ') || 'nothing';
    parts.push(`${where} ${p.negate ? 'does not match' : 'matches'} “${p.regex}”`);
  }
  if (p.exitOp && p.exitOp !== 'any') parts.push(`${p.exitOf === 'run' ? 'program' : 'compiler'} exit code ${p.exitOp === 'eq' ? '=' : '≠'} ${p.exitValue}`);
  return parts.join(', ') || 'anything (no condition)';
}

/** A compile of a JavaScript property's, as its line in the form: "run gcc1220 -O0". */
export const compileText = (c) => [c.execute ? 'run' : '', c.compiler, c.flags].filter(Boolean).join(' ');

/** The form's lines of compiles (compileText's shape), at most `max`: the compiler id, its
 *  flags, and `run` first to run the program. */
export function compilesOf(text, max) {
  return String(text ?? '').split('\n').map((l) => l.trim().split(/\s+/).filter(Boolean)).filter((w) => w.length > 0).slice(0, max).map((words) => {
    const execute = words[0] === 'run';
    const [compiler = '', ...flags] = execute ? words.slice(1) : words;
    return { compiler, flags: flags.join(' '), execute };
  }).filter((c) => c.compiler);
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
