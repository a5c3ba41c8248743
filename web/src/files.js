// @ts-check
// The files beside the program (Compiler Explorer's multi-file mode): what a name may be, and
// a link's or storage's list cleaned. No DOM, so that node can test it and state.js use it.

/** @typedef {{filename: string, contents: string}} ExtraFile */

/** The most files a program may have beside it (whittle serve's limit). */
export const MAX_FILES = 64;

const PART = '[A-Za-z0-9_+-][A-Za-z0-9_+.-]*';
const NAME = new RegExp(`^${PART}(/${PART}){0,3}$`);

/** Whether `name` is one the endpoints take: a relative path of at most four plain parts,
 *  none starting with `.`, and not the program's own `example.*`. @param {unknown} name */
export const isFileName = (name) =>
  typeof name === 'string' && name.length <= 200 && NAME.test(name) && !/^example\.[^/]*$/.test(name);

const PROGRAM_EXTENSIONS = { c: 'c', cpp: 'cpp', rust: 'rs', javascript: 'js', java: 'java' };

/** The program's own name in a compile, as the endpoints name it. @param {string} lang */
export const programName = (lang) => `example.${PROGRAM_EXTENSIONS[lang] ?? 'c'}`;

/** The files a link or storage brought, kept only where each is a file with a plain name,
 *  once each, at most MAX_FILES. @param {unknown} list @returns {ExtraFile[]} */
export function cleanFiles(list) {
  if (!Array.isArray(list)) return [];
  const seen = new Set();
  const out = [];
  for (const f of list) {
    if (typeof f !== 'object' || f === null || !isFileName(f.filename) || typeof f.contents !== 'string') continue;
    if (seen.has(f.filename) || out.length >= MAX_FILES) continue;
    seen.add(f.filename);
    out.push({ filename: f.filename, contents: f.contents });
  }
  return out;
}
