// Live progress of a reduction: figures and a chart of tokens (log scale) against queries.
const SVG = 'http://www.w3.org/2000/svg';

export class ProgressView {
  constructor({ chart, tokens, queries, qps, cache, pass, elapsed, engine, guard, limit, undone, passes, history }) {
    this.el = { chart, tokens, queries, qps, cache, pass, elapsed, engine, guard, limit, undone, passes, history };
    this.reset();
    new ResizeObserver(() => this.draw()).observe(chart);
  }

  reset() {
    this.points = []; // [queries, tokens]
    this.before = null;
    // Seconds per pass, as the page saw it: the time between two updates goes to the pass
    // the earlier one said was running (the engine itself keeps no clock).
    this.passSeconds = new Map();
    this.lastUpdate = null; // { pass, ms }
    for (const k of ['tokens', 'qps', 'pass', 'elapsed', 'engine']) if (this.el[k]) this.el[k].textContent = '–';
    this.el.queries.textContent = '0';
    this.el.cache.textContent = '0';
    for (const k of ['guard', 'limit', 'undone']) if (this.el[k]) this.el[k].parentElement.hidden = true;
    this.el.history.replaceChildren();
    this.el.passes?.replaceChildren();
    this.draw();
  }

  /** A pair's automatic seed is being searched for: its tests so far (a 'seeding' message). */
  seeding(stats, elapsedMs) {
    if (!stats) return;
    this.el.queries.textContent = `${stats.queries} of ${stats.budget}`;
    this.el.pass.textContent = 'finding a seed';
    this.el.elapsed.textContent = formatDuration(elapsedMs ?? 0);
    const seconds = (elapsedMs ?? 0) / 1000;
    if (seconds > 0.2) this.el.qps.textContent = (stats.queries / seconds).toFixed(1);
  }

  /** Takes a 'progress' or 'finished' message from the worker. */
  update({ type, stats, elapsedMs, engineMs, clientCacheHits = 0, replayed, guardRefused, limitMs, timedOut, confirm, undone, flagsTried }) {
    if (!stats) return;
    this.before = stats.tokens_before;
    const queries = replayed ?? stats.queries; // a replay's x axis: the recorded verdicts used
    const last = this.points[this.points.length - 1];
    if (!last) this.points.push([0, stats.tokens_before]);
    if (!last || last[1] !== stats.tokens_now || stats.done) this.points.push([queries, stats.tokens_now]);
    else last[0] = Math.max(last[0], queries); // extend the flat part
    this.el.tokens.textContent = `${stats.tokens_before} → ${stats.tokens_now}`;
    this.el.queries.textContent = replayed === undefined ? String(stats.queries) : `0 (${replayed} replayed)`;
    const seconds = elapsedMs / 1000;
    this.el.qps.textContent = seconds > 0.2 && replayed === undefined ? (stats.queries / seconds).toFixed(1) : '–';
    this.el.cache.textContent = String(stats.cache_hits + clientCacheHits);
    // (after the program, its flags: config.reduceFlags)
    const flags = flagsTried !== undefined && type !== 'finished' ? `flags (${flagsTried} tried)` : null;
    this.el.pass.textContent = flags ?? (stats.done ? 'done' : `${stats.pass}${stats.round ? ` (round ${stats.round + 1})` : ''}`);
    this.el.elapsed.textContent = formatDuration(elapsedMs);
    if (this.el.engine && engineMs !== undefined && elapsedMs > 0) {
      this.el.engine.textContent = `${Math.min(100, (100 * engineMs) / elapsedMs).toFixed(1)}% (${formatDuration(engineMs)})`;
    }
    if (this.el.limit && limitMs !== undefined) {
      this.el.limit.parentElement.hidden = false;
      this.el.limit.textContent = `${timedOut} (limit ${formatDuration(limitMs)})`;
    }
    if (this.el.undone && confirm) {
      this.el.undone.parentElement.hidden = false;
      this.el.undone.textContent = `${undone} (each step confirmed ${confirm} more times)`;
    }
    if (this.el.guard && guardRefused !== undefined) {
      this.el.guard.parentElement.hidden = false;
      this.el.guard.textContent = String(guardRefused);
    }
    this.timePasses(stats, elapsedMs, replayed !== undefined);
    this.draw();
  }

  /** Each pass's figures so far: queries, successes, tokens and bytes removed, seconds. */
  timePasses(stats, elapsedMs, replay) {
    const last = this.lastUpdate;
    if (last && !replay && elapsedMs > last.ms) {
      this.passSeconds.set(last.pass, (this.passSeconds.get(last.pass) ?? 0) + (elapsedMs - last.ms) / 1000);
    }
    this.lastUpdate = { pass: stats.pass, ms: elapsedMs };
    if (!this.el.passes || !Array.isArray(stats.passes)) return;
    const rows = stats.passes.map((p) => {
      const s = this.passSeconds.get(p.pass);
      return [p.pass, String(p.queries), String(p.accepted), String(p.tokens_removed), String(p.bytes_removed), s === undefined || replay ? '–' : s.toFixed(1)];
    });
    fillTable(this.el.passes, [['pass', 'queries', 'accepted', 'tokens removed', 'bytes removed', 's'], ...rows]);
  }

  setHistory(history) {
    const rows = [['pass', 'round', 'tokens', 'queries']];
    // One row per pass run, merging consecutive steps of the same pass.
    const merged = [];
    for (const h of history ?? []) {
      const prev = merged[merged.length - 1];
      if (prev && prev.pass === h.pass && prev.round === h.round) Object.assign(prev, { tokens_after: h.tokens_after, queries: h.queries });
      else merged.push({ ...h });
    }
    for (const h of merged) rows.push([h.pass, String(h.round + 1), `${h.tokens_before} → ${h.tokens_after}`, String(h.queries)]);
    fillTable(this.el.history, merged.length ? rows : []);
  }

  draw() {
    const svg = this.el.chart;
    const w = svg.clientWidth || 400;
    const h = svg.clientHeight || 200;
    svg.setAttribute('viewBox', `0 0 ${w} ${h}`);
    const pad = { l: 44, r: 10, t: 10, b: 22 };
    const children = [];
    const pts = this.points;
    const maxQ = Math.max(10, ...pts.map((p) => p[0]));
    const maxT = Math.max(10, this.before ?? 10);
    const minT = 1;
    const x = (q) => pad.l + (q / maxQ) * (w - pad.l - pad.r);
    const y = (t) => pad.t + (1 - Math.log(Math.max(t, minT) / minT) / Math.log(maxT / minT)) * (h - pad.t - pad.b);
    // Axes: powers of ten on the token axis, a few ticks on the query axis.
    if (this.before) children.push(el('text', { x: pad.l - 6, y: y(maxT) + 3, 'text-anchor': 'end', class: 'axis' }, String(maxT)));
    for (let t = 1; t <= maxT / 2; t *= 10) {
      children.push(el('text', { x: pad.l - 6, y: y(t) + 3, 'text-anchor': 'end', class: 'axis' }, String(t)));
      children.push(el('line', { x1: pad.l, x2: w - pad.r, y1: y(t), y2: y(t), stroke: 'currentColor', 'stroke-opacity': 0.08 }));
    }
    for (const q of niceTicks(maxQ)) {
      children.push(el('text', { x: x(q), y: h - 6, 'text-anchor': 'middle', class: 'axis' }, String(q)));
    }
    children.push(el('text', { x: w - pad.r, y: h - 6, 'text-anchor': 'end', class: 'axis' }, 'queries'));
    if (pts.length) {
      // A step line: the size holds until the next accepted candidate.
      let d = `M${x(pts[0][0])},${y(pts[0][1])}`;
      for (let i = 1; i < pts.length; i++) d += `H${x(pts[i][0])}V${y(pts[i][1])}`;
      children.push(el('path', { d, class: 'line' }));
    }
    svg.replaceChildren(...children);
  }
}

/** `table`'s rows: the first one a header. */
function fillTable(table, rows) {
  table.replaceChildren(...rows.map((cells, i) => {
    const tr = document.createElement('tr');
    for (const c of cells) {
      const td = document.createElement(i === 0 ? 'th' : 'td');
      td.textContent = c;
      tr.append(td);
    }
    return tr;
  }));
}

function el(name, attrs, text) {
  const e = document.createElementNS(SVG, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (text !== undefined) e.textContent = text;
  return e;
}

function niceTicks(max) {
  const step = 10 ** Math.floor(Math.log10(max / 2 || 1));
  const n = max / step > 10 ? step * (max / step > 25 ? 5 : 2) : step;
  const ticks = [];
  for (let q = 0; q <= max * 0.9; q += n) ticks.push(q);
  return ticks;
}

export function formatDuration(ms) {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  return `${Math.floor(s / 60)} min ${Math.round(s % 60)} s`;
}
