//! TypeScript declarations of every value crossing the JavaScript boundary: the configs the
//! constructors take and what the methods return (as ruff's wasm crate declares its own). The
//! methods name them with `unchecked_param_type` / `unchecked_return_type`, so the generated
//! `whittle.d.ts` types them. Serialized fields are snake_case both ways, as in
//! `--stats-json`; the shapes follow the serde types they are made from.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TYPES: &'static str = r#"
/** A side of a reduction: a single program is the variant. */
export type Side = "seed" | "variant";
/** What a test said of a query. */
export type VerdictName = "interesting" | "boring" | "error";

/** One test to run: `text` under `side`'s property; report its verdict by `id`. */
export interface Query {
  id: number;
  /** The candidate this query tests a side of. */
  candidate: number;
  side: Side;
  text: string;
  /** Whether this tests the original input. */
  original: boolean;
}

/** The first syntax error of a parse. */
export interface SyntaxError {
  line: number;
  column: number;
  byte: number;
  what: "error" | "missing";
  near: string;
}

/** A node of a parse tree (byte offsets into the UTF-8 text). */
export interface TreeNode {
  kind: string;
  field: string | null;
  named: boolean;
  extra: boolean;
  error: boolean;
  missing: boolean;
  start: number;
  end: number;
  parent: number | null;
  children: number[];
  first_token: number;
  end_token: number;
  depth: number;
}

/** `parse`'s report. */
export interface ParseReport {
  lang: string;
  tokens: number;
  bytes: number;
  ok: boolean;
  error: SyntaxError | null;
  /** Counted tokens in error regions: the grammar coverage is `tokens - error_tokens`. */
  error_tokens: number;
  round_trip: boolean;
  parse_ms: number;
  tree?: TreeNode[];
}

/** One piece of a token diff. */
export interface DiffOp {
  tag: "equal" | "delete" | "insert";
  text: string;
}

/** One pass's figures. */
export interface PassStats {
  pass: string;
  queries: number;
  cache_hits: number;
  invalid_skipped: number;
  accepted: number;
  tokens_removed: number;
  bytes_removed: number;
}

/** A session's figures (`Session.stats`, `step`). */
export interface Stats {
  queries: number;
  cache_hits: number;
  invalid_skipped: number;
  invalid_queries: number;
  unparsed_queries: number;
  stale_verdicts: number;
  errors: number;
  accepted: number;
  tokens_before: number;
  tokens_now: number;
  bytes_before: number;
  bytes_now: number;
  pass: string;
  round: number;
  in_flight: number;
  original_interesting: boolean | null;
  done: boolean;
  passes: PassStats[];
}

/** A pair session's figures. */
export interface PairStats extends Stats {
  seed_tokens_before: number;
  seed_tokens_after: number;
  variant_tokens_before: number;
  variant_tokens_after: number;
  diff_tokens_before: number;
  diff_tokens_after: number;
  seed_queries: number;
  variant_queries: number;
}

/** A generator session's figures. */
export interface GeneratorStats extends Stats {
  failed_runs: number;
  units_before: number;
  units_now: number;
}

/** One pass's work in a session's history. */
export interface HistoryStep {
  strategy: string;
  pass: string;
  round: number;
  tokens_before: number;
  tokens_after: number;
  queries: number;
}

/** A pair's best: both programs and their unified diff. */
export interface PairBest {
  seed: string;
  variant: string;
  diff: string;
  diff_tokens: number;
}

/** A decision of a generator's run. */
export type TraceNode =
  | { kind: "int"; label: string; value: number; key?: string }
  | { kind: "loop"; label: string; iterations: TraceNode[][] }
  | { kind: "maybe"; label: string; body: TraceNode[] | null };

/** A generator run's decisions. */
export interface Trace {
  nodes: TraceNode[];
}

/** `new Session(config)`. */
export interface SessionConfig {
  lang?: string;
  text: string;
  strategy?: string;
  /** Passes the strategy leaves out, by name: `"rename, types"` (formerly `skipPasses`). */
  skip_passes?: string;
  strict?: boolean;
}

/** `new FolderSession(config)`: the program and the files beside it, each named (its
 *  language comes from its name). */
export interface FolderSessionConfig {
  files: { filename: string; contents: string }[];
  strategy?: string;
  skip_passes?: string;
}

/** `new PairSession(config)`. */
export interface PairSessionConfig {
  lang?: string;
  seed: string;
  variant: string;
  strategy?: string;
  skip_passes?: string;
  strict?: boolean;
}

/** `new GeneratorSession(config, generate)`. */
export interface GeneratorSessionConfig {
  /** The free run's random seed (formerly `seed`). */
  rng_seed?: number;
  align?: "halt" | "bypass" | "realign";
  trace?: "hdd" | "ddmin";
}

/** `new WitnessSearch(config)`. */
export interface WitnessSearchConfig {
  lang?: string;
  text: string;
  /** The search's random seed (formerly `seed`). */
  rng_seed?: number;
  budget?: number;
  want?: number;
  selection?: "mh" | "random";
  keep?: "diverse" | "all";
}

/** gcov-shaped coverage: file -> function -> lines run, each a line or [line, times it ran]. */
export type Coverage = Record<string, Record<string, (number | [number, number])[]>>;

/** What a mutant's compile and test said (`WitnessSearch.report`). */
export interface Observation {
  outcome: "failing" | "passing" | "rejected";
  coverage?: Coverage;
  trace?: string;
  about?: string;
}

/** A witness search's figures. */
export interface WitnessStats {
  queries: number;
  failing: number;
  passing: number;
  rejected: number;
  syntax_rejected: number;
  not_diverse: number;
  minimize_queries: number;
  witnesses: number;
  max_order: number;
  budget: number;
  done: boolean;
  original: "untested" | "failing" | "passing" | "rejected";
}

/** One edit of a witness. */
export interface Change {
  rule: string;
  line: number;
  before: string;
  after: string;
}

/** A witness as the page lists it. */
export interface ListedWitness {
  index: number;
  text: string;
  changes: Change[];
  order: number;
  distance: number | null;
  query: number | null;
  diff: string;
}

/** A compiler file or function and its Ochiai score. */
export interface Suspect {
  name: string;
  score: number;
  statements: number;
}

export interface Ranking {
  files: Suspect[];
  functions: Suspect[];
}

/** A mutation rule's record. */
export interface RuleStats {
  rule: string;
  sites: number;
  selected: number;
  accepted: number;
  rejected: number;
  diversity: number;
}

/** A JavaScript generator: makes every choice through `g`, returns the program. */
/** The signature of a compiler's crash: every fragment appears in its output; `code` is the
 *  signal's exit status, or null. */
export interface CrashSignature {
  fragments: string[];
  code: number | null;
}

/** A compile answer as the wrong-code judge reads it. */
export interface CompileAnswer {
  code: number;
  run: { code: number; stdout: string; stderr: string } | null;
}

/** A wrong-code property's compiles, in the order the judge asks for them. */
export type WrongCodeStep = "a" | "b" | "warnings" | "sanitized";

/** What the wrong-code judge says after the answers so far. */
export type WrongCodeNext = { verdict: boolean } | { need: WrongCodeStep };

export type GenerateFn = (g: GeneratorDecisions) => string;
"#;
