// The shapes the page, the sandbox frame and the worker pass around, as JSDoc types checked by
// `tsc --noEmit` (tsconfig.json): the page's state, a run, and the worker's messages. The
// engine's own values (stats, queries, parse reports, witnesses) are declared by the wasm
// build (web/pkg/whittle.d.ts, from crate/wasm/src/types.rs). Casing: the engine's fields are
// snake_case, as in `--stats-json`; the page's own objects are camelCase.
//
// Nothing here runs: files import these with `@typedef {import('./types.js').State} State`.

/**
 * @typedef {import('../pkg/whittle.js').Stats} Stats
 * @typedef {import('../pkg/whittle.js').PairStats} PairStats
 * @typedef {import('../pkg/whittle.js').GeneratorStats} GeneratorStats
 * @typedef {import('../pkg/whittle.js').WitnessStats} WitnessStats
 * @typedef {import('../pkg/whittle.js').HistoryStep} HistoryStep
 * @typedef {import('../pkg/whittle.js').PairBest} PairBest
 * @typedef {import('../pkg/whittle.js').ParseReport} ParseReport
 * @typedef {import('../pkg/whittle.js').DiffOp} DiffOp
 * @typedef {import('../pkg/whittle.js').Trace} Trace
 * @typedef {import('../pkg/whittle.js').ListedWitness} ListedWitness
 * @typedef {import('../pkg/whittle.js').Ranking} Ranking
 * @typedef {import('../pkg/whittle.js').RuleStats} RuleStats
 * @typedef {import('../pkg/whittle.js').Change} Change
 */

/** @typedef {'single' | 'pair' | 'generator' | 'witness'} Mode */
/** @typedef {'seed' | 'variant'} Side */

/**
 * What makes a compile answer interesting: a regex over some streams with an exit check, a
 * JavaScript function (`js`, run sandboxed), wrong code (`wrongCode`: build B's compiler and
 * flags against the state's, and the undefined-behaviour guard; wrong-code.js), or a slow
 * compile (`slow`: slower than the compiler with other flags by a factor; slow-compile.js).
 * @typedef {object} Property
 * @property {'regex' | 'js' | 'wrong-code' | 'slow'} kind
 * @property {string} regex
 * @property {string[]} streams
 * @property {boolean} negate
 * @property {string} exitOf
 * @property {string} exitOp
 * @property {number} exitValue
 * @property {string} js
 * @property {{compiler: string, flags: string, execute: boolean}[]} compiles  a JavaScript property's other compiles: their answers follow the first's in its `answers`
 * @property {WrongCode} wrongCode
 * @property {{factor: number, flags: string}} slow  more than `factor` times the compile with `flags`
 * @property {boolean} [noNewErrors]  and no compile error but `allowedErrors`
 * @property {string[]} [allowedErrors]  the errors of the output a diagnostic was picked from
 */

/**
 * A wrong-code property's build B and guard (build A is the state's compiler and flags).
 * @typedef {object} WrongCode
 * @property {string} compiler  '' takes build A's
 * @property {string} flags
 * @property {boolean} guard
 * @property {string} guardCompiler  '' takes build A's
 */

/**
 * Generator mode: the module's source and how its run is reduced.
 * @typedef {object} GeneratorState
 * @property {string} source
 * @property {string | number} rngSeed  the free run's random seed; '' takes the module's own
 * @property {string} align
 * @property {string} trace
 */

/**
 * The witness search's settings (witness mode, and pair mode's automatic seed).
 * @typedef {object} WitnessState
 * @property {number} rngSeed  the search's random seed
 * @property {number} budget
 * @property {boolean} autoSeed  pair mode finds its seed (a witness of the variant)
 */

/**
 * The page's state: what local storage keeps and a link carries (state.js).
 * @typedef {object} State
 * @property {Mode} mode
 * @property {string} lang
 * @property {string} variant  the program, or a pair's variant
 * @property {string} seed  a pair's seed program
 * @property {import('./files.js').ExtraFile[]} files  beside the program (both sides of a pair) in every compile
 * @property {string} strategy
 * @property {string} skipPasses  passes the strategy leaves out, by name: 'rename, types'
 * @property {{kind: string, base: string, pool?: string}} endpoint  pool: other instances' base URLs
 * @property {string} compiler
 * @property {string} flags
 * @property {boolean} execute
 * @property {Property} property  the variant's
 * @property {Property} seedProperty
 * @property {{k: number, timeoutS: number, confirm?: number, shareVerdicts: boolean, reduceFlags?: boolean}} settings  timeoutS 0: adaptive; confirm 0: only when flaky; reduceFlags: the flags after the program
 * @property {GeneratorState} generator
 * @property {WitnessState} witness
 */

/** @typedef {'running' | 'paused' | 'done' | 'failed' | 'cancelled' | 'restored'} RunState */

/**
 * One run on the page (state.js `startRun`): a reduction, a replay, a generator's run or a
 * witness search.
 * @typedef {object} Run
 * @property {number} id
 * @property {boolean} replay
 * @property {boolean} pair
 * @property {string} [compiler]  the compiler the run's compiles used, for the Output tab
 * @property {boolean} generator
 * @property {boolean} [witness]
 * @property {boolean} [seeding]  a pair's automatic seed is still being searched for
 * @property {any} [seedSearch]  that search's stats
 * @property {ListedWitness[]} [witnesses]
 * @property {Ranking | null} [ranking]
 * @property {{variant: string | null, seed: string | null}} original
 * @property {Trace | null} [originalTrace]
 * @property {Record<string, string[]> | null} [picks]  a generator's pick lists, to show a trace's values
 * @property {any} [setup]  what the run tested (setup-summary.js)
 * @property {Trace | null} [trace]
 * @property {string | null} lang
 * @property {string | null} key
 * @property {RunState} state
 * @property {string | null} verdicts
 * @property {string | PairBest | null} best
 * @property {import('./files.js').ExtraFile[]} [files]  a folder run's other files, as they are in the best
 * @property {{main: string, b?: string}} [flags]  the fewest flags that keep the property (a flag reduction)
 * @property {any} stats  Stats, PairStats, GeneratorStats or WitnessStats, by the run's kind
 * @property {Record<string, any>} outputs  the endpoint's answer for each side of the original
 * @property {boolean} [recorded]
 */

/**
 * What the page asks the worker (worker.js).
 * @typedef {{type: 'boot', wasm: ArrayBuffer | WebAssembly.Module}
 *   | {type: 'parse', seq: number, key: string, text: string, lang: string, wantTree?: boolean}
 *   | {type: 'reduce', run: number, config: any}
 *   | {type: 'replay', run: number, config: any, verdicts: string}
 *   | {type: 'pause' | 'resume' | 'cancel', run: number}
 *   | {type: 'diff', seq: number, a: string, b: string}
 *   | {type: 'test', seq: number, property: Property, result: any, text: string, answers?: Record<string, any>}
 *   | {type: 'read-answer', seq: number, output: string, code: number}
 *   | {type: 'generate', seq: number, generator: GeneratorState}
 *   | {type: 'compiled', id: number, result?: any, error?: string, endpoint?: boolean, cacheHits?: number}
 * } WorkerRequest
 */

/**
 * What the worker answers (worker.js), besides a run's messages.
 * @typedef {{type: 'ready', ms: number, guardFlags: {warnings: string, sanitized: string}}
 *   | {type: 'fatal', message: string}
 *   | {type: 'needs-grammar', lang: string, request: WorkerRequest}
 *   | {type: 'parsed', seq: number, report?: ParseReport, superseded?: boolean}
 *   | {type: 'diffed', seq: number, chunks: DiffOp[]}
 *   | {type: 'tested', seq: number, verdict: boolean}
 *   | {type: 'read-answer', seq: number, signature: {fragments: string[], code: number | null} | null, errors: string[]}
 *   | {type: 'error', seq: number, request: string, message: string}
 *   | {type: 'generated', seq: number, output: string, trace: Trace, rngSeed: number, picks?: Record<string, string[]>}
 *   | {type: 'compile', run: number, id: number, text: string, step?: string | null}
 *   | {type: 'uncompile', run: number, id: number}
 * } WorkerReply
 */

/**
 * A run's messages (reduction.js, witness-search.js, auto-seed.js); each carries `run`.
 * @typedef {{run: number} & (
 *     {type: 'state', state: RunState, message?: string}
 *   | {type: 'progress', stats: any, elapsedMs: number, engineMs?: number, clientCacheHits?: number, inFlight?: number, guardRefused?: number, limitMs?: number, timedOut?: number, confirm?: number, undone?: number, flaky?: boolean,
 *      flags?: {main: string, b?: string}, flagsTried?: number, best?: string | PairBest, files?: import('./files.js').ExtraFile[], replayed?: number, trace?: Trace, witnesses?: ListedWitness[], ranking?: Ranking | null}
 *   | {type: 'original', result: any, side: Side}
 *   | {type: 'generated', original: string, trace: Trace, rngSeed?: number, picks?: Record<string, string[]>}
 *   | {type: 'notice', message: string}
 *   | {type: 'seeding', stats: any, elapsedMs?: number}
 *   | {type: 'seed', seed: string, changes: Change[], stats: any}
 *   | {type: 'finished', state: RunState, message?: string, best?: string | PairBest, files?: import('./files.js').ExtraFile[], stats?: any,
 *      history?: HistoryStep[], verdicts?: string, elapsedMs?: number, engineMs?: number, guardRefused?: number, limitMs?: number, timedOut?: number, confirm?: number, undone?: number, flaky?: boolean, trace?: Trace,
 *      flags?: {main: string, b?: string}, flagsTried?: number, witnesses?: ListedWitness[], ranking?: Ranking | null, rules?: RuleStats[]}
 * )} RunMessage
 */

export {};
