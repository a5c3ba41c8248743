// The editors' colours, light or dark as the system asks (prefers-color-scheme): the gutter
// takes the page's panel colours, and the syntax colours read at 4.5:1 or better on the
// page's background: in the light CodeMirror's own, the few too pale ones darker; in the dark
// a palette of its own.
import { EditorView } from '@codemirror/view';
import { HighlightStyle, defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { tags as t } from '@lezer/highlight';

const DARK = '(prefers-color-scheme: dark)';

const gutters = {
  '.cm-gutters': { backgroundColor: 'var(--panel)', color: 'var(--muted)', borderRight: '1px solid var(--border)' },
  '.cm-activeLineGutter': { backgroundColor: 'color-mix(in srgb, var(--muted) 18%, transparent)', color: 'var(--text)' },
};

// CodeMirror's light colours below 4.5:1 on white (escapes #e40, invalid #f00, types #085).
const DARKER = { '#e40': '#b33a00', '#f00': '#c00', '#085': '#006b45' };
const light = [
  EditorView.theme(gutters),
  syntaxHighlighting(HighlightStyle.define(defaultHighlightStyle.specs.map((s) => ({ ...s, color: DARKER[s.color] ?? s.color })))),
];

const dark = [
  EditorView.theme({
    ...gutters,
    '&': { color: 'var(--text)' },
    '.cm-activeLine': { backgroundColor: '#ffffff0d' },
    '.cm-selectionMatch': { backgroundColor: '#3a4a5a' },
    '&.cm-focused .cm-matchingBracket': { backgroundColor: '#3d4f3d', color: 'var(--text)' },
  }, { dark: true }),
  syntaxHighlighting(HighlightStyle.define([
    { tag: [t.keyword, t.modifier, t.controlKeyword, t.operatorKeyword], color: '#d19af2' },
    { tag: [t.processingInstruction, t.meta, t.annotation], color: '#f28b82' },
    { tag: [t.string, t.special(t.string), t.character], color: '#a5d6a7' },
    { tag: [t.comment, t.lineComment, t.blockComment], color: '#9aa3ad', fontStyle: 'italic' },
    { tag: [t.number, t.bool, t.atom, t.null], color: '#f5b97a' },
    { tag: [t.function(t.variableName), t.function(t.propertyName), t.definition(t.function(t.variableName))], color: '#7cc4fa' },
    { tag: [t.typeName, t.className, t.namespace, t.standard(t.typeName)], color: '#f2d58b' },
    { tag: [t.propertyName, t.attributeName], color: '#9ed8e6' },
    { tag: [t.definition(t.variableName), t.variableName, t.labelName], color: '#e4e5e7' },
    { tag: [t.operator, t.punctuation, t.bracket, t.separator], color: '#c5cad1' },
    { tag: [t.macroName, t.special(t.variableName), t.self], color: '#f28b82' },
    { tag: t.invalid, color: '#ff8a80' },
  ])),
];

/** The theme for now, and a call of `onChange(theme)` whenever the system setting changes. */
export function editorTheme(onChange) {
  const query = matchMedia(DARK);
  query.addEventListener('change', () => onChange(query.matches ? dark : light));
  return query.matches ? dark : light;
}
