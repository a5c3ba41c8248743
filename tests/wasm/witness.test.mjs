// The wasm engine's WitnessSearch (DiWi), driven from JavaScript as the playground's worker
// drives it: mutants of a failing C program, each tested by a fake compiler whose "bug" needs
// one comparison; every query handed out is reported (in rounds, out of order). Needs web/pkg
// (`npm run build`). Run: node --test tests/wasm/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import engine, { WITNESS_PROGRAM as PROGRAM } from './engine.mjs';


// The fake compiler: the bug shows while `c > 10` is there; it rejects a program that
// divides by a literal zero.
const fails = (text) => /c > 10/.test(text);
const rejects = (text) => /\/ 0\b/.test(text);

/** A fake compile's coverage: one statement per distinct line of the program, in two files. */
function coverageOf(text) {
  const cov = { 'tccgen.c': {}, 'tccpp.c': { next: [1, 2, 3] } };
  text.split('\n').forEach((line, i) => {
    if (line.trim()) cov['tccgen.c'][`f${i}`] = [[...line].reduce((h, ch) => (h * 31 + ch.charCodeAt(0)) % 100000, 7)];
  });
  return cov;
}

/** The worker's rule: failing if the property holds, else passing if it compiles, else
 *  rejected; coverage (or a trace) only for the original and passing mutants. */
function observe(query, { coverage = true, trace = false } = {}) {
  const outcome = fails(query.text) ? 'failing' : rejects(query.text) ? 'rejected' : 'passing';
  const obs = { outcome };
  if (query.original || outcome === 'passing') {
    if (coverage) obs.coverage = coverageOf(query.text);
    else if (trace) obs.trace = query.text;
  }
  return obs;
}

/** Runs a search to its end, `k` queries at a time, each batch reported in reverse. */
function search(config, k, how = {}) {
  const w = new engine.WitnessSearch({ lang: 'c', text: PROGRAM, ...config });
  const queries = [];
  for (let rounds = 0; !w.done(); rounds++) {
    assert.ok(rounds < 10000, 'the search ends');
    const batch = w.next(k);
    assert.ok(batch.length <= k, `next(${k}) gave ${batch.length}`);
    assert.ok(batch.length > 0 || w.done(), 'a search that is not done hands out queries once the round is in');
    queries.push(...batch);
    for (const q of [...batch].reverse()) {
      assert.ok(w.wants(q.id), 'every query handed out is awaited');
      w.report(q.id, observe(q, how));
      assert.ok(!w.wants(q.id));
    }
  }
  return { w, queries };
}

test('witnesses are mutants that do not fail, each with its changes and diff', () => {
  const { w, queries } = search({ budget: 60, seed: 1 }, 2);
  assert.equal(queries[0].text, PROGRAM, 'the first query is the failing program');
  assert.equal(queries[0].original, true);
  assert.ok(queries.slice(1).every((q) => !q.original && q.side === 'variant'));
  const s = w.stats();
  assert.equal(s.original, 'failing');
  assert.equal(s.done, true);
  assert.ok(s.queries <= 60 && s.queries === queries.length, JSON.stringify(s));
  assert.equal(s.budget, 60);
  const all = w.witnesses(0);
  assert.ok(all.length > 0, 'some witnesses');
  assert.equal(s.witnesses, all.length);
  all.forEach((x, i) => {
    assert.equal(x.index, i);
    assert.ok(!fails(x.text) && !rejects(x.text), `witness ${i} passes:\n${x.text}`);
    assert.ok(x.changes.length >= 1);
    for (const c of x.changes) {
      assert.equal(typeof c.rule, 'string');
      assert.equal(c.line, 5, 'only line 5 holds the bug');
      assert.notEqual(c.before, c.after);
    }
    assert.match(x.diff, /^--- failing\n\+\+\+ witness \d+\n/);
    assert.match(x.diff, /^-\s+if \(c > 10\)$/m);
    assert.ok(x.distance === null || (x.distance > 0 && x.distance <= 1), `distance ${x.distance}`);
    assert.ok(x.query === null || (Number.isInteger(x.query) && x.query > 0), `query ${x.query}`);
  });
  assert.deepEqual(w.witnesses(1), all.slice(1), 'witnesses(from) lists the later ones');
  assert.deepEqual(w.witnesses(all.length), []);
  assert.ok(w.rules().length > 0 && w.rules().every((r) => typeof r.rule === 'string'));
  assert.equal(w.original(), PROGRAM);
  w.free();
});

test('the same seed gives the same witnesses whatever the parallelism; another seed may not', () => {
  const texts = (k, seed = 7) => search({ budget: 50, seed }, k).w.witnesses(0).map((x) => x.text);
  const one = texts(1);
  assert.ok(one.length > 0);
  assert.deepEqual(texts(3), one);
  assert.deepEqual(texts(8), one);
});

test('with coverage the compiler is ranked (Ochiai); without, no ranking, traces still tell mutants apart', () => {
  const covered = search({ budget: 40 }, 4).w;
  const r = covered.ranking();
  assert.ok(r, 'a ranking');
  assert.ok(r.files.length > 0 && r.functions.length > 0);
  assert.deepEqual(r.files.map((f) => f.name).sort(), ['tccgen.c', 'tccpp.c']);
  for (const x of [...r.files, ...r.functions]) {
    assert.ok(x.score >= 0 && x.score <= 1, JSON.stringify(x));
    assert.ok(x.statements > 0);
  }
  const scores = r.functions.map((f) => f.score);
  assert.deepEqual(scores, [...scores].sort((a, b) => b - a), 'most suspicious first');
  // The line only the failing program has is the most suspicious function.
  const only = `tccgen.c:f4`;
  assert.equal(r.functions[0].score, 1);
  assert.ok(r.functions.filter((f) => f.score === 1).some((f) => f.name === only), JSON.stringify(r.functions.slice(0, 3)));

  const traced = search({ budget: 40 }, 4, { coverage: false, trace: true }).w;
  assert.equal(traced.ranking(), null, 'no coverage, no ranking');
  assert.ok(traced.witnesses(0).length > 0);
  assert.ok(traced.witnesses(0).every((x) => typeof x.distance === 'number'));
});

test('want stops once a witness is found (the automatic seed of pair mode)', () => {
  const all = search({ budget: 200 }, 4).w;
  const { w } = search({ budget: 200, want: 1 }, 4);
  // The round that found it is applied whole: it may hold more than one.
  assert.ok(w.witnesses(0).length >= 1);
  assert.equal(w.witnesses(0)[0].text, all.witnesses(0)[0].text, 'the same first witness');
  assert.ok(w.stats().queries < all.stats().queries, `${w.stats().queries} queries, not ${all.stats().queries}`);
});

test('focus: mutations drawn mostly near the lines the compiler pointed at', () => {
  // Line 5 holds the bug; a focus there finds witnesses, a focus far away (or none) is harmless.
  const run = (lines) => {
    const w = new engine.WitnessSearch({ lang: 'c', text: PROGRAM, budget: 40, rng_seed: 3 });
    const [q] = w.next(4);
    w.focus(lines);
    w.report(q.id, observe(q));
    const mutated = [];
    while (!w.done()) {
      const batch = w.next(4);
      for (const m of batch) {
        mutated.push(m.text.split('\n').findIndex((l, i) => l !== PROGRAM.split('\n')[i]) + 1);
        w.report(m.id, observe(m));
      }
    }
    return { w, mutated };
  };
  const near = run([5]);
  assert.ok(near.w.witnesses(0).length > 0);
  const close = near.mutated.filter((line) => Math.abs(line - 5) <= 3).length;
  assert.ok(close > near.mutated.length / 2, `most mutations near line 5: ${near.mutated.join(' ')}`);
  assert.ok(run([]).w.stats().queries > 0);
  assert.ok(run([999]).w.stats().queries > 0);
  // focusOn reads the lines from the compiler's messages: a rare message's line weighs most.
  const w = new engine.WitnessSearch({ lang: 'c', text: PROGRAM, budget: 40, rng_seed: 3 });
  const output = '<source>:5:3: warning: only once [-Wrare]\n<source>:1:1: warning: x [-Wcommon]\n<source>:2:1: warning: y [-Wcommon]\nother.c:5:1: warning: z [-Wrare]\n';
  assert.equal(w.focusOn(output, '<source>'), 3);
  // With what the bug is about, only its messages count.
  assert.equal(w.focusOn(output, '<source>', (m) => /only once/.test(m)), 1);
  assert.equal(w.focusOn(output, '<source>', () => { throw new Error('a broken filter'); }), 3, 'a throw is no match');
  // An observation's `about`: the messages the bug is about, with their notes.
  const report = '<source>:5:3: warning: only once [-Wrare]\n  5 | x = y ? 1 : 2;\n<source>:4:1: note: here\n<source>:1:1: warning: x [-Wcommon]\n';
  assert.equal(engine.WitnessSearch.messagesAbout(report, (m) => /only once/.test(m)),
    '<source>:5:3: warning: only once [-Wrare]\n  5 | x = y ? 1 : 2;\n<source>:4:1: note: here\n');
  const [q] = w.next(1);
  w.report(q.id, { outcome: 'failing', trace: report, about: '<source>:5:3: warning: only once [-Wrare]\n' });
});

test('an original that does not fail ends the search at once, and says so', () => {
  const w = new engine.WitnessSearch({ lang: 'c', text: PROGRAM.replace('c > 10', 'c >= 10') });
  const [q] = w.next(4);
  assert.equal(q.original, true);
  assert.deepEqual(w.next(4), [], 'nothing before the original’s verdict');
  w.report(q.id, { outcome: 'passing', coverage: null });
  assert.equal(w.done(), true);
  assert.equal(w.stats().original, 'passing');
  assert.deepEqual(w.witnesses(0), []);
});

test('WitnessSearch says what is wrong with its input', () => {
  assert.throws(() => new engine.WitnessSearch({ lang: 'c', text: 'int main( {' }), /the program does not parse as c \(.*line 1.*\); fix it/);
  assert.throws(() => new engine.WitnessSearch({ lang: 'c', text: PROGRAM, selection: 'best' }), /unknown selection `best`: use mh or random/);
  assert.throws(() => new engine.WitnessSearch({ lang: 'c', text: PROGRAM, keep: 'some' }), /unknown keep `some`: use diverse or all/);
  assert.throws(() => new engine.WitnessSearch({ lang: 'c' }), /bad witness search config: missing field `text`/);
  const w = new engine.WitnessSearch({ lang: 'c', text: PROGRAM });
  const [q] = w.next(1);
  assert.throws(() => w.report(q.id, { outcome: 'fine' }), /unknown outcome `fine`: use failing, passing or rejected/);
  assert.throws(() => w.report(q.id, { outcome: 'failing', coverage: { 'a.c': { f: ['x'] } } }), /bad observation/);
  w.report(q.id, { outcome: 'failing' });
  assert.ok(w.next(4).length > 0, 'a good report after bad ones goes through');
});
