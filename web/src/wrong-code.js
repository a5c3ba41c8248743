// The wrong-code property (issue 27): two builds of the program whose runs disagree (exit code
// or output), guarded against undefined behaviour: the guard's compiler with the warnings that
// flag it made errors must accept the candidate, and its run under ASan and UBSan must print
// what the reference build's run printed. The engine judges (whittle::recipe::answers, as the
// CLI's --wrong-code --endpoint does) and says which compile it needs next, so the guard's two
// compiles are made only for candidates that still show the bug (the tester: property.js).
/** The compiles of a wrong-code property, in the order the engine asks for them. */
export const STEPS = Object.freeze(['a', 'b', 'warnings', 'sanitized']);

/**
 * Each step's compile, for the endpoint: build A is the state's compiler and flags, build B
 * the property's; the guard's steps are its compiler with the engine's flags (`guardFlags`:
 * {warnings, sanitized}, which the worker sends when it starts). Without the guard, A and B.
 */
export function wrongCodeSteps(state, p, guardFlags) {
  const w = p.wrongCode;
  const steps = {
    a: { compiler: state.compiler, flags: state.flags, execute: true },
    b: { compiler: w.compiler || state.compiler, flags: w.flags, execute: true },
  };
  if (w.guard) {
    const compiler = w.guardCompiler || state.compiler;
    steps.warnings = { compiler, flags: guardFlags?.warnings ?? '', execute: false };
    steps.sanitized = { compiler, flags: guardFlags?.sanitized ?? '', execute: true };
  }
  return steps;
}

/** A step's compile in words: "gcc1220 -O2". */
export const describeStep = (s) => `${s.compiler} ${s.flags}`.trim();
