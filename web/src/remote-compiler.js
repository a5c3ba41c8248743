// The engine worker's compiler: it asks the page, which does every compile (the worker lives in
// the sandbox, where nothing can reach the network). One message out per query, one answer back.
//
// Out: {type: 'compile', run, id, text, step, timeoutMs, fresh, flags, files}   {type: 'uncompile', run, id} (no longer needed)
// In:  {type: 'compiled', id, result} | {type: 'compiled', id, error, endpoint: bool, timedOut: bool, cacheHits}
import { EndpointError } from './endpoint.js';

const waiting = new Map(); // id -> {resolve, reject}
let lastId = 0;

/** A compiler for run `run` whose compiles the page does; `post` sends to the page. */
export class RemoteCompiler {
  constructor(run, post) {
    this.run = run;
    this.post = post;
    this.cacheHits = 0;
  }

  /** `step`: one of the run's other compiles (a wrong-code property's builds), or null;
   *  `timeoutMs`: the query's own limit; `fresh`: not from the cache; `flags`: instead of
   *  the step's; `files`: instead of the run's (a folder's candidate; see Compiler). */
  compile(text, signal, { step = null, timeoutMs = 0, fresh = false, flags = null, files = null } = {}) {
    const id = ++lastId;
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason);
      signal.addEventListener('abort', () => {
        if (!waiting.delete(id)) return;
        this.post({ type: 'uncompile', run: this.run, id });
        reject(signal.reason);
      }, { once: true });
      waiting.set(id, {
        resolve: (msg) => {
          this.cacheHits = msg.cacheHits ?? this.cacheHits;
          resolve(msg.result);
        },
        reject: (msg) => {
          this.cacheHits = msg.cacheHits ?? this.cacheHits;
          reject(msg.endpoint ? new EndpointError(msg.error, { timedOut: !!msg.timedOut }) : new Error(msg.error));
        },
      });
      this.post({ type: 'compile', run: this.run, id, text, step, timeoutMs, fresh, flags, files });
    });
  }
}

/** The page's answer to a compile request. */
export function compiled(msg) {
  const w = waiting.get(msg.id);
  if (!w) return;
  waiting.delete(msg.id);
  if ('error' in msg) w.reject(msg);
  else w.resolve(msg);
}
