// The playground's page state (web/src/state.js) in node, without a DOM: defaults, the
// transitions the page makes, what a permalink carries and brings back, a reduction run's
// lifecycle. Run: node --test tests/web/
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as S from '../../web/src/state.js';
import { decodeState, encodeState } from '../../web/src/permalink.js';
import { embedUrl, isEmbed, playgroundUrl } from '../../web/src/share.js';

const PROGRAM = 'int main(void) { return 0; }\n';

/** A finished run of `state` with recorded verdicts, as the worker's messages make it. */
function finishedRun(state, { verdicts = '1101', previous = null } = {}) {
  let run = S.startRun(state, previous, { lang: 'c' });
  const stats = { tokens_before: 10, tokens_now: 4, queries: 4, cache_hits: 0, pass: 'perses', accepted: 2 };
  run = S.runMessage(run, { type: 'finished', run: run.id, state: 'done', best: 'int main(void){}', stats, verdicts, history: [] });
  return run;
}

test('the default state: one program (the variant side), its property, a seed for pair mode', () => {
  const s = S.defaultState();
  assert.equal(s.mode, 'single');
  assert.equal(typeof s.variant, 'string');
  assert.ok(s.variant.length > 0);
  assert.ok(!('program' in s), 'the program side is called variant');
  assert.notEqual(s.seed, s.variant);
  assert.equal(s.seedProperty.negate, !s.property.negate, "the seed's property is the variant's, negated");
  assert.equal(s.settings.k, S.defaultK('whittle'));
  assert.deepEqual(S.sidesOf(s), ['variant']);
  // A fresh copy each time: changing one does not change the next.
  s.property.regex = 'changed';
  assert.notEqual(S.defaultState().property.regex, 'changed');
});

test('switching to pair mode adds the seed side and names the sides', () => {
  const single = S.defaultState();
  const pair = S.setMode(single, 'pair');
  assert.equal(single.mode, 'single', 'transitions do not change their input');
  assert.deepEqual(S.sidesOf(pair), ['variant', 'seed']);
  assert.equal(S.sideName(single, 'variant'), 'program');
  assert.equal(S.sideName(pair, 'variant'), 'variant');
  assert.equal(S.textOf(pair, 'seed'), pair.seed);
  assert.equal(S.propertyOf(pair, 'seed'), pair.seedProperty);
  assert.notEqual(S.runKey(single), S.runKey(pair));
});

test('setText and setProperty change one side only', () => {
  const s = S.setMode(S.defaultState(), 'pair');
  const t = S.setText(s, 'seed', PROGRAM);
  assert.equal(t.seed, PROGRAM);
  assert.equal(t.variant, s.variant);
  const u = S.setText(t, 'variant', 'int x;\n');
  assert.equal(u.variant, 'int x;\n');
  assert.equal(u.seed, PROGRAM);
  const js = { kind: 'js', js: '() => true' };
  const v = S.setProperty(u, 'seed', js);
  assert.deepEqual(v.seedProperty, js);
  assert.equal(v.property, u.property);
  assert.ok(S.usesJs(v), 'a pair uses the seed property');
  assert.ok(!S.usesJs(S.setMode(v, 'single')), 'one program does not');
});

test("the form's values: the shown side's property, and k following the endpoint while it is the default", () => {
  const s = S.setMode(S.defaultState(), 'pair');
  const form = {
    mode: 'pair', lang: 'c', strategy: 'hdd', endpoint: { kind: 'ce', base: '' }, compiler: '', flags: '-O1',
    execute: false, property: { ...s.seedProperty, regex: 'error' }, settings: { ...s.settings },
  };
  const t = S.applyForm(s, form, 'seed');
  assert.equal(t.seedProperty.regex, 'error');
  assert.equal(t.property.regex, s.property.regex);
  assert.equal(t.strategy, 'hdd');
  assert.equal(S.applyForm(s, { ...form, skipPasses: 'rename, types' }, 'seed').skipPasses, 'rename, types');
  assert.equal(S.reduceConfig(S.applyForm(s, { ...form, skipPasses: 'rename' }, 'seed'), 'c').skipPasses, 'rename');
  assert.equal(S.withDefaults({}).skipPasses, '', 'an older link skips nothing');
  assert.equal(t.settings.k, S.defaultK('ce'), 'k follows the endpoint');
  assert.equal(t.compiler, s.compiler, 'an empty compiler list keeps the chosen compiler');
  // A k the person chose stays when the endpoint changes.
  const own = S.setSettings(s, { k: 7 });
  assert.equal(S.applyForm(own, { ...form, settings: { ...own.settings } }, 'variant').settings.k, 7);
});

test('a text edit invalidates a finished run: its verdicts are no longer shared', () => {
  const state = S.setText(S.defaultState(), 'variant', PROGRAM);
  const run = finishedRun(state);
  assert.equal(S.shareableState(state, { run, engineId: 'abc' }).verdicts, '1101');
  assert.equal(S.shareableState(state, { run, engineId: 'abc' }).engine, 'abc');
  const edited = S.setText(state, 'variant', `${PROGRAM}// more\n`);
  const shared = S.shareableState(edited, { run });
  assert.ok(!('verdicts' in shared), 'the run was of another text');
  // Settings that do not change the candidates keep the run.
  assert.equal(S.shareableState(S.setSettings(state, { timeoutS: 5 }), { run }).verdicts, '1101');
  // Unless the person chose not to share verdicts.
  assert.ok(!('verdicts' in S.shareableState(S.setSettings(state, { shareVerdicts: false }), { run })));
});

test("a link's recording applies until an edit changes what it reduced", () => {
  const state = S.defaultState();
  const link = { verdicts: '011', engine: 'e1' };
  assert.equal(S.linkAfterEdit(link, state, S.setSettings(state, { k: 5 })), link);
  assert.equal(S.linkAfterEdit(link, state, S.setText(state, 'variant', PROGRAM)), null);
  assert.equal(S.linkAfterEdit(link, state, { ...state, strategy: 'hdd' }), null);
  assert.equal(S.linkAfterEdit(link, state, { ...state, skipPasses: 'rename' }), null, 'skipped passes change the run');
  assert.equal(S.linkAfterEdit(link, state, S.setMode(state, 'pair')), null);
  const shared = S.shareableState(state, { link });
  assert.equal(shared.verdicts, '011');
  assert.equal(shared.engine, 'e1');
});

test('the shareable state leaves out the unused seed side', () => {
  const single = S.shareableState(S.defaultState());
  assert.ok(!('seed' in single) && !('seedProperty' in single));
  assert.ok(!('verdicts' in single), 'no run, no link: no verdicts');
  const pair = S.shareableState(S.setMode(S.defaultState(), 'pair'));
  assert.equal(typeof pair.seed, 'string');
  assert.equal(pair.seedProperty.negate, true);
});

test('a permalink round-trips the shareable state with its recording', async () => {
  const state = S.setText(S.setMode(S.defaultState(), 'pair'), 'variant', PROGRAM);
  const hash = await encodeState(S.shareableState(state, { run: finishedRun(state), engineId: 'e2' }));
  assert.match(hash, /^#v1,[A-Za-z0-9_-]+$/);
  const opened = S.fromLink(await decodeState(hash));
  assert.deepEqual(opened.state, state);
  assert.deepEqual(opened.link, { verdicts: '1101', engine: 'e2' });
});

test('an old link whose JSON says `program` opens with that text as the variant', async () => {
  const old = {
    mode: 'single', lang: 'c', program: PROGRAM, strategy: 'perses',
    endpoint: { kind: 'none', base: '' }, compiler: '', flags: '', execute: false,
    property: { kind: 'js', js: '() => true' }, settings: { k: 1, timeoutS: 10, shareVerdicts: true },
    verdicts: '10', engine: 'old',
  };
  const opened = S.fromLink(await decodeState(await encodeState(old)));
  assert.equal(opened.state.variant, PROGRAM);
  assert.ok(!('program' in opened.state));
  assert.ok(!('verdicts' in opened.state) && !('engine' in opened.state), 'the recording is not state');
  assert.deepEqual(opened.link, { verdicts: '10', engine: 'old' });
  // Fields the old link lacks come from the defaults.
  assert.equal(opened.state.property.kind, 'js');
  assert.equal(opened.state.property.exitOp, S.DEFAULT_PROPERTY.exitOp);
  assert.equal(opened.state.seedProperty.kind, 'js');
  assert.equal(opened.state.seed, S.defaultState().seed);
  assert.ok(S.usesJs(opened.state));
  // A link without a recording asks for none.
  const { verdicts, engine, ...plain } = old;
  assert.equal(S.fromLink(plain).link, null);
});

test('a saved state from local storage is migrated the same way', () => {
  const saved = { mode: 'pair', program: PROGRAM, seed: 'int y;\n', settings: { k: 3 } };
  const s = S.withDefaults(saved);
  assert.equal(s.variant, PROGRAM);
  assert.equal(s.seed, 'int y;\n');
  assert.equal(s.settings.k, 3);
  assert.equal(s.settings.timeoutS, S.defaultState().settings.timeoutS);
  assert.equal(saved.program, PROGRAM, 'the saved object itself is left alone');
  // A state already using `variant` wins over a stray `program`.
  assert.equal(S.withDefaults({ variant: 'a', program: 'b' }).variant, 'a');
});

test('what blocks a reduction', () => {
  const state = S.setMode(S.defaultState(), 'pair');
  const ok = { ok: true, lang: 'c' };
  assert.match(S.syntaxBlocker(state, { variant: ok, seed: null }), /still loading/);
  // One program and a pair are reduced tolerantly; a witness search needs a whole tree.
  assert.equal(S.syntaxBlocker(state, { variant: ok, seed: { ok: false } }), null);
  assert.equal(S.syntaxBlocker(S.setMode(state, 'single'), { variant: { ok: false } }), null);
  assert.match(S.syntaxBlocker(S.setMode(state, 'witness'), { variant: { ok: false } }), /the program does not parse/);
  assert.equal(S.syntaxBlocker(S.setMode(state, 'single'), { variant: ok, seed: { ok: false } }), null);
  const reports = { variant: ok, seed: ok };
  assert.match(S.blocker(state, { reports, jsTrusted: true }), /choose a compiler/);
  const js = S.setProperty({ ...state, compiler: 'gcc' }, 'variant', { kind: 'js', js: '() => true' });
  assert.match(S.blocker(js, { reports, jsTrusted: false }), /has not been allowed/);
  assert.equal(S.blocker(js, { reports, jsTrusted: true }), null);
  // Wrong code: one program or a generator, over an endpoint; not a pair or a witness search.
  const wrong = S.setProperty({ ...state, compiler: 'gcc' }, 'variant', { ...state.property, kind: 'wrong-code', wrongCode: { compiler: 'gcc', flags: '-O2', guard: false } });
  const single = { variant: ok };
  assert.equal(S.blocker(S.setMode(wrong, 'single'), { reports: single, jsTrusted: true }), null);
  assert.equal(S.blocker(S.setMode(wrong, 'generator'), { reports: single, jsTrusted: true }), null);
  assert.match(S.blocker(wrong, { reports, jsTrusted: true }), /wrong-code property is for one program or a generator/);
  assert.match(S.blocker(S.setMode(wrong, 'witness'), { reports: single, jsTrusted: true }), /wrong-code property is for one program or a generator/);
});

test("the worker's config: the variant's text and property, and the seed's in pair mode", () => {
  const single = { ...S.setText(S.defaultState(), 'variant', PROGRAM), compiler: 'gcc' };
  const c = S.reduceConfig(single, 'c');
  assert.equal(c.variant, PROGRAM);
  assert.equal(c.seed, undefined);
  assert.equal(c.seedProperty, undefined);
  // No timeout set: adaptive, with a minute for what comes before the original's answer.
  assert.deepEqual([c.timeoutMs, c.adaptive], [60000, true]);
  const fixed = S.reduceConfig(S.setSettings(single, { timeoutS: 5 }), 'c');
  assert.deepEqual([fixed.timeoutMs, fixed.adaptive], [5000, false]);
  const pair = S.setMode(single, 'pair');
  const p = S.reduceConfig(pair, 'c');
  assert.equal(p.seed, pair.seed);
  assert.equal(p.seedProperty.negate, true);
  assert.equal(p.property.negate, false);
  // Checking one side tests that side's property.
  assert.equal(S.testConfig(pair, 'seed').property.negate, true);
  // A JavaScript property sends only its code.
  const js = S.reduceConfig(S.setProperty(single, 'variant', { kind: 'js', js: 'f', regex: 'r' }), 'c');
  assert.deepEqual(js.property, { kind: 'js', js: 'f' });
});

test('a run: started, progress, original answers, paused, finished', () => {
  const state = S.setMode(S.defaultState(), 'pair');
  const previous = finishedRun(state);
  let run = S.startRun(state, previous, { lang: 'c' });
  assert.equal(run.id, previous.id + 1);
  assert.equal(run.state, 'running');
  assert.ok(S.isActive(run));
  assert.ok(run.pair);
  assert.deepEqual(run.original, { variant: state.variant, seed: state.seed });
  assert.equal(run.key, S.runKey(state));

  // Messages of another run change nothing.
  assert.equal(S.runMessage(run, { type: 'state', run: previous.id, state: 'paused' }), run);

  const stats = { tokens_before: 50, tokens_now: 30, queries: 3 };
  const best = { seed: 'a', variant: 'b', diff: '-a\n+b\n', diff_tokens: 2 };
  const quiet = S.runMessage(run, { type: 'progress', run: run.id, stats });
  assert.equal(quiet.best, null, 'progress without a new best keeps the best');
  run = S.runMessage(run, { type: 'progress', run: run.id, stats, best });
  assert.deepEqual(run.best, best);
  assert.equal(run.stats, stats);

  run = S.runMessage(run, { type: 'original', run: run.id, side: 'variant', result: { code: 0 } });
  run = S.runMessage(run, { type: 'original', run: run.id, side: 'seed', result: { code: 1 } });
  assert.deepEqual(run.outputs, { variant: { code: 0 }, seed: { code: 1 } });

  run = S.runMessage(run, { type: 'state', run: run.id, state: 'paused', message: 'cannot reach' });
  assert.equal(run.state, 'paused');
  assert.ok(S.isActive(run));

  const failed = S.runMessage(run, { type: 'finished', run: run.id, state: 'failed', message: 'no' });
  assert.equal(failed.state, 'failed');
  assert.deepEqual(failed.best, best, 'a failure without stats keeps the best so far');
  assert.ok(!S.isActive(failed));

  const endStats = { ...stats, tokens_now: 20, queries: 9, cache_hits: 1, pass: 'done' };
  const done = S.runMessage(run, { type: 'finished', run: run.id, state: 'done', best, stats: endStats, verdicts: '10110', history: [] });
  assert.equal(done.state, 'done');
  assert.equal(done.verdicts, '10110');
  assert.equal(S.shareableState(state, { run: done }).verdicts, '10110');
});

test('a saved best result is restored as a run that replays nothing', () => {
  const state = S.setText(S.defaultState(), 'variant', PROGRAM);
  const run = finishedRun(state);
  const record = S.bestRecord(run, true, '2024-01-01T00:00:00.000Z');
  assert.equal(record.original, PROGRAM);
  assert.equal(record.mode, 'single');
  assert.deepEqual(Object.keys(record.stats).sort(), ['queries', 'tokens_before', 'tokens_now'], 'only sizes and query counts are kept');
  const restored = S.restoredRun(JSON.parse(JSON.stringify(record)));
  assert.equal(restored.state, 'restored');
  assert.equal(restored.best, run.best);
  assert.equal(restored.original.variant, PROGRAM);
  assert.ok(restored.finished);
  assert.ok(!S.isActive(restored));
  assert.ok(!('verdicts' in S.shareableState(state, { run: restored })), 'a restored run has no verdicts to share');
  assert.equal(S.startRun(state, restored, { lang: 'c' }).id, 1);
  assert.equal(S.restoredRun(null), null);
  assert.equal(S.restoredRun({ best: 'x' }), null, 'a record without stats is unusable');
});

test('share and embed addresses', () => {
  const at = (href) => new URL(href);
  assert.ok(isEmbed(at('http://h/e')));
  assert.ok(isEmbed(at('http://h/app/e/')));
  assert.ok(isEmbed(at('http://h/?embed=1')));
  assert.ok(!isEmbed(at('http://h/')));
  assert.equal(playgroundUrl(at('http://h/e'), '#v1,x'), 'http://h/#v1,x');
  assert.equal(playgroundUrl(at('http://h/'), '#v1,x'), 'http://h/#v1,x');
  assert.equal(embedUrl(at('http://h/'), '#v1,x'), 'http://h/e#v1,x');
  assert.equal(embedUrl(at('http://h/e'), '#v1,x'), 'http://h/e#v1,x');
});

test('files beside the program: a link keeps plain ones, drops the rest, and every compile gets them', () => {
  const files = [
    { filename: 'util.h', contents: '#define N 1\n' },
    { filename: 'src/lib.rs', contents: 'pub fn f() {}\n' },
    { filename: '../up.h', contents: 'x' },
    { filename: '.hidden', contents: 'x' },
    { filename: 'example.c', contents: 'the program itself' },
    { filename: 'util.h', contents: 'twice' },
    { filename: 'n.h', contents: 3 },
    'not a file',
  ];
  const s = S.withDefaults({ variant: 'int x;', files });
  assert.deepEqual(s.files, files.slice(0, 2));
  assert.deepEqual(S.withDefaults({ files: 'no list' }).files, []);
  assert.deepEqual(S.testConfig(s).files, s.files);
  assert.deepEqual(S.reduceConfig(s, 'c').files, s.files);
  // A recorded reduction of the program alone does not replay with other files.
  assert.notEqual(S.runKey(s), S.runKey(S.setFiles(s, [])));
  assert.equal(S.runKey(S.setFiles(s, [])), S.runKey(S.withDefaults({ variant: 'int x;' })));
  // A generator's output is one file.
  assert.deepEqual(S.testConfig({ ...s, mode: 'generator' }).files, []);
});
