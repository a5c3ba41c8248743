// Small C programs in the spirit of Csmith: globals, functions with parameters and locals,
// arithmetic, branches, loops and calls. Every variable is declared before it is used and every
// function before it is called, so every output compiles: a reducer that deletes text would
// break that, re-running this generator with fewer parts keeps it. What may go is written as
// reducible loops and selections (the parts GReduce removes); plain picks stay as drawn.
export const seed = 1;

const OPS = ['+', '-', '*', '/', '%', '<<', '>>', '&', '|', '^'];
const CONSTS = ['0', '1', '2', '7', '31', '32', '40', '100', '0x7fffffff'];

export function generate(g) {
  const globals = [];
  const functions = []; // [{name, params}]
  let out = '';

  g.repeat('global', 0, 4, () => {
    const name = `g${globals.length}`;
    out += `int ${name} = ${g.pick('global-value', CONSTS)};\n`;
    globals.push(name);
  });

  // A constant, or (selections) a variable or a call; then, maybe, an operator and another.
  const expr = (vars, depth) => {
    let e = g.pick('const', CONSTS);
    if (vars.length > 0) g.maybe('use-var', () => (e = g.pick('var', vars)));
    if (functions.length > 0 && depth < 2) {
      g.maybe('call', () => {
        const f = g.pick('callee', functions);
        e = `${f.name}(${f.params.map(() => expr(vars, depth + 1)).join(', ')})`;
      });
    }
    if (depth < 3) g.maybe('binary', () => (e = `(${e} ${g.pick('op', OPS)} ${expr(vars, depth + 1)})`));
    return e;
  };

  const statements = (vars, indent, depth) => {
    let s = '';
    g.repeat('stmt', 0, 4, () => {
      const kind = depth > 1 ? 'assign' : g.pick('stmt-kind', ['assign', 'assign', 'if', 'for']);
      if (kind === 'assign') {
        s += `${indent}${g.pick('target', vars)} = ${expr(vars, 0)};\n`;
      } else if (kind === 'if') {
        s += `${indent}if (${expr(vars, 0)}) {\n${statements(vars, indent + '  ', depth + 1)}${indent}}\n`;
        g.maybe('else', () => {
          s += `${indent}else {\n${statements(vars, indent + '  ', depth + 1)}${indent}}\n`;
        });
      } else {
        const i = `i${depth}`;
        s += `${indent}for (int ${i} = 0; ${i} < ${g.pick('bound', ['3', '10', '100'])}; ${i}++) {\n`;
        s += statements([...vars, i], indent + '  ', depth + 1);
        s += `${indent}}\n`;
      }
    });
    return s;
  };

  g.repeat('function', 0, 4, () => {
    const name = `f${functions.length}`;
    const params = [];
    g.repeat('param', 0, 3, () => params.push(`p${params.length}`));
    let body = '';
    const vars = [...globals, ...params];
    g.repeat('local', 0, 3, () => {
      const v = `l${vars.length}`;
      body += `  int ${v} = ${expr(vars, 0)};\n`;
      vars.push(v);
    });
    body += vars.length > 0 ? statements(vars, '  ', 0) : '';
    body += `  return ${expr(vars, 0)};\n`;
    out += `int ${name}(${params.length ? params.map((p) => `int ${p}`).join(', ') : 'void'}) {\n${body}}\n`;
    functions.push({ name, params });
  });

  let main = '  int r = 0;\n';
  if (functions.length > 0) {
    g.repeat('call', 0, 3, () => {
      const f = g.pick('main-callee', functions);
      main += `  r += ${f.name}(${f.params.map(() => expr(globals, 1)).join(', ')});\n`;
    });
  }
  out += `int main(void) {\n${main}  return r;\n}\n`;
  return out;
}
