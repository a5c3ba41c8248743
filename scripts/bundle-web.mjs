// Bundles the playground's JavaScript with esbuild (minified, with source maps):
//   web/src/main.js -> web/dist/main.js (ESM, split: the editor's grammars load on demand);
//   web/src/sandbox.js -> web/dist/sandbox.js and web/src/worker.js -> web/dist/engine-worker.js,
//     classic scripts, since they run in the sandbox frame (web/sandbox.html), an opaque origin
//     that may load scripts but not import modules from this site. The engine worker includes
//     the wasm-bindgen glue (web/pkg/whittle.js); the page hands it the wasm's bytes.
//
//   node scripts/bundle-web.mjs           build once, print sizes (raw and gzipped)
//   node scripts/bundle-web.mjs --watch   rebuild on change
import * as esbuild from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

const common = {
  bundle: true,
  minify: true,
  sourcemap: true,
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  metafile: true,
  logLevel: 'warning',
};

// The engine's build, for permalinks (engine-client.js): a hash of both wasm builds' bytes.
const hash = createHash('sha256');
for (const build of ['web/pkg/whittle_core_bg.wasm', 'web/pkg/whittle_bg.wasm']) {
  if (existsSync(build)) hash.update(readFileSync(build));
}
const engineId = hash.digest('hex').slice(0, 12);

const page = {
  ...common,
  define: { 'globalThis.__ENGINE_ID__': JSON.stringify(engineId) },
  entryPoints: ['web/src/main.js', 'web/src/engine-boot.js'],
  outdir: 'web/dist',
  format: 'esm',
  splitting: true, // the editor's language grammars load on demand
  chunkNames: 'chunks/[name]-[hash]',
};

const sandbox = {
  ...common,
  entryPoints: { sandbox: 'web/src/sandbox.js', 'engine-worker': 'web/src/worker.js' },
  outdir: 'web/dist',
  format: 'iife',
  // The glue's default wasm URL (import.meta.url) is never used: the bytes are passed in.
  define: { 'import.meta.url': '"about:blank"' },
};

if (process.argv.includes('--watch')) {
  for (const options of [page, sandbox]) await (await esbuild.context({ ...options, logLevel: 'info' })).watch();
} else {
  rmSync('web/dist', { recursive: true, force: true }); // no stale chunks
  const results = await Promise.all([page, sandbox].map((options) => esbuild.build(options)));
  const outputs = results.flatMap((r) => Object.keys(r.metafile.outputs));
  for (const file of outputs.filter((f) => f.endsWith('.js'))) {
    const bytes = readFileSync(file);
    const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(`bundle: ${relative(root, file)}: ${kb(bytes.length)}, ${kb(gzipSync(bytes, { level: 9 }).length)} gzipped`);
  }
}
