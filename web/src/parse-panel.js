// The source pane's parse feedback: each side is parsed in the worker shortly after an edit;
// the shown side's report fills the token count and the status line, and (while the Tree tab
// is shown) its parse tree, which is linked both ways to the editor.
import { Offsets } from './offsets.js';
import { TreeView } from './tree-view.js';
import { textOf } from './state.js';
import { $ } from './ui.js';

const PARSE_DEBOUNCE_MS = 150;

export class ParsePanel {
  /**
   * engine: the EngineClient; editors: {variant, seed}; state(): the page's state;
   * onParsed(side, report): after each new report (also a failed parse's).
   */
  constructor({ engine, editors, state, onParsed }) {
    this.engine = engine;
    this.editors = editors;
    this.state = state;
    this.onParsed = onParsed;
    this.reports = { variant: null, seed: null }; // the last parse report of each side
    this.activeSide = 'variant'; // the side the editor pane shows
    this.treeShown = true; // the tree is parsed only while its tab is shown
    this.edits = 0; // counts edits, so that tests can wait for the parse of a given text
    this.timers = {};
    this.offsets = new Offsets('');
    this.ignoreCursor = false; // the cursor moves because the tree selected a node
    this.tree = new TreeView($('tree'), {
      onHover: (node) => this.activeEditor().mark(node && { from: this.offsets.toIndex(node.start), to: this.offsets.toIndex(node.end) }),
      onSelect: (node) => {
        this.ignoreCursor = true;
        this.activeEditor().select(this.offsets.toIndex(node.start), this.offsets.toIndex(node.end));
      },
    });
    $('tree-anon').addEventListener('change', () => this.tree.setShowAnonymous($('tree-anon').checked));
  }

  activeEditor() {
    return this.editors[this.activeSide];
  }

  /** After the person (or the page) changed side `side`'s text. */
  edited(side) {
    this.edits++;
    this.schedule(side);
  }

  /** The editor's cursor moved: show its node in the tree. */
  cursorMoved(side, index) {
    if (this.ignoreCursor) return (this.ignoreCursor = false);
    if (side === this.activeSide) this.tree.revealAt(this.offsets.toByte(index));
  }

  /** Shows one side of a pair in the editor pane, with its parse report and tree. */
  showSide(side) {
    this.activeSide = side;
    for (const r of document.querySelectorAll('input[name=side]')) r.checked = r.value === side;
    $('editor').hidden = side !== 'variant';
    $('editor-seed').hidden = side !== 'seed';
    if (this.reports[side]) this.show(this.reports[side]);
    this.schedule(side, 0);
  }

  setTreeShown(shown) {
    this.treeShown = shown;
    if (shown) this.schedule(this.activeSide, 0);
  }

  schedule(side = this.activeSide, delay = PARSE_DEBOUNCE_MS) {
    clearTimeout(this.timers[side]);
    this.timers[side] = setTimeout(() => this.parseNow(side), delay);
  }

  /** Parses one side now; resolves once its report is in (or a newer edit superseded it). */
  async parseNow(side = this.activeSide) {
    clearTimeout(this.timers[side]); // this parse covers any scheduled one
    const gen = this.edits;
    const state = this.state();
    const text = textOf(state, side);
    const wantTree = this.treeShown && side === this.activeSide;
    let report;
    try {
      report = await this.engine.parse(text, state.lang, wantTree, side);
    } catch (e) {
      this.reports[side] = { ok: false, error: e.message };
      if (side === this.activeSide) showStatus(this.reports[side]);
      this.onParsed(side, this.reports[side]);
      return;
    }
    if (!report) return; // a newer edit superseded this parse
    this.reports[side] = report;
    if (side === this.activeSide) {
      this.show(report, gen);
      if (report.tree) {
        this.offsets = new Offsets(text);
        this.tree.setTree(report.tree, positionIn(text));
      }
    }
    this.onParsed(side, report);
  }

  show(report, gen) {
    const count = $('token-count');
    count.textContent = String(report.tokens ?? '–');
    count.dataset.parseMs = String(report.parse_ms ?? '');
    if (gen !== undefined) count.dataset.edit = String(gen);
    $('parse-time').textContent = report.parse_ms === undefined ? '' : `parsed in ${report.parse_ms.toFixed(1)} ms`;
    showStatus(report);
  }
}

function showStatus(report) {
  const el = $('parse-status');
  if (report.ok) {
    el.textContent = report.round_trip ? 'parses' : 'parses (but does not round-trip)';
    el.className = 'parse-status ok';
  } else if (report.error && typeof report.error === 'object') {
    const { line, column, near } = report.error;
    const covered = report.tokens ? (100 * (report.tokens - report.error_tokens)) / report.tokens : 0;
    el.textContent =
      `Syntax error at line ${line}, column ${column}${near ? ` near \`${near}\`` : ''}; ` +
      `the grammar covers ${covered.toFixed(1)}% of the tokens (error regions are marked in the tree)`;
    el.className = 'parse-status error';
  } else {
    el.textContent = String(report.error ?? 'does not parse');
    el.className = 'parse-status error';
  }
  el.title = el.textContent;
}

/** byte offset -> {line, column} (1-based) in `text`, for the tree's range labels. */
function positionIn(text) {
  const starts = [0];
  const enc = new Offsets(text);
  for (let i = text.indexOf('\n'); i >= 0; i = text.indexOf('\n', i + 1)) starts.push(enc.toByte(i + 1));
  return (byte) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid] <= byte) lo = mid;
      else hi = mid - 1;
    }
    return { line: lo + 1, column: byte - starts[lo] + 1 };
  };
}
