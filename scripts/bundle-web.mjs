// Bundles the playground's JavaScript with esbuild: web/src/{main,worker}.js -> web/dist/
// (ESM, minified, with source maps). The engine's wasm-bindgen glue (web/pkg/whittle.js) stays a
// separate file: the worker imports it at run time and it fetches whittle_bg.wasm next to itself.
//
//   node scripts/bundle-web.mjs           build once, print sizes (raw and gzipped)
//   node scripts/bundle-web.mjs --watch   rebuild on change
import * as esbuild from 'esbuild';
import { readFileSync, rmSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
process.chdir(root);

// Keep the import of the wasm-bindgen glue as is (relative to web/dist it is the same path).
const engineIsExternal = {
  name: 'engine-is-external',
  setup(build) {
    build.onResolve({ filter: /\/pkg\/whittle\.js$/ }, (args) => ({ path: args.path, external: true }));
  },
};

const options = {
  entryPoints: ['web/src/main.js', 'web/src/worker.js'],
  outdir: 'web/dist',
  bundle: true,
  format: 'esm',
  splitting: true, // the editor's language grammars load on demand
  chunkNames: 'chunks/[name]-[hash]',
  minify: true,
  sourcemap: true,
  target: ['es2022', 'chrome110', 'firefox115', 'safari16'],
  plugins: [engineIsExternal],
  metafile: true,
  logLevel: 'warning',
};

if (process.argv.includes('--watch')) {
  const ctx = await esbuild.context({ ...options, logLevel: 'info' });
  await ctx.watch();
} else {
  rmSync('web/dist', { recursive: true, force: true }); // no stale chunks
  const result = await esbuild.build(options);
  for (const file of Object.keys(result.metafile.outputs).filter((f) => f.endsWith('.js'))) {
    const bytes = readFileSync(file);
    const kb = (n) => `${(n / 1024).toFixed(1)} KiB`;
    console.log(`bundle: ${relative(root, file)}: ${kb(bytes.length)}, ${kb(gzipSync(bytes, { level: 9 }).length)} gzipped`);
  }
}
