// The generator the playground's generator mode opens with: a copy of
// examples/generators/password.mjs (tests/web/generator.test.mjs checks that they agree).
export const SAMPLE_GENERATOR = `// The password generator of the GReduce paper: a random line of letters, then that line
// twice. Its default seed makes "abc\\nabc\\n". Deleting parts of that output can never keep
// the two lines equal; re-running the generator with fewer iterations can.
export const seed = 482835;

const LETTERS = 'abcdefghijklmnopqrstuvwxyz'.split('');

export function generate(g) {
  let w = '';
  g.repeat('char', 0, 19, () => {
    w += g.pick('letter', LETTERS);
  });
  w += '\\n';
  return w + w;
}
`;

// What the password example is reduced for: no compiler, the output's two lines equal and
// holding a c (its default seed's output "abc\nabc\n" reduces to "c\nc\n").
export const SAMPLE_GENERATOR_SETUP = Object.freeze({
  endpoint: Object.freeze({ kind: 'none', base: '' }),
  property: Object.freeze({
    kind: 'regex',
    regex: '^(\\w*c\\w*)\\n\\1\\n$',
    streams: Object.freeze(['source']),
    negate: false,
    exitOf: 'compile',
    exitOp: 'any',
    exitValue: 0,
  }),
});
