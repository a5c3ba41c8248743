// A generator's trace (the engine's whittle::generator::Trace as JSON: {nodes: [node]}, a node
// being {kind: 'int', label, value}, {kind: 'loop', label, iterations: [[node]]} or
// {kind: 'maybe', label, body: [node] | null}) compared with a reduced one, for the page to
// show the original's tree with what the reduction removed struck out. Pure: node tests it.

/** Whether `best`'s nodes can come from `orig`'s by deleting units (iterations, bodies). */
function seqFits(orig, best) {
  return orig.length === best.length && orig.every((o, i) => nodeFits(o, best[i]));
}

function nodeFits(o, b) {
  if (o.kind !== b.kind || o.label !== b.label) return false;
  switch (o.kind) {
    case 'int':
      return o.value === b.value;
    case 'loop':
      return matchIterations(o.iterations, b.iterations) !== null;
    case 'maybe':
      if (b.body === null) return true;
      return o.body !== null && seqFits(o.body, b.body);
    default:
      return false;
  }
}

/** For each of `orig`'s iterations, the index of the `best` iteration it became (or -1), or
 *  null when `best`'s are no subsequence of `orig`'s (greedy, in order). */
function matchIterations(orig, best) {
  const out = [];
  let j = 0;
  for (const it of orig) {
    if (j < best.length && seqFits(it, best[j])) out.push(j++);
    else out.push(-1);
  }
  return j === best.length ? out : null;
}

/**
 * The original trace's nodes marked against the best's: each node as in the trace plus
 * `removed` (true when it lies in a deleted unit), each loop's iterations as
 * `{removed, nodes}`, each taken selection's body as `{removed, nodes}`. `exact` is false when
 * the best is not the original with units deleted (a re-aligned replay changed a value):
 * then the nodes are the best's own, unmarked.
 */
export function markTrace(original, best) {
  if (!best) return { exact: true, nodes: markSeq(original.nodes, original.nodes, false) };
  if (!seqFits(original.nodes, best.nodes)) return { exact: false, nodes: markSeq(best.nodes, best.nodes, false) };
  return { exact: true, nodes: markSeq(original.nodes, best.nodes, false) };
}

function markSeq(orig, best, removed) {
  return orig.map((o, i) => markNode(o, removed ? null : best[i], removed));
}

function markNode(o, b, removed) {
  switch (o.kind) {
    case 'loop': {
      const match = b ? matchIterations(o.iterations, b.iterations) : o.iterations.map(() => -1);
      return {
        kind: 'loop',
        label: o.label,
        removed,
        iterations: o.iterations.map((it, i) => {
          const gone = removed || match[i] < 0;
          return { removed: gone, nodes: markSeq(it, gone ? [] : b.iterations[match[i]], gone) };
        }),
      };
    }
    case 'maybe': {
      if (o.body === null) return { kind: 'maybe', label: o.label, removed, body: null };
      const gone = removed || !b || b.body === null;
      return { kind: 'maybe', label: o.label, removed, body: { removed: gone, nodes: markSeq(o.body, gone ? [] : b.body, gone) } };
    }
    default:
      return { kind: o.kind, label: o.label, value: o.value, removed };
  }
}

/** How many units a marked trace keeps and has in all: {kept, total}. */
export function countUnits(nodes) {
  let kept = 0;
  let total = 0;
  const walk = (ns) => {
    for (const n of ns) {
      const units = n.kind === 'loop' ? n.iterations : n.kind === 'maybe' && n.body ? [n.body] : [];
      for (const u of units) {
        total++;
        if (!u.removed) kept++;
        walk(u.nodes);
      }
    }
  };
  walk(nodes);
  return { kept, total };
}
