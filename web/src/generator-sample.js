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
