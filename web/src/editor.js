// The source editor: CodeMirror 6 with highlighting for the five languages, plus a range
// highlight used by the parse-tree view (hovering a node marks its text).
import { EditorView, basicSetup } from 'codemirror';
import { Compartment, EditorState, Prec, StateEffect, StateField } from '@codemirror/state';
import { Decoration, keymap } from '@codemirror/view';
import { editorTheme } from './editor-theme.js';

// Grammars for highlighting load on demand (each is a separate chunk of the bundle).
const highlighters = {
  c: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  cpp: () => import('@codemirror/lang-cpp').then((m) => m.cpp()),
  rust: () => import('@codemirror/lang-rust').then((m) => m.rust()),
  javascript: () => import('@codemirror/lang-javascript').then((m) => m.javascript()),
  java: () => import('@codemirror/lang-java').then((m) => m.java()),
};

const setMark = StateEffect.define(); // {from, to} | null
const markField = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = marks.map(tr.changes);
    for (const e of tr.effects) {
      if (e.is(setMark)) {
        const r = e.value;
        marks = r && r.to > r.from ? Decoration.set([Decoration.mark({ class: 'cm-node-mark' }).range(r.from, r.to)]) : Decoration.none;
      }
    }
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

/**
 * Creates an editor in `parent`.
 * label names it for screen readers; onChange(text) fires after each edit; onCursor(offset) when the cursor moves (UTF-16 offsets).
 * @param {HTMLElement} parent
 * @param {{text?: string, lang?: string, label?: string, readOnly?: boolean, onChange?: (text: string) => void, onCursor?: (offset: number) => void}} [options]
 */
export function createEditor(parent, { text = '', lang = 'c', label = 'Program', readOnly = false, onChange, onCursor } = {}) {
  const language = new Compartment();
  const editable = new Compartment();
  const theme = new Compartment();
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc: text,
      extensions: [
        // Ctrl/Cmd+Enter starts a reduction (the page listens for it): the editor must not
        // insert a blank line first (basicSetup's Mod-Enter), so it does nothing here.
        Prec.highest(keymap.of([{ key: 'Mod-Enter', run: () => true }])),
        basicSetup,
        theme.of(editorTheme((next) => view.dispatch({ effects: theme.reconfigure(next) }))),
        language.of([]),
        editable.of(readOnlyExtensions(readOnly)),
        markField,
        // A name for screen readers, and a Tab stop that axe-core sees in the scrolled region.
        EditorView.contentAttributes.of({ 'aria-label': label, tabindex: '0' }),
        EditorView.updateListener.of((u) => {
          if (u.docChanged) onChange?.(u.state.doc.toString());
          if (u.selectionSet && !u.docChanged) onCursor?.(u.state.selection.main.head);
        }),
      ],
    }),
  });
  let wantLang = null;
  async function setLang(l) {
    wantLang = l;
    const ext = await (highlighters[l] ?? highlighters.c)();
    if (wantLang === l) view.dispatch({ effects: language.reconfigure(ext) });
  }
  setLang(lang);
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText(newText) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: newText } });
    },
    setLang,
    setReadOnly: (ro) => view.dispatch({ effects: editable.reconfigure(readOnlyExtensions(ro)) }),
    /** Marks [from, to) (null clears); scrolls to it when asked. */
    mark(range, scroll = false) {
      const effects = [setMark.of(range)];
      if (range && scroll) effects.push(EditorView.scrollIntoView(range.from, { y: 'nearest' }));
      view.dispatch({ effects });
    },
    select(from, to) {
      view.dispatch({ selection: { anchor: from, head: to }, scrollIntoView: true });
    },
    /** The selected text. */
    selection: () => view.state.sliceDoc(view.state.selection.main.from, view.state.selection.main.to),
    focus: () => view.focus(),
  };
}

function readOnlyExtensions(ro) {
  return [EditorState.readOnly.of(ro), EditorView.editable.of(!ro)];
}
