// Text formatting for the bench: aligned tables and the small figures in their cells.

/** Prints rows (arrays of strings) under `header` with columns padded to the widest cell. */
export function formatTable(header, rows) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((r) => String(r[i] ?? '').length)));
  const line = (r) =>
    r
      .map((cell, i) => {
        const s = String(cell ?? '');
        // Text columns (the first two) to the left, figures to the right.
        return i < 2 ? s.padEnd(widths[i]) : s.padStart(widths[i]);
      })
      .join('  ')
      .trimEnd();
  const rule = widths.map((w) => '-'.repeat(w)).join('  ');
  return [line(header), rule, ...rows.map(line)].join('\n');
}

/** "6133 → 11", or "-" when the figures are unknown. */
export function beforeAfter(before, after) {
  if (before == null && after == null) return '-';
  return `${before ?? '?'} → ${after ?? '?'}`;
}

export function seconds(s) {
  return s == null ? '-' : s.toFixed(1);
}

export function count(n) {
  return n == null ? '-' : String(n);
}

export function percent(part, whole) {
  return part == null || !whole ? '-' : `${((100 * part) / whole).toFixed(1)}%`;
}

export function ratio(a, b) {
  return a == null || b == null || b === 0 ? '-' : (a / b).toFixed(2);
}
