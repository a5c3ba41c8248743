// The page's side of the engine worker: request/answer calls (parse, diff) and a stream of
// reduction events. Only the latest answer of each kind matters to the page, so each call
// supersedes the previous one of the same kind.

export class EngineClient {
  constructor() {
    this.worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    this.seq = 0;
    this.waiting = new Map(); // seq -> {resolve, reject}
    this.onReduction = () => {};
    this.ready = new Promise((resolve, reject) => {
      this.worker.onmessage = (e) => {
        const msg = e.data;
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
}
