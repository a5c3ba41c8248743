// C programs without undefined behaviour, in the spirit of Csmith, for wrong-code bugs: every
// run of this generator, whatever its decisions, is a defined program, so a reduced run is
// still a bug report (no sanitizer needed on each candidate). How:
// - every variable is initialized where it is declared, and declared before it is used;
// - + - * / % << >> and unary minus go through safe wrappers (Csmith's safe_math: the operand
//   comes back unchanged where the operation would overflow, divide by zero or shift too far);
// - array indices are reduced modulo the array's length; pointers point to variables of their
//   own type that live as long as they do (globals, or locals of the same function);
// - loops count up to a small constant and their counters are never assigned;
// - functions write only their own locals, so calls have no side effects and the order in
//   which operands are evaluated never matters; main writes the globals;
// - at the end main prints every global and its own locals, a line each, in nine runs of
//   ten: a reducible loop decides, so that a reduced run may go without them when a crash or
//   the exit status shows the bug alone; each line is a unit of its own.
// Narrowing conversions and right shifts of negative values are implementation-defined (not
// undefined): gcc, clang and tcc all wrap and shift arithmetically.
// What compilers get wrong: || && ?: with constant operands (also unparenthesized chains such
// as `1 || (b || 0) && a`), mixed widths and signedness, casts, bit-fields, pointers.
// What may go is written as reducible loops, selections and parts (an expression, a store, a
// printed value); GReduce's `choose` pass tries the other values of plain picks. Names come
// from g.fresh and every pick among variables is by name, so a reduced run that deletes one
// variable leaves the others, and what reads them, as they were.
// Self-contained (no imports), so the page's generator mode runs it too.
export const seed = 1;

// Plain C names (no <stdint.h> to keep): 8, 16, 32 and 64 bits on the targets we test.
const TYPES = ['signed char', 'unsigned char', 'short', 'unsigned short', 'int', 'unsigned', 'long long', 'unsigned long long'];
// printf's conversion for each type as promoted (bit-fields of these widths promote to int).
const FORMATS = {
  'signed char': '%d', 'unsigned char': '%d', short: '%d', 'unsigned short': '%d', int: '%d',
  unsigned: '%u', 'long long': '%lld', 'unsigned long long': '%llu',
};
const CONSTS = ['0', '1', '2', '7', '-1', '-128', '0xff', '32767', '0xffff', '0x7fffffff', '(-2147483647 - 1)', '0xffffffffu', '0x100000000LL', '-9LL'];
const SMALL = ['0', '1', '2', '3', '5'];
// The wrappers' families: the type computed in, and its limits.
const FAMILIES = {
  si: { type: 'int', bits: 32, min: '(-2147483647 - 1)', max: '2147483647' },
  ui: { type: 'unsigned int', bits: 32 },
  sl: { type: 'long long', bits: 64, min: '(-9223372036854775807LL - 1)', max: '9223372036854775807LL' },
  ul: { type: 'unsigned long long', bits: 64 },
};
const WRAPPED = { '+': 'add', '-': 'sub', '*': 'mul', '/': 'div', '%': 'mod', '<<': 'shl', '>>': 'shr' };
const RAW = ['&', '|', '^', '<', '>', '<=', '==', '!=', '&&', '||'];

/** The C text of one wrapper (`safe_add_si` and the like). */
function wrapper(op, fam) {
  const f = FAMILIES[fam];
  const t = f.type;
  const name = `safe_${op}_${fam}`;
  const signed = fam[0] === 's';
  const head = op === 'neg' ? `static ${t} ${name}(${t} a)` : `static ${t} ${name}(${t} a, ${t} b)`;
  let body;
  if (!signed) {
    body = {
      add: 'a + b', sub: 'a - b', mul: 'a * b', neg: '-a',
      div: 'b == 0 ? a : a / b', mod: 'b == 0 ? a : a % b',
      shl: `b >= ${f.bits} ? a : a << b`, shr: `b >= ${f.bits} ? a : a >> b`,
    }[op];
  } else {
    const { min, max } = f;
    // A product fits when both factors are below the square root of the maximum.
    const root = f.bits === 32 ? '46340' : '3037000499LL';
    body = {
      add: `(b > 0 && a > ${max} - b) || (b < 0 && a < ${min} - b) ? a : a + b`,
      sub: `(b < 0 && a > ${max} + b) || (b > 0 && a < ${min} + b) ? a : a - b`,
      mul: `a > -${root} && a < ${root} && b > -${root} && b < ${root} ? a * b : a`,
      neg: `a == ${min} ? a : -a`,
      div: `b == 0 || (a == ${min} && b == -1) ? a : a / b`,
      mod: `b == 0 || (a == ${min} && b == -1) ? a : a % b`,
      shl: `b < 0 || b >= ${f.bits} || a < 0 || a > (${max} >> b) ? a : a << b`,
      shr: `b < 0 || b >= ${f.bits} ? a : a >> b`,
    }[op];
  }
  return `${head} { return ${body}; }\n`;
}

export function generate(g) {
  const used = new Map(); // wrapper name -> its text, in order of first use
  const globals = []; // [{name, type}] scalars main may assign
  const arrays = []; // [{name, type, n}]
  const structs = []; // [{name, fields: [name]}]
  const functions = []; // [{name, params}]
  let decls = '';

  const wrap = (op, fam, args) => {
    const name = `safe_${op}_${fam}`;
    if (!used.has(name)) used.set(name, wrapper(op, fam));
    return `${name}(${args.join(', ')})`;
  };

  g.repeat('global', 0, 6, () => {
    const name = `g${g.fresh('global-name')}`;
    const type = g.pick('global-type', TYPES);
    decls += `${type} ${name} = ${g.pick('global-value', CONSTS)};\n`;
    globals.push({ name, type });
  });
  g.maybe('array', () => {
    const type = g.pick('array-type', TYPES);
    // Its length is how many items there are: a reducible loop.
    const items = [];
    g.repeat('array-item', 1, 4, () => items.push(g.pick('array-value', CONSTS)));
    decls += `${type} a0[${items.length}] = {${items.join(', ')}};\n`;
    arrays.push({ name: 'a0', type, n: items.length });
  });
  g.maybe('struct', () => {
    // Bit-fields of both signs and odd widths beside plain members, each one reducible.
    const fields = [];
    const values = [];
    g.repeat('field', 1, 4, () => {
      const kind = g.pick('field-kind', ['signed int # : 5', 'unsigned int # : 13', 'int #', 'signed int # : 17', 'unsigned # : 1']);
      fields.push(kind.replace('#', `f${fields.length}`));
      values.push(g.pick('field-value', CONSTS));
    });
    decls += `struct S0 { ${fields.join('; ')}; };\nstruct S0 s0 = {${values.join(', ')}};\n`;
    structs.push({ name: 's0', fields: fields.map((_, i) => `f${i}`) });
  });

  // Scope: what an expression may read and a statement may write.
  //   reads: names and lvalues; writes: lvalues; loops: loop counters (read only).
  // Each expression is a part: GReduce can hoist an operand in its place, or drop it for 0.
  const expr = (scope, depth) => {
    let e = '0';
    g.part('expr', () => (e = operation(scope, depth)));
    return e;
  };
  const operation = (scope, depth) => {
    let e = g.pick('const', CONSTS);
    g.maybe('use-var', () => {
      const kind = g.pick('read-kind', ['var', 'var', 'array', 'field', 'deref']);
      if (kind === 'array' && arrays.length > 0) {
        const a = g.pick('array', arrays);
        e = `${a.name}[${index(scope, depth, a.n)}]`;
      } else if (kind === 'field' && structs.length > 0) {
        e = `s0.${g.pick('field', structs[0].fields)}`;
      } else if (kind === 'deref' && scope.pointers.length > 0) {
        e = `*${g.pick('pointer', scope.pointers).name}`;
      } else if (scope.reads.length > 0) {
        e = g.pick('var', scope.reads);
      }
    });
    if (functions.length > 0 && depth < 2 && !scope.inLoop) {
      g.maybe('call', () => {
        const f = g.pick('callee', functions);
        e = `${f.name}(${f.params.map(() => expr(scope, depth + 1)).join(', ')})`;
      });
    }
    if (depth < 3) {
      g.maybe('cast', () => (e = `(${g.pick('cast-type', TYPES)})(${e})`));
      g.maybe('unary', () => {
        const u = g.pick('unary-op', ['~', '!', '-']);
        e = u === '-' ? wrap('neg', g.pick('family', Object.keys(FAMILIES)), [e]) : `${u}(${e})`;
      });
      g.maybe('binary', () => {
        const kind = g.pick('binary-kind', ['wrapped', 'raw', 'logic', 'cond']);
        if (kind === 'wrapped') {
          const op = g.pick('op', Object.keys(WRAPPED));
          e = wrap(WRAPPED[op], g.pick('family', Object.keys(FAMILIES)), [e, expr(scope, depth + 1)]);
        } else if (kind === 'raw') {
          e = `(${e} ${g.pick('raw-op', RAW)} ${expr(scope, depth + 1)})`;
        } else if (kind === 'logic') {
          // An unparenthesized chain of || and &&, constants likely: precedence decides.
          const op = () => g.pick('logic-op', ['||', '&&']);
          const constant = () => g.pick('logic-const', ['0', '1']);
          let chain = g.pick('logic-first', ['expr', 'const']) === 'const' ? constant() : e;
          g.repeat('logic', 1, 3, () => {
            const kind = g.pick('logic-operand', ['const', 'expr', 'chain', 'chain']);
            // A parenthesized chain of its own: an operand and a constant.
            const operand = kind === 'const' ? constant() : kind === 'expr' ? expr(scope, depth + 1) : `(${expr(scope, depth + 1)} ${op()} ${constant()})`;
            chain += ` ${op()} ${operand}`;
          });
          e = `(${chain})`;
        } else {
          const test = g.pick('cond-test', ['const', 'expr']) === 'const' ? g.pick('cond-const', ['0', '1']) : e;
          e = `(${test} ? ${expr(scope, depth + 1)} : ${expr(scope, depth + 1)})`;
        }
      });
    }
    return e;
  };
  // An assignment's or an initializer's value needs no parentheses around it.
  const bare = (e) => (enclosed(e) ? e.slice(1, -1) : e);
  const index = (scope, depth, n) =>
    n === 1 ? '0' : `(unsigned)(${depth < 2 ? expr(scope, depth + 1) : g.pick('const', CONSTS)}) % ${n}u`;

  const statements = (scope, indent, depth) => {
    let s = '';
    g.repeat('stmt', 0, 4, () => {
      const kind = depth > 1 ? 'assign' : g.pick('stmt-kind', ['assign', 'assign', 'if', 'for']);
      if (kind === 'assign') {
        const target = g.pick('target', scope.writes);
        // The store is a unit: without it the statement is its value alone, an expression
        // statement (where a compiler's bug in evaluating it may still show).
        let store = '';
        g.part('store', () => (store = `${typeof target === 'string' ? target : target(scope, depth)} = `));
        s += `${indent}${store}${bare(expr(scope, 0))};\n`;
      } else if (kind === 'if') {
        s += `${indent}if (${expr(scope, 0)}) {\n${statements(scope, indent + '  ', depth + 1)}${indent}}\n`;
        g.maybe('else', () => {
          s += `${indent}else {\n${statements(scope, indent + '  ', depth + 1)}${indent}}\n`;
        });
      } else {
        const i = `i${depth}`;
        s += `${indent}for (int ${i} = 0; ${i} < ${g.pick('bound', SMALL)}; ${i}++) {\n`;
        s += statements({ ...scope, reads: [...scope.reads, i], inLoop: true }, indent + '  ', depth + 1);
        s += `${indent}}\n`;
      }
    });
    return s;
  };

  // Locals of a function (or main): scalars, then maybe pointers to them or to globals.
  const locals = (scope) => {
    let body = '';
    g.repeat('local', 0, 3, () => {
      const v = `l${g.fresh('local-name')}`;
      const type = g.pick('local-type', TYPES);
      body += `  ${type} ${v} = ${bare(expr(scope, 0))};\n`;
      scope.reads.push(v);
      scope.writes.push(v);
      scope.typed.push({ name: v, type });
    });
    g.repeat('pointer', 0, 2, () => {
      if (scope.typed.length === 0) return;
      const to = g.pick('pointee', scope.typed);
      const p = { name: `p${g.fresh('pointer-name')}`, type: to.type };
      body += `  ${to.type} *${p.name} = &${to.name};\n`;
      scope.pointers.push(p);
      scope.writes.push(`*${p.name}`);
      // Pointing elsewhere later: another variable of the same type.
      const same = scope.typed.filter((t) => t.type === to.type);
      if (same.length > 1) scope.writes.push(named(`${p.name}=`, () => `${p.name} = &${g.pick('repoint', same).name}; *${p.name}`));
    });
    return body;
  };

  let functionsText = '';
  g.repeat('function', 0, 3, () => {
    const name = `f${g.fresh('function-name')}`;
    const params = [];
    g.repeat('param', 0, 3, () => params.push({ name: `q${g.fresh('param-name')}`, type: g.pick('param-type', TYPES) }));
    // Reads globals, writes only its parameters and locals (calls have no side effects).
    const scope = {
      reads: [...globals.map((v) => v.name), ...params.map((p) => p.name)],
      writes: params.map((p) => p.name),
      typed: [...params],
      pointers: [],
      inLoop: false,
    };
    let body = locals(scope);
    body += scope.writes.length > 0 ? statements(scope, '  ', 0) : '';
    body += `  return ${bare(expr(scope, 0))};\n`;
    const list = params.length ? params.map((p) => `${p.type} ${p.name}`).join(', ') : 'void';
    functionsText += `static long long ${name}(${list}) {\n${body}}\n`;
    functions.push({ name, params });
  });

  // main writes the globals: scalars, array elements, bit-fields, through pointers.
  const scope = {
    reads: globals.map((v) => v.name),
    writes: [
      ...globals.map((v) => v.name),
      ...arrays.map((a) => named(`${a.name}[]`, (sc, depth) => `${a.name}[${index(sc, depth, a.n)}]`)),
      ...structs.flatMap((s) => s.fields.map((f) => `${s.name}.${f}`)),
    ],
    typed: [...globals],
    pointers: [],
    inLoop: false,
  };
  let main = locals(scope);
  main += scope.writes.length > 0 ? statements(scope, '  ', 0) : '';
  let printed = false;
  g.repeat('print', 0, 9, () => (printed = true));
  if (printed) {
    // Each value on its own line, in the format of its promoted type (no cast), each line a
    // unit that may go.
    // Labelled by the value's name: a reduced run that deletes one variable still aligns the
    // lines of the others with their own.
    const show = (v, type) => g.part(`show-${v}`, () => (main += `  printf("${FORMATS[type]}\\n", ${v});\n`));
    for (const v of scope.typed) show(v.name, v.type);
    for (const a of arrays) for (let i = 0; i < a.n; i++) show(`${a.name}[${i}]`, a.type);
    for (const s of structs) for (const f of s.fields) show(`${s.name}.${f}`, 'int');
  }
  main += '  return 0;\n';
  const include = printed ? '#include <stdio.h>\n' : '';
  return `${include}${[...used.values()].join('')}${decls}${functionsText}int main() {\n${main}}\n`;
}

/** `f` with a name, so that a pick among write targets is a pick by name. */
function named(name, f) {
  return Object.defineProperty(f, 'name', { value: name });
}

/** Whether `e` is one parenthesized whole: `(a || b)`, not `(a) + (b)`. */
function enclosed(e) {
  if (!e.startsWith('(') || !e.endsWith(')')) return false;
  let depth = 0;
  for (let i = 0; i < e.length; i++) {
    if (e[i] === '(') depth++;
    else if (e[i] === ')' && --depth === 0 && i < e.length - 1) return false;
  }
  return true;
}
