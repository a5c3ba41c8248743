// @ts-check
// The engine's boot, as its own small entry point: index.html loads it beside the page's
// bundle, so the engine's worker gets its bytes as soon as they arrive, not once the page's
// larger modules (the editors) have loaded. main.js takes this client over.
import { EngineClient } from './engine-client.js';

/** @type {any} */ (globalThis).whittleEngine = new EngineClient();
