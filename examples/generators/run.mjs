#!/usr/bin/env node
// Runs a generator module under `whittle generate`:
//   whittle generate --generator 'node examples/generators/run.mjs examples/generators/password.mjs' ...
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { speak } from './client.mjs';

const file = process.argv[2];
if (!file) {
  process.stderr.write('usage: node run.mjs GENERATOR.mjs (a module exporting generate(g) and, optionally, seed)\n');
  process.exit(2);
}
const module = await import(pathToFileURL(resolve(file)).href);
if (typeof module.generate !== 'function') {
  process.stderr.write(`${file} exports no generate(g) function\n`);
  process.exit(2);
}
speak(module);
