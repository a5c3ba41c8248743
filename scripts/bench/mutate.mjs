// Mutations of a program's text, as PPR's benchmark made its pairs: a constant or an operator
// changed, a statement deleted or duplicated; and a name used for another one in view (a
// parameter used, a signed variable for an unsigned one). The lexer is rough on purpose (C,
// C++, Rust and JavaScript alike): a mutation is kept only once the compiler accepts it.

export { random } from '../random.mjs';

/** Operators swapped for one another; the longest first, so `<=` is never read as `<`. */
const SWAPS = {
  '===': '!==', '!==': '===', '<<=': '>>=', '>>=': '<<=', '<=': '>=', '>=': '<=', '==': '!=', '!=': '==', '&&': '||',
  '||': '&&', '++': '--', '--': '++', '+=': '-=', '-=': '+=', '<<': '>>', '>>': '<<',
  '+': '-', '-': '+', '*': '/', '/': '*', '%': '*', '<': '>', '>': '<', '&': '|', '|': '^',
  '^': '&', '!': '~', '~': '!',
};
/** Words that are no names, in the languages the broad bench has. */
const KEYWORDS = new Set(
  ('auto break case char const continue default do double else enum extern float for goto if int long ' +
    'register return short signed sizeof static struct switch typedef union unsigned void volatile while ' +
    'bool true false class namespace template typename public private protected virtual operator new delete ' +
    'this using fn let mut pub impl trait use mod match loop as where self Self crate super ref move ' +
    'function var of in typeof instanceof throw try catch finally null undefined')
    .split(' '),
);
/** How many names in view (the nearest before a name) may stand for it. */
const NAMES = 3;

const PUNCT = /^(===|!==|<<=|>>=|->|::|\.\.\.|[<>=!]=|&&|\|\||\+\+|--|[-+*/%&|^]=|<<|>>|[-+*/%<>&|^!~=?:;,.(){}[\]#@$])/;

/**
 * The tokens of `text`: `{ kind, start, end, line }`, kind one of `word`, `number`, `string`,
 * `punct`; comments and white space between them. Lines count from 1. In JavaScript `'`
 * quotes a string; elsewhere a character (C) or, alone, a lifetime (Rust).
 */
export function tokenize(text, language = 'c') {
  const quotes = language === 'javascript' ? '"`\'' : '"`';
  const tokens = [];
  let line = 1;
  let i = 0;
  const push = (kind, end) => {
    tokens.push({ kind, start: i, end, line });
    for (let k = i; k < end; k++) if (text[k] === '\n') line++;
    i = end;
  };
  while (i < text.length) {
    const c = text[i];
    if (c === '\n') {
      line++;
      i++;
    } else if (/\s/.test(c)) i++;
    else if (text.startsWith('//', i)) i = endOf(text, '\n', i);
    else if (text.startsWith('/*', i)) push('comment', endOf(text, '*/', i + 2));
    else if (/[A-Za-z_]/.test(c)) push('word', i + /^[A-Za-z_0-9]*/.exec(text.slice(i, i + 256))[0].length);
    else if (/[0-9]/.test(c)) push('number', i + /^[0-9A-Za-z_.]*/.exec(text.slice(i, i + 256))[0].length);
    else if (quotes.includes(c)) push('string', quoteEnd(text, i, c));
    else if (c === "'" && /^'(\\.[^']*|[^'\\\n])'/.test(text.slice(i, i + 16))) push('string', quoteEnd(text, i, c));
    else push('punct', i + (PUNCT.exec(text.slice(i, i + 4))?.[0].length ?? 1));
  }
  return tokens.filter((t) => t.kind !== 'comment');
}

function endOf(text, close, from) {
  const at = text.indexOf(close, from);
  return at === -1 ? text.length : at + close.length - (close === '\n' ? 1 : 0);
}

function quoteEnd(text, from, quote) {
  let i = from + 1;
  while (i < text.length && text[i] !== quote && !(quote !== '`' && text[i] === '\n')) i += text[i] === '\\' ? 2 : 1;
  return Math.min(i + 1, text.length);
}

/**
 * Every mutation of `text` one edit makes: `{ kind, line, start, end, replacement }`, the text
 * between start and end replaced. Statements are what runs from after `;`, `{`, `}` or `)` (an
 * `if`'s body) to the next `;`, without braces between (a declaration or an expression
 * statement, a `return` or a `throw`). Rust's lints ask for more (see rustMutations).
 */
export function mutations(text, language = 'c') {
  const tokens = tokenize(text, language);
  const out = language === 'rust' ? rustMutations(text, tokens) : [];
  tokens.forEach((t, i) => {
    const s = text.slice(t.start, t.end);
    if (t.kind === 'number' && /^[0-9]/.test(s)) {
      const value = /^0x/i.test(s) ? NaN : Number.parseInt(s, 10);
      for (const r of ['0', '1', Number.isFinite(value) ? String(value + 1) : '2']) {
        if (r !== s) out.push({ kind: 'constant', line: t.line, start: t.start, end: t.end, replacement: r });
      }
    } else if (t.kind === 'punct' && SWAPS[s]) {
      out.push({ kind: 'operator', line: t.line, start: t.start, end: t.end, replacement: SWAPS[s] });
    } else if (t.kind === 'word' && !KEYWORDS.has(s)) {
      const seen = new Set([s]);
      for (let j = i - 1; j >= 0 && j >= i - 64 && seen.size <= NAMES; j--) {
        const w = text.slice(tokens[j].start, tokens[j].end);
        if (tokens[j].kind !== 'word' || KEYWORDS.has(w) || seen.has(w)) continue;
        seen.add(w);
        out.push({ kind: 'name', line: t.line, start: t.start, end: t.end, replacement: w });
      }
    }
    const before = tokens[i - 1] && text.slice(tokens[i - 1].start, tokens[i - 1].end);
    if (before === ';' || before === '{' || before === '}' || before === ')') {
      const end = statementEnd(text, tokens, i);
      if (end !== -1) {
        const stmt = text.slice(t.start, tokens[end].end);
        out.push({ kind: 'delete', line: t.line, start: t.start, end: tokens[end].end, replacement: '' });
        out.push({ kind: 'duplicate', line: t.line, start: t.start, end: tokens[end].end, replacement: `${stmt} ${stmt}` });
      }
    }
  });
  return out;
}

/** Where an item may start: after these, or at the start. */
const ITEM_AFTER = new Set([';', '{', '}', ']']);
const ITEMS = new Set(['fn', 'impl', 'struct', 'enum', 'trait', 'mod']);

/**
 * Rust's own: what its lints are taken away by. A cast dropped (`x as u32` to `x`:
 * trivial_numeric_casts), a path's first segment dropped (`fmt::Debug` to `Debug`:
 * unused_qualifications), `<'_>` after a type's name (elided_lifetimes_in_paths), and an item
 * with a body deleted whole (dead_code), from its `pub` if it has one.
 */
function rustMutations(text, tokens) {
  const out = [];
  const at = (i) => tokens[i] && text.slice(tokens[i].start, tokens[i].end);
  tokens.forEach((t, i) => {
    const s = at(i);
    const m = (kind, start, end, replacement) => out.push({ kind, line: t.line, start, end, replacement });
    if (s === 'as' && i > 0 && tokens[i + 1]?.kind === 'word' && at(i + 2) !== '::' && at(i + 2) !== '<') {
      m('cast', tokens[i - 1].end, tokens[i + 1].end, '');
    } else if (t.kind === 'word' && at(i + 1) === '::' && tokens[i + 2]?.kind === 'word' && at(i - 1) !== '::') {
      m('path', t.start, tokens[i + 1].end, '');
    } else if (t.kind === 'word' && /^[A-Z]/.test(s) && !['<', '::', '(', '{', '!'].includes(at(i + 1))) {
      m('lifetime', t.end, t.end, "<'_>");
    }
    const first = at(i - 1) === 'pub' ? i - 1 : i;
    if (ITEMS.has(s) && (first === 0 || ITEM_AFTER.has(at(first - 1)))) {
      const end = bodyEnd(text, tokens, i);
      if (end !== -1) m('item', tokens[first].start, tokens[end].end, '');
    }
  });
  return out;
}

/** The index of the `}` that closes the first `{` from token `i` on, or -1 (a `;` first). */
function bodyEnd(text, tokens, i) {
  let depth = 0;
  for (let j = i; j < tokens.length; j++) {
    const s = text.slice(tokens[j].start, tokens[j].end);
    if (s === ';' && depth === 0) return -1;
    if (s === '{') depth++;
    if (s === '}' && --depth === 0) return j;
  }
  return -1;
}

/** The index of the `;` that ends the statement starting at token `i`, or -1 (a brace first). */
function statementEnd(text, tokens, i) {
  for (let j = i; j < tokens.length && j < i + 200; j++) {
    const s = text.slice(tokens[j].start, tokens[j].end);
    if (s === ';') return j > i ? j : -1;
    if (s === '{' || s === '}' || s === '#') return -1;
  }
  return -1;
}

/** `text` with `m` made. */
export function apply(text, m) {
  return text.slice(0, m.start) + m.replacement + text.slice(m.end);
}

/** `items` in an order `rand` picks (Fisher-Yates), a new array. */
export function shuffled(items, rand) {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

/** A number for a name, to seed `random` with: the same name, the same mutations. */
export function hashName(name) {
  let h = 2166136261;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return h >>> 0;
}
