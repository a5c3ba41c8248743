// Placeholder until the engine's Reducer lands.
export class Reduction {
  constructor(engine, msg, post) { this.run = msg.run; this.post = post; }
  start() { this.post({ type: 'failed', run: this.run, message: 'the engine has no Reducer yet' }); }
  pause() {} resume() {} cancel() {}
}
