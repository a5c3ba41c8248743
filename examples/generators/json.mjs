// JSON documents: objects and arrays nested a few levels, with strings, numbers, booleans and
// null. Every output parses as JSON (balanced brackets, commas only between members, quoted
// keys), which deleting characters would break: re-running the generator keeps it.
export const seed = 3;

const KEYS = ['id', 'name', 'tags', 'items', 'x', 'value', 'meta'];

export function generate(g) {
  // An object, else an array (each a selection, so either can go), else a scalar.
  const value = (depth) => {
    let v = null;
    if (depth < 4) {
      g.maybe('object', () => {
        const members = [];
        g.repeat('member', 0, 4, () => members.push(`${JSON.stringify(g.pick('key', KEYS))}: ${value(depth + 1)}`));
        v = `{${members.join(', ')}}`;
      });
      if (v === null) {
        g.maybe('array', () => {
          const items = [];
          g.repeat('item', 0, 4, () => items.push(value(depth + 1)));
          v = `[${items.join(', ')}]`;
        });
      }
    }
    return v ?? g.pick('scalar', ['0', '1', '42', 'true', 'false', 'null', '"a"', '"beta"']);
  };
  return `${value(0)}\n`;
}
