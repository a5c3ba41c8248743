// Property templates read off a compile's answer: a diagnostic the person clicks in the Output
// tab ("keep this warning"), or the compiler's crash. No DOM: node tests it.

// gcc and clang: `file:line:col: warning: message [-Wflag]` (the column is optional).
const DIAGNOSTIC = /^(?:[^:\n]*):(\d+):(?:\d+:)? (warning|error): (.*?)(?: \[(-W[^\]]+)\])?$/;
const CRASH = /internal compiler error|Segmentation fault|Assertion .* failed|PLEASE submit a bug report/i;

/** The diagnostic a stderr line is, or null: {severity, message, flag}. */
export function diagnosticOf(line) {
  const m = DIAGNOSTIC.exec(line);
  return m ? { severity: m[2], message: m[3], flag: m[4] ?? null } : null;
}

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * The property that keeps a diagnostic: its message must stay in stderr. A warning keeps the
 * program compiling (exit code 0), so that reducing does not trade the warning for an error;
 * an error takes any exit code. Names (in quotes) are left free to change, since reducing
 * renames.
 */
export function diagnosticProperty(d) {
  const regex = `${d.severity}: ${escape(d.message).replace(/(['‘"])[^'’"]*(['’"])/g, '$1.*$2')}`;
  return {
    kind: 'regex',
    regex,
    streams: ['stderr'],
    negate: false,
    exitOf: 'compile',
    exitOp: d.severity === 'warning' ? 'eq' : 'any',
    exitValue: 0,
  };
}

/** The crash template when an answer shows one: {label, property}, else null. */
export function crashTemplate(result) {
  const m = CRASH.exec(`${result.stderr}\n${result.stdout}`);
  if (!m) return null;
  return {
    label: `the compiler crash (“${m[0]}”)`,
    property: { kind: 'regex', regex: escape(m[0]), streams: ['stderr', 'stdout'], negate: false, exitOf: 'compile', exitOp: 'any', exitValue: 0 },
  };
}
