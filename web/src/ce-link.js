// Compiler Explorer's links, read and written (no DOM: node tests it, tests/web/ce-link.test.mjs).
//
// Compiler Explorer shares a session three ways, all read here:
//  - a full link: its fragment is the page's GoldenLayout config, rison-encoded after
//    "minifying" (keys and common values become one base-36 digit: `g:` is `content:`), and
//    wrapped as `z:<lz-string base64>` when that is at least 20% shorter. Versions 1 and 2
//    (JSON) and 3 (rison, `compilers:!(...)`) are older one-editor, one-compiler forms;
//  - `/clientstate/<base64>`: its "client state" JSON ({sessions: [{language, source,
//    compilers, executors}]}), possibly zlib-deflated;
//  - a short link `/z/<id>`, whose state the instance's `/api/shortlinkinfo/<id>` gives as
//    client state.
// Every form becomes a list of sessions: one source editor each, with its compilers and
// executors ({compiler, options}). Written back: a `/clientstate/` link for one program, and
// for a pair a full link with both programs and a source diff between them.
import { programName } from './files.js';
import lzString from 'lz-string';
import rison from 'rison';

/** Compiler Explorer's language ids and ours. */
const FROM_CE_LANG = { c: 'c', 'c++': 'cpp', rust: 'rust', javascript: 'javascript', java: 'java' };
export const CE_LANG = Object.fromEntries(Object.entries(FROM_CE_LANG).map(([ce, ours]) => [ours, ce]));

export class CeLinkError extends Error {}

// --- recognising a link ----------------------------------------------------------------------

/**
 * What a pasted or dropped text is, or null when it is no Compiler Explorer link:
 * {kind: 'fragment', base, fragment} | {kind: 'clientstate', base, data} | {kind: 'short', base, id}.
 * `base` is the instance's address (its API lives under `${base}/api/`).
 */
export function recognise(text) {
  let url;
  try {
    url = new URL(String(text).trim());
  } catch {
    return null;
  }
  if (!/^https?:$/.test(url.protocol)) return null;
  const path = url.pathname;
  const at = (re) => path.match(re);
  let m;
  if ((m = at(/^(.*?)\/z\/([A-Za-z0-9_-]+)\/?$/))) return { kind: 'short', base: url.origin + m[1], id: m[2] };
  if ((m = at(/^(.*?)\/(?:noscript\/)?clientstate\/([A-Za-z0-9+/_=%-]+)$/))) {
    return { kind: 'clientstate', base: url.origin + m[1], data: decodeURIComponent(m[2]) };
  }
  const fragment = url.hash.replace(/^#/, '');
  // Whittle's own permalinks (`#v1,`) are not Compiler Explorer's.
  if (!fragment || /^v\d+,/.test(fragment)) return null;
  return { kind: 'fragment', base: url.origin + path.replace(/\/+$/, ''), fragment };
}

/** Whether a page's own fragment (`location.hash`) is Compiler Explorer state pasted onto this
 *  page's address (v4 `g:`/`z:`, v3 `compilers:`, the oldest JSON): not a Whittle permalink. */
export const isCeFragment = (hash) => /^#?(g:|z:|compilers:|%7B|\{)/.test(hash);

// --- full links (the fragment) ---------------------------------------------------------------

// GoldenLayout's minifier tables, in Compiler Explorer's order: position = base-36 digit.
const KEYS = ['settings', 'hasHeaders', 'constrainDragToContainer', 'selectionEnabled', 'dimensions', 'borderWidth',
  'minItemHeight', 'minItemWidth', 'headerHeight', 'dragProxyWidth', 'dragProxyHeight', 'labels', 'close', 'maximise',
  'minimise', 'popout', 'content', 'componentName', 'componentState', 'id', 'width', 'type', 'height', 'isClosable',
  'title', 'popoutWholeStack', 'openPopouts', 'parentId', 'activeItemIndex', 'reorderEnabled', 'borderGrabWidth'];
const VALUES = [true, false, 'row', 'column', 'stack', 'component', 'close', 'maximise', 'minimise', 'open in new window'];

/** Minifies (`way` 'min') or expands ('max') a config, keys and values alike. */
function translate(from, way) {
  if (Array.isArray(from)) return from.map((v) => translateValue(v, way));
  const to = {};
  for (const [key, value] of Object.entries(from)) to[translateOne(key, KEYS, way)] = translateValue(value, way);
  return to;
}

const translateValue = (v, way) => (typeof v === 'object' && v !== null ? translate(v, way) : translateOne(v, VALUES, way));

function translateOne(value, table, way) {
  if (way === 'min') {
    if (typeof value === 'string' && value.length === 1) return `___${value}`; // not a code
    const i = table.indexOf(value);
    return i < 0 ? value : i.toString(36);
  }
  if (typeof value === 'string' && value.length === 1) return table[parseInt(value, 36)];
  if (typeof value === 'string' && value.startsWith('___')) return value[3];
  return value;
}

/** Rison of an object without its parentheses, quoted for a URL (as Compiler Explorer does). */
const risonify = (obj) => quote(rison.encode_object(obj));
const unrisonify = (text) => decodeRisonObject(decodeURIComponent(text.replace(/\+/g, '%20')));

/** rison.decode_object, without the library's console message on bad input. */
function decodeRisonObject(text) {
  const parser = new rison.parser((message) => {
    throw new Error(`rison: ${message}`);
  });
  parser.error = function quiet(message) {
    this.message = message;
  };
  return parser.parse(`(${text})`);
}

/** Percent-encodes what a URL needs, keeping rison's punctuation readable. */
function quote(text) {
  if (/^[-A-Za-z0-9~!*()_.',:@$/]*$/.test(text)) return text;
  return encodeURIComponent(text).replace(/%2C/g, ',').replace(/%3A/g, ':').replace(/%40/g, '@')
    .replace(/%24/g, '$').replace(/%2F/g, '/').replace(/%20/g, '+');
}

/** A full link's fragment (without `#`) as a version-4 GoldenLayout config, or a version-3
 *  state ({compilers: [{compiler, options, source | sourcez}], filterAsm}). */
export function decodeFragment(fragment) {
  let state = null;
  try {
    state = unrisonify(fragment);
    if (state?.z) {
      const data = lzString.decompressFromBase64(state.z);
      if (!data) throw new CeLinkError('its compressed state (z:) does not decompress: was the link cut short when copied?');
      state = unrisonify(data);
    }
  } catch (e) {
    if (e instanceof CeLinkError) throw e;
    state = null;
  }
  if (!state) {
    try {
      state = JSON.parse(decodeURIComponent(fragment)); // the oldest links: JSON
    } catch {
      throw new CeLinkError('its fragment is neither Compiler Explorer state nor Whittle playground state');
    }
  }
  switch (state?.version) {
    case 1:
      return { version: 3, compilers: [state], filterAsm: {} };
    case 2:
      return { version: 3, compilers: [state], filterAsm: state.filterAsm ?? {} };
    case 3:
      return state;
    case 4:
      return translate(state, 'max');
    default:
      throw new CeLinkError(`its state has version ${JSON.stringify(state?.version)}, which this page does not read (it reads 1 to 4)`);
  }
}

/** A GoldenLayout config as Compiler Explorer writes it into a fragment (without `#`). */
export function encodeFragment(config) {
  const min = translate({ content: config.content }, 'min');
  min.version = 4;
  const plain = risonify(min);
  const packed = risonify({ z: lzString.compressToBase64(plain) });
  return packed.length < plain.length * 0.8 ? packed : plain;
}

// --- sessions ------------------------------------------------------------------------------------

/**
 * @typedef {{compiler: string, options: string, execute: boolean}} CeCompiler
 * @typedef {{id: number|null, lang: string, source: string, compilers: CeCompiler[], executors: CeCompiler[], files?: {filename: string, contents: string}[]}} CeSession
 */

/**
 * A multi-file "tree" as one session: its main source, the other files it includes, its
 * compilers. `contentOf(file)`: a file's text (a layout keeps an open file's in its editor).
 */
function treeSession(tree, compilers, executors, contentOf) {
  const files = Array.isArray(tree?.files) ? tree.files : [];
  const main = files.find((f) => f?.isMainSource);
  return {
    id: tree?.id ?? null,
    lang: String(tree?.compilerLanguageId || main?.langId || 'c++'),
    source: main ? contentOf(main) : '',
    compilers,
    executors,
    files: files
      .filter((f) => f && f !== main && f.isIncluded !== false && typeof f.filename === 'string')
      .map((f) => ({ filename: f.filename, contents: contentOf(f) })),
  };
}

/** The sessions of a decoded fragment (decodeFragment). */
export function sessionsOfFragment(state) {
  if (state.version === 3) {
    return state.compilers.map((c, i) => ({
      id: i + 1,
      lang: 'c++', // these links predate languages: Compiler Explorer was C++ only
      source: c.sourcez ? lzString.decompressFromBase64(c.sourcez) ?? '' : String(c.source ?? ''),
      compilers: [{ compiler: String(c.compiler ?? ''), options: String(c.options ?? ''), execute: false }],
      executors: [],
    }));
  }
  const components = [];
  const walk = (item) => {
    if (item?.componentName) components.push(item);
    for (const child of Array.isArray(item?.content) ? item.content : []) walk(child);
  };
  walk(state);
  const sessions = new Map();
  const editors = new Map();
  for (const { componentName, componentState: s = {} } of components) {
    if (componentName === 'codeEditor') {
      sessions.set(s.id, { id: s.id ?? null, lang: String(s.lang ?? 'c++'), source: String(s.source ?? ''), compilers: [], executors: [] });
      editors.set(s.id, String(s.source ?? ''));
    }
  }
  // A tree's open files are its editors: they are the tree's, not sessions of their own.
  const trees = new Map();
  for (const { componentName, componentState: s = {} } of components) {
    if (componentName !== 'tree') continue;
    const contentOf = (f) => (f.isOpen && editors.has(f.editorId) ? editors.get(f.editorId) : String(f.content ?? ''));
    for (const f of Array.isArray(s.files) ? s.files : []) if (f?.isOpen) sessions.delete(f.editorId);
    trees.set(s.id, treeSession(s, [], [], contentOf));
  }
  for (const { componentName, componentState: s = {} } of components) {
    const session = s.tree ? trees.get(s.tree) : sessions.get(s.source);
    if (!session || !s.compiler) continue;
    const c = { compiler: String(s.compiler), options: String(s.options ?? '') };
    if (componentName === 'compiler') session.compilers.push({ ...c, execute: !!s.filters?.execute });
    if (componentName === 'executor') session.executors.push({ ...c, execute: true });
  }
  return [...trees.values(), ...sessions.values()];
}

/** The sessions of Compiler Explorer's client state ({sessions: [...]}). */
export function sessionsOfClientState(cs) {
  const trees = Array.isArray(cs?.trees) ? cs.trees : [];
  if (!cs || (!Array.isArray(cs.sessions) && !trees.length)) throw new CeLinkError('its state has no sessions: it is not Compiler Explorer client state');
  const compilersOf = (s) => (s.compilers ?? []).filter((c) => c?.id).map((c) => ({ compiler: String(c.id), options: String(c.options ?? ''), execute: !!c.filters?.execute }));
  const executorsOf = (s) => (s.executors ?? []).filter((e) => e?.compiler?.id).map((e) => ({ compiler: String(e.compiler.id), options: String(e.compiler.options ?? ''), execute: true }));
  return [
    ...trees.map((t) => treeSession(t, compilersOf(t), executorsOf(t), (f) => String(f.content ?? ''))),
    ...(cs.sessions ?? []).map((s) => ({
      id: s.id ?? null,
      lang: String(s.language ?? 'c++'),
      source: String(s.source ?? ''),
      compilers: compilersOf(s),
      executors: executorsOf(s),
    })),
  ];
}

/** `/clientstate/`'s data: base64 (either alphabet) of JSON, possibly zlib-deflated. */
export async function decodeClientState(data) {
  let bytes;
  try {
    const b64 = data.replace(/-/g, '+').replace(/_/g, '/');
    bytes = Uint8Array.from(atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4)), (c) => c.charCodeAt(0));
  } catch {
    throw new CeLinkError('its client state is not base64: was the link cut short when copied?');
  }
  // zlib's first byte has method 8 in its low bits; JSON's first byte ('{') does not.
  if (bytes.length && (bytes[0] & 0x0f) === 8) {
    try {
      bytes = new Uint8Array(await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
    } catch {
      // not deflated after all: read it as it is
    }
  }
  try {
    return JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new CeLinkError('its client state is not JSON: was the link cut short when copied?');
  }
}

/** base64url of a client state's JSON, for `/clientstate/`. */
export function encodeClientState(cs) {
  const bytes = new TextEncoder().encode(JSON.stringify(cs));
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/**
 * The sessions a link holds, whatever its form; a short link is resolved with `fetchFn`
 * through its instance's `/api/shortlinkinfo/<id>`. Throws CeLinkError saying what to do.
 * @returns {Promise<{base: string, sessions: CeSession[]}>}
 */
export async function readLink(link, fetchFn = fetch) {
  if (link.kind === 'fragment') return { base: link.base, sessions: sessionsOfFragment(decodeFragment(link.fragment)) };
  if (link.kind === 'clientstate') return { base: link.base, sessions: sessionsOfClientState(await decodeClientState(link.data)) };
  const url = `${link.base}/api/shortlinkinfo/${encodeURIComponent(link.id)}`;
  const paste = 'In Compiler Explorer, use Share → Full link, and paste that instead.';
  let res;
  try {
    res = await fetchFn(url, { headers: { Accept: 'application/json' } });
  } catch (e) {
    throw new CeLinkError(`the short link /z/${link.id} could not be resolved: ${link.base} did not answer (${e.message}). ${paste}`);
  }
  if (!res.ok) throw new CeLinkError(`the short link /z/${link.id} could not be resolved: ${link.base} answered HTTP ${res.status}. ${paste}`);
  let json;
  try {
    json = await res.json();
  } catch {
    throw new CeLinkError(`the short link /z/${link.id} could not be resolved: ${link.base} sent no JSON. ${paste}`);
  }
  // The instance answers with client state, or (some versions) with the stored layout itself.
  const sessions = json?.content ? sessionsOfFragment(translate(json, 'max')) : sessionsOfClientState(json);
  return { base: link.base, sessions };
}

/**
 * The playground's settings for one session: {lang, source, compiler, flags, execute, others,
 * second}. The first compiler is taken (else the first executor's, which then runs the
 * program); `others` counts the compilers left out; `second` is the first other build (another
 * compiler, or other flags), {compiler, flags} or null, for wrong code across the two. Throws
 * when the session has nothing to reduce with.
 */
export function settingsOf(session) {
  const lang = FROM_CE_LANG[session.lang];
  if (!lang) throw new CeLinkError(`its program is in Compiler Explorer's language "${session.lang}", which Whittle does not reduce (it reduces ${Object.keys(FROM_CE_LANG).join(', ')})`);
  const chosen = session.compilers[0] ?? session.executors[0];
  if (!chosen) throw new CeLinkError('its editor has no compiler: add one in Compiler Explorer, then share the link again');
  const execute = chosen.execute || session.executors.some((e) => e.compiler === chosen.compiler);
  const others = new Set([...session.compilers, ...session.executors].map((c) => c.compiler)).size - 1;
  // A second build (another compiler, or the same with other flags): wrong code across the two.
  const other = [...session.compilers, ...session.executors].find((c) => c.compiler !== chosen.compiler || c.options.trim() !== chosen.options.trim());
  const second = other ? { compiler: other.compiler, flags: other.options } : null;
  return { lang, source: session.source, files: session.files ?? [], compiler: chosen.compiler, flags: chosen.options, execute, others, second };
}

/** A short description of a session, to choose between editors. */
export const describeSession = (s, i) => {
  const first = s.source.split('\n').find((l) => l.trim()) ?? '';
  const compilers = [...s.compilers, ...s.executors].map((c) => c.compiler).join(', ') || 'no compiler';
  return `Editor ${s.id ?? i + 1} (${s.lang}, ${compilers}): ${first.trim().slice(0, 60)}`;
};

// --- links back --------------------------------------------------------------------------------

const ceLangOf = (lang) => {
  const ce = CE_LANG[lang];
  if (!ce) throw new CeLinkError(`Compiler Explorer has no language for "${lang}"`);
  return ce;
};

/** Client state for one program: its editor with the compiler and flags (and an executor
 *  when it runs). */
export function clientStateOf({ lang, source, compiler, flags, execute, files = [] }) {
  const language = ceLangOf(lang);
  const c = { id: compiler, options: flags, filters: { execute: false }, libs: [] };
  const executors = execute ? [{ compiler: { id: compiler, options: flags, libs: [] }, arguments: '', stdin: '' }] : [];
  // With files beside it, a multi-file tree: the program is its main source.
  if (files.length) {
    const file = (filename, content, main, i) => ({ fileId: i + 1, isIncluded: true, isOpen: false, isMainSource: main, filename, content, editorId: -1, langId: main ? language : '' });
    const all = [file(programName(lang), source, true, 0), ...files.map((f, i) => file(f.filename, f.contents, false, i + 1))];
    return {
      sessions: [],
      trees: [{ id: 1, cmakeArgs: '', customOutputFilename: '', isCMakeProject: false, compilerLanguageId: language, files: all, newFileId: all.length + 1, compilers: [c], executors }],
    };
  }
  return {
    sessions: [{
      id: 1,
      language,
      source,
      compilers: [c],
      executors,
    }],
  };
}

/** The `/clientstate/` link that opens one program at `base`. */
export const clientStateLink = (base, program) => `${trimBase(base)}/clientstate/${encodeClientState(clientStateOf(program))}`;

/** The layout for a pair: both programs side by side, each with its compiler, and a diff of
 *  the two sources below. */
export function pairLayout({ lang, seed, variant, compiler, flags }) {
  const language = ceLangOf(lang);
  const editor = (id, source, title) => ({ type: 'component', componentName: 'codeEditor', title, componentState: { id, lang: language, source, options: { compileOnChange: true } } });
  const comp = (id) => ({ type: 'component', componentName: 'compiler', componentState: { id, source: id, lang: language, compiler, options: flags, filters: { labels: true, directives: true, commentOnly: true, intel: true, demangle: true }, libs: [] } });
  return {
    content: [{
      type: 'column',
      content: [
        { type: 'row', content: [editor(1, seed, 'seed'), editor(2, variant, 'variant')] },
        {
          type: 'row',
          content: [comp(1), comp(2), {
            type: 'component',
            componentName: 'diff',
            componentState: { lhs: 'source_1', rhs: 'source_2', lhsdifftype: 16, rhsdifftype: 16 }, // 16: Source
          }],
        },
      ],
    }],
  };
}

/** The full link that opens a pair at `base`. */
export const pairLink = (base, pair) => `${trimBase(base)}/#${encodeFragment(pairLayout(pair))}`;

/** What to POST to an instance's `/api/shortener` for a program or a pair. */
export const shortenerBody = (what) => ('seed' in what ? { config: pairLayout(what) } : clientStateOf(what));

const trimBase = (base) => String(base).trim().replace(/\/+$/, '');
