// Property templates read off a compile's answer: a diagnostic the person clicks in the Output
// tab ("keep this warning"), or the compiler's crash (its signature is the engine's). No DOM:
// node tests it.

// gcc and clang: `file:line:col: warning: message [-Wflag]` (the column is optional).
const DIAGNOSTIC = /^(?:[^:\n]*):(\d+):(?:\d+:)? (warning|error): (.*?)(?: \[(-W[^\]]+)\])?$/;

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
export function diagnosticProperty(d, errors = []) {
  const regex = `${d.severity}: ${escape(d.message).replace(/(['‘"])[^'’"]*(['’"])/g, '$1.*$2')}`;
  return {
    kind: 'regex',
    regex,
    streams: ['stderr'],
    negate: false,
    exitOf: 'compile',
    exitOp: d.severity === 'warning' ? 'eq' : 'any',
    exitValue: 0,
    // The answer's errors, for "no error the original did not have" (off until ticked).
    allowedErrors: [...errors],
  };
}

/**
 * The crash template of an answer, from the engine's signature of its crash (`signature`:
 * {fragments, code} from whittle::recipe::crash_signature, as the CLI's --crash takes it: gcc's
 * internal compiler error without line numbers and the first frames of a backtrace, an
 * assertion, the top of clang's stack dump, rustc's panic, the signal), else null: {label,
 * property}. The property is a regex every fragment must match, in any order, and the exit
 * code the crash had (a signal's) or any failure.
 */
export function crashTemplate(signature) {
  if (!signature) return null;
  const { fragments, code } = signature;
  const regex = fragments.map((f) => `(?=[\\s\\S]*${escape(f)})`).join('');
  const what = fragments[0] ?? `killed by signal ${code - 128}`;
  return {
    label: `the compiler crash (“${what}”${fragments.length > 1 ? ` and ${fragments.length - 1} more` : ''})`,
    property: {
      kind: 'regex',
      regex: regex ? `^${regex}` : '',
      streams: ['stderr', 'stdout'],
      negate: false,
      exitOf: 'compile',
      exitOp: code ? 'eq' : 'ne',
      exitValue: code ?? 0,
    },
  };
}
