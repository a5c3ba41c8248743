// The JavaScript client of whittle's generator protocol (docs/generator-protocol.md).
//
// A generator module exports `generate(g)`, which makes its output from g's decisions and
// returns it, and optionally `seed`, its default seed:
//
//   export const seed = 7;
//   export function generate(g) {
//     let s = '';
//     g.repeat('item', 0, 5, () => { s += g.pick('letter', ['a', 'b']); });
//     if (g.maybe('tail', () => { s += '!'; })) s += '?';
//     return s + '\n';
//   }
//
// `speak(module)` runs it under `whittle generate`, asking whittle for every decision over
// stdin/stdout (synchronously). The page runs the same module in its worker with another `g`.
import { readSync } from 'node:fs';

/** A `g` whose decisions come from `ask(request) -> answer line`. */
export class ProtocolDecisions {
  constructor(ask) {
    this.ask = ask;
  }

  int(label, lo, hi) {
    return Number(this.ask(`int ${word(label)} ${lo} ${hi}`));
  }

  pick(label, list) {
    if (!Array.isArray(list) || list.length === 0) throw new Error(`pick ${label}: a non-empty list, please`);
    const keys = names(list);
    return list[Number(this.ask(`pick ${word(label)} ${list.length}${keys ? ` ${JSON.stringify(keys)}` : ''}`))];
  }

  /** A number for a new name, which a reduced run keeps (deleting one variable renames no other). */
  fresh(label) {
    return Number(this.ask(`fresh ${word(label)}`));
  }

  repeat(label, min, max, body) {
    const n = Number(this.ask(`loop ${word(label)} ${min} ${max}`));
    for (let i = 0; i < n; i++) {
      this.ask('iter');
      body(i);
    }
    this.ask('end');
    return n;
  }

  maybe(label, body) {
    return this.selection('maybe', label, body);
  }

  /** A part of the output: in every free run (no draw), and a reduced run may drop it. */
  part(label, body) {
    return this.selection('part', label, body);
  }

  selection(verb, label, body) {
    const taken = this.ask(`${verb} ${word(label)}`) === '1';
    if (taken) {
      body();
      this.ask('end');
    }
    return taken;
  }
}

/**
 * The names of a pick's choices, when each has one and they are distinct: a string, or a
 * `name` of an object or function. A reduced run picks by name (deleting an earlier choice
 * moves the later ones); otherwise by index.
 */
export function names(list) {
  const keys = list.map((x) => (typeof x === 'string' ? x : typeof x?.name === 'string' && x.name !== '' ? x.name : null));
  return keys.every((k) => k !== null) && new Set(keys).size === keys.length ? keys : null;
}

/** Labels are one word: spaces would split the request. */
function word(label) {
  const s = String(label);
  if (!/^\S+$/.test(s)) throw new Error(`a label is one word without spaces, not ${JSON.stringify(s)}`);
  return s;
}

/** Reads stdin one line at a time, synchronously (the generator asks and waits). */
function lineReader() {
  let buffered = '';
  const chunk = Buffer.alloc(65536);
  return () => {
    for (;;) {
      const nl = buffered.indexOf('\n');
      if (nl >= 0) {
        const line = buffered.slice(0, nl);
        buffered = buffered.slice(nl + 1);
        return line;
      }
      let n;
      try {
        n = readSync(0, chunk, 0, chunk.length, null);
      } catch (e) {
        if (e.code !== 'EAGAIN') throw e;
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // a non-blocking pipe: wait 1 ms
        continue;
      }
      if (n === 0) return null; // whittle closed the pipe
      buffered += chunk.toString('utf8', 0, n);
    }
  };
}

/** Runs `module.generate`, asking whittle for each decision on stdout and reading stdin. */
export function speak(module) {
  const read = lineReader();
  const ask = (request) => {
    process.stdout.write(`${request}\n`);
    const answer = read();
    if (answer === null || answer === 'halt') process.exit(0); // whittle is done with this run
    return answer;
  };
  ask(`hello ${module.seed ?? 0}`);
  // One process, many runs: `done again` keeps it for whittle's next run (`again`), which
  // saves a process start per candidate; `generate` must depend on g's answers alone.
  for (;;) {
    const output = module.generate(new ProtocolDecisions(ask));
    ask(`out ${JSON.stringify(String(output))}`);
    ask('done again');
  }
}
