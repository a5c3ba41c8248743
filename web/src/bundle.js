// @ts-check
// A tree of files as one text, as the engine's folder sessions carry it in their queries
// (crate/engine/src/folder/bundle.rs): `whittle-folder 1` and a newline, then each file as a
// header line `LEN PATH` (LEN its contents' length in UTF-8 bytes) and its contents. No DOM.

const MAGIC = 'whittle-folder 1\n';

/** The files of a bundle, `[{filename, contents}]`; null if `text` is not one.
 *  @param {string} text @returns {{filename: string, contents: string}[] | null} */
export function decodeBundle(text) {
  if (!text.startsWith(MAGIC)) return null;
  const bytes = new TextEncoder().encode(text);
  const decoder = new TextDecoder();
  const files = [];
  let at = MAGIC.length; // (the magic is ASCII: as many bytes as characters)
  while (at < bytes.length) {
    const end = bytes.indexOf(10, at);
    if (end < 0) return null;
    const header = decoder.decode(bytes.subarray(at, end));
    const space = header.indexOf(' ');
    const len = Number(header.slice(0, space));
    if (space < 1 || !Number.isInteger(len) || end + 1 + len > bytes.length) return null;
    files.push({ filename: header.slice(space + 1), contents: decoder.decode(bytes.subarray(end + 1, end + 1 + len)) });
    at = end + 1 + len;
  }
  return files;
}

/** One compile's parts of a bundle: the program (the file named `main`; '' when deleted) and
 *  the files beside it. @param {string} text @param {string} main */
export function unbundle(text, main) {
  const files = decodeBundle(text) ?? [];
  const program = files.find((f) => f.filename === main);
  return { source: program?.contents ?? '', files: files.filter((f) => f !== program) };
}
