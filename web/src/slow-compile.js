// The slow-compile property (issue 27): the compile takes more than `factor` times as long as
// a reference compile of the same candidate (the same compiler with the reference's flags,
// -O0 unless set) and exits as it did on the original; past twice the original's time and a
// second it counts as slow at once. The engine calibrates on the original and judges
// (whittle::recipe, as the CLI's --slow-compile script does); the tester is in property.js.

/** The reference compile: the state's compiler with the property's flags, never run. */
export function slowSteps(state, p) {
  return { reference: { compiler: state.compiler, flags: p.slow.flags, execute: false } };
}

/** The property in words: "more than 5 times as long as gcc1220 -O0". */
export const describeSlow = (state, p) => `more than ${p.slow.factor} times as long as ${`${state.compiler} ${p.slow.flags}`.trim()}`;
