// What a language brings when it is chosen: the endpoint's default compiler for it (its
// /api/languages says which; else the first it lists) and flags that compiler takes. A
// compiler the endpoint does not list for the language is never kept silently.
import { apiBase } from './endpoint.js';

/** Flags for each language's default compiler (gcc/clang, rustc, node, javac). */
export const DEFAULT_FLAGS = Object.freeze({ c: '-O2 -Wall', cpp: '-O2 -Wall', rust: '-C opt-level=2', javascript: '', java: '' });

export const defaultFlags = (lang) => DEFAULT_FLAGS[lang] ?? '';

/** Compiler Explorer's language ids for ours (as endpoint.js spells them). */
const CE_LANG = { c: 'c', cpp: 'c++', rust: 'rust', javascript: 'javascript', java: 'java' };

const NAMES = { c: 'C', cpp: 'C++', rust: 'Rust', javascript: 'JavaScript', java: 'Java' };
export const langName = (lang) => NAMES[lang] ?? lang;

// One /api/languages request per endpoint base: {base: Promise<{lang: defaultCompilerId}>}.
const defaults = new Map();

/** The endpoint's default compiler id for `lang`, or null when it names none (or cannot say). */
export async function defaultCompiler(endpoint, lang) {
  const base = apiBase(endpoint);
  if (!defaults.has(base)) {
    defaults.set(base, fetch(`${base}/api/languages?fields=id,defaultCompiler`, { headers: { Accept: 'application/json' } })
      .then((r) => (r.ok ? r.json() : []))
      .then((list) => Object.fromEntries((Array.isArray(list) ? list : []).map((l) => [String(l.id), String(l.defaultCompiler ?? '')])))
      .catch(() => {
        defaults.delete(base); // ask again next time
        return {};
      }));
  }
  return (await defaults.get(base))[CE_LANG[lang] ?? lang] || null;
}

/**
 * The compiler and flags for `lang` given the endpoint's `list` for it ([{id}], not empty):
 * `current` while the list has it, else `preferred` (the endpoint's default) or the list's
 * first. A replaced compiler (`replaced`: its id, for the page to say so) takes the language's
 * default flags; kept flags follow a language change only while they were the old language's
 * defaults (`previousLang`), so flags the person wrote stay.
 */
export function compilerFor({ list, current, flags, lang, previousLang = lang, preferred }) {
  const listed = (id) => !!id && list.some((c) => c.id === id);
  if (current && !listed(current)) {
    return { compiler: listed(preferred) ? preferred : list[0].id, flags: defaultFlags(lang), replaced: current };
  }
  const followed = previousLang !== lang && flags.trim() === defaultFlags(previousLang) ? defaultFlags(lang) : flags;
  return { compiler: current || (listed(preferred) ? preferred : list[0].id), flags: followed, replaced: null };
}
