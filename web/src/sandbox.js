// The engine's sandbox, in a frame the page makes with sandbox="allow-scripts" (web/sandbox.html):
// an opaque origin, served with a CSP of connect-src 'none', so code here can compute but can
// neither fetch, nor read the page or this site's storage, nor send this site's cookies. It
// holds the engine worker (worker.js, bundled as dist/engine-worker.js), where users'
// JavaScript runs: generators and JavaScript properties. This script only relays: messages
// from the page go to the worker, the worker's go to the page. The page does every compile.
//
// From the page: {type: 'boot', wasm} (the engine's bytes: this frame cannot fetch them; again
// with the full build's bytes when a program needs a grammar the first build lacks),
// {type: 'restart'} (a worker stuck in users' code), {type: 'ping'} (say sandbox-ready again),
// anything else for the worker.
(() => {
  const WORKER_URL = new URL('dist/engine-worker.js', location.href).href;
  const BOOT_URL = URL.createObjectURL(new Blob([`importScripts(${JSON.stringify(WORKER_URL)});`], { type: 'text/javascript' }));
  let wasm = null;
  let worker = null;
  const early = []; // messages that came before the engine's bytes

  function spawn() {
    // A worker's script must be this frame's own (an opaque origin's): a Blob that loads the
    // bundle. A Blob worker keeps this document's CSP.
    worker = new Worker(BOOT_URL);
    worker.onmessage = (e) => parent.postMessage(e.data, '*');
    worker.onerror = (e) => {
      e.preventDefault();
      parent.postMessage({ type: 'fatal', message: `the engine worker failed: ${e.message || 'see the console'}` }, '*');
    };
  }

  // The worker loads its script while the page is still fetching the engine's bytes.
  spawn();

  addEventListener('message', (e) => {
    if (e.source !== parent) return; // only the page that framed us
    const msg = e.data;
    if (msg?.type === 'ping') {
      parent.postMessage({ type: 'sandbox-ready' }, '*'); // the page came after our hello
    } else if (msg?.type === 'boot') {
      if (wasm) {
        worker.terminate(); // another build: a fresh worker for it
        spawn();
      }
      wasm = msg.wasm;
      worker.postMessage({ type: 'boot', wasm });
      for (const m of early.splice(0)) worker.postMessage(m);
    } else if (msg?.type === 'restart') {
      if (!wasm) return; // not booted yet: nothing is stuck
      worker.terminate();
      spawn();
      worker.postMessage({ type: 'boot', wasm });
    } else if (wasm) {
      worker.postMessage(msg);
    } else {
      early.push(msg);
    }
  });
  parent.postMessage({ type: 'sandbox-ready' }, '*');
})();
