// The page's side of the engine worker: request/answer calls (parse, diff) and a stream of
// reduction events. Only the latest answer of each kind matters to the page, so each call
// supersedes the previous one of the same kind.

export class EngineClient {
  constructor() {
    this.seq = 0;
    this.waiting = new Map(); // seq -> {resolve, reject}
    this.onReduction = () => {};
    this.start();
  }

  start() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.heard = 0; // messages from this worker, to tell a stuck one
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (e) => {
        const msg = e.data;
        this.heard++;
        if (msg.type === 'ready') resolve(msg);
        else if (msg.type === 'fatal') reject(new Error(msg.message));
        else this.dispatch(msg);
      };
      this.worker.onerror = (e) => reject(new Error(`the engine worker failed to start: ${e.message ?? 'see the console'}`));
    });
  }

  dispatch(msg) {
    if ('seq' in msg && this.waiting.has(msg.seq)) {
      const { resolve, reject } = this.waiting.get(msg.seq);
      this.waiting.delete(msg.seq);
      if (msg.type === 'error') reject(new Error(msg.message));
      else resolve(msg);
    } else if ('run' in msg) {
      this.onReduction(msg);
    }
  }

  call(msg) {
    const seq = ++this.seq;
    return new Promise((resolve, reject) => {
      this.waiting.set(seq, { resolve, reject });
      this.worker.postMessage({ ...msg, seq });
    });
  }

  /** Parses text in the worker; resolves to the engine's parse report, or undefined when a
   *  later parse request superseded this one. */
  async parse(text, lang, wantTree, key = 'variant') {
    return (await this.call({ type: 'parse', key, text, lang, wantTree })).report;
  }

  async diff(a, b) {
    return (await this.call({ type: 'diff', a, b })).chunks;
  }

  post(msg) {
    this.worker.postMessage(msg);
  }

  /** Cancels run `run`. A worker busy in a run's own code (a generator that never returns)
   *  cannot hear that: if it says nothing within `graceMs`, it is replaced by a fresh one
   *  (the run's best so far is the page's already) and `onStuck` is called. */
  cancel(run, onStuck, graceMs = 3000) {
    const heard = this.heard;
    this.post({ type: 'cancel', run });
    setTimeout(() => {
      if (this.heard !== heard) return;
      this.worker.terminate();
      for (const { reject } of this.waiting.values()) reject(new Error('the engine worker was restarted'));
      this.waiting.clear();
      this.start();
      onStuck();
    }, graceMs);
  }
}
