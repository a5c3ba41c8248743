// The playground page: wires the editor, the engine worker and the panels together.
import { createEditor } from './editor.js';
import { EngineClient } from './engine-client.js';

const $ = (id) => document.getElementById(id);
const PARSE_DEBOUNCE_MS = 150;

const SAMPLE = `#include <stdio.h>

/* Reduce me: keep the warning "makes integer from pointer without a cast". */
struct point { int x, y; };

static int area(struct point a, struct point b) {
  return (b.x - a.x) * (b.y - a.y);
}

int main(void) {
  struct point a = {1, 2}, b = {4, 6};
  int p = "not a number";
  printf("%d %d\\n", area(a, b), p);
  return 0;
}
`;

const engine = new EngineClient();
const state = { lang: 'c', program: SAMPLE };
let edits = 0; // counts edits, so that tests can wait for the parse of a given text

const editor = createEditor($('editor'), {
  text: state.program,
  lang: state.lang,
  onChange(text) {
    state.program = text;
    edits++;
    scheduleParse();
  },
});
$('lang').value = state.lang;
$('lang').addEventListener('change', () => {
  state.lang = $('lang').value;
  if (state.lang !== 'auto') editor.setLang(state.lang);
  scheduleParse(0);
});

let parseTimer = 0;
function scheduleParse(delay = PARSE_DEBOUNCE_MS) {
  clearTimeout(parseTimer);
  parseTimer = setTimeout(parseNow, delay);
}

async function parseNow() {
  const gen = edits;
  let report;
  try {
    report = await engine.parse(state.program, state.lang, false);
  } catch (e) {
    return showParseStatus({ error: e.message });
  }
  if (!report) return; // a newer edit superseded this parse
  if (state.lang === 'auto') editor.setLang(report.lang);
  $('token-count').textContent = String(report.tokens);
  $('token-count').dataset.parseMs = String(report.parse_ms);
  $('token-count').dataset.edit = String(gen);
  $('parse-time').textContent = `${report.parse_ms.toFixed(1)} ms`;
  showParseStatus(report);
}

function showParseStatus(report) {
  const el = $('parse-status');
  if (report.ok) {
    el.textContent = report.round_trip ? 'parses' : 'parses (but does not round-trip)';
    el.className = 'parse-status ok';
  } else if (report.error && typeof report.error === 'object') {
    const { line, column, near } = report.error;
    el.textContent = `Syntax error at line ${line}, column ${column}${near ? ` near \`${near}\`` : ''}`;
    el.className = 'parse-status error';
  } else {
    el.textContent = String(report.error ?? 'does not parse');
    el.className = 'parse-status error';
  }
  el.title = el.textContent;
}

engine.ready.then(
  (info) => {
    $('status').textContent = 'ready';
    $('engine-info').textContent = `engine loaded in ${Math.round(info.ms)} ms`;
    document.body.dataset.ready = 'true';
    scheduleParse(0);
  },
  (e) => {
    $('status').textContent = e.message;
    $('status').className = 'status error';
  },
);

// A small hook for tests and the console.
window.whittle = {
  setProgram: (text) => editor.setText(text),
  program: () => editor.getText(),
  edits: () => edits,
  parse: (text, lang = state.lang) => engine.parse(text, lang, false),
};
