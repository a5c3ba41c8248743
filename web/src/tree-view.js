// The parse tree beside the source: collapsible rows of `field: kind [range]`. Rows are built
// lazily (children on expand), so a tree of a hundred thousand nodes costs only what is shown.
//
// Hovering a row reports its node (the page marks its text in the editor); clicking selects
// it; revealAt(byte) selects the deepest node at an editor position, expanding its ancestors.
// With the keyboard (an ARIA tree, its selected row the active descendant): Up and Down move
// between the rows shown, Right opens a node (or goes to its first child), Left closes it (or
// goes to its parent).

const EXPAND_ALL_BELOW = 1500; // nodes: smaller trees open fully, larger ones to EXPAND_DEPTH
const EXPAND_DEPTH = 2;
const INDENT_EM = 1.1;

export class TreeView {
  constructor(container, { onHover, onSelect } = {}) {
    this.el = container;
    this.onHover = onHover ?? (() => {});
    this.onSelect = onSelect ?? (() => {});
    this.nodes = [];
    this.showAnon = false;
    this.rows = new Map(); // node id -> row element (rendered ones)
    this.open = new Set(); // expanded node ids
    this.selected = -1;
    this.el.tabIndex = 0;
    this.el.addEventListener('keydown', (e) => this.key(e));
    this.el.addEventListener('mouseover', (e) => {
      const id = rowId(e.target);
      if (id !== null && id !== this.hovered) {
        this.hovered = id;
        this.onHover(this.nodes[id]);
      }
    });
    this.el.addEventListener('mouseleave', () => {
      this.hovered = null;
      this.onHover(null);
    });
    this.el.addEventListener('click', (e) => {
      const id = rowId(e.target);
      if (id === null) return;
      if (e.target.classList.contains('tree-toggle')) this.toggle(id);
      else {
        this.select(id);
        this.onSelect(this.nodes[id]);
      }
    });
  }

  key(e) {
    if (e.altKey || e.ctrlKey || e.metaKey || !this.nodes.length) return;
    const shown = [...this.rows.keys()].filter((id) => this.rows.get(id).isConnected).sort((a, b) => this.rows.get(a).compareDocumentPosition(this.rows.get(b)) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1);
    const at = shown.indexOf(this.selected);
    const kids = at >= 0 ? this.visibleChildren(this.selected) : [];
    let next = null;
    if (e.key === 'ArrowDown') next = shown[Math.min(at + 1, shown.length - 1)];
    else if (e.key === 'ArrowUp') next = shown[Math.max(at - 1, 0)];
    else if (e.key === 'ArrowRight' && kids.length) {
      if (this.open.has(this.selected)) next = kids[0];
      else this.toggle(this.selected);
    } else if (e.key === 'ArrowLeft' && at >= 0) {
      if (kids.length && this.open.has(this.selected)) this.toggle(this.selected);
      else next = this.nodes.findIndex((n) => n.children.includes(this.selected));
    } else return;
    e.preventDefault();
    if (next !== null && next >= 0) {
      this.select(next);
      this.onSelect(this.nodes[next]);
      this.rows.get(next)?.scrollIntoView({ block: 'nearest' });
    }
  }

  /** Shows a new tree. `position(byte)` gives {line, column} for the range labels. */
  setTree(nodes, position) {
    this.nodes = nodes ?? [];
    this.position = position;
    this.selected = -1;
    this.open = this.defaultOpen();
    this.render();
  }

  setShowAnonymous(show) {
    this.showAnon = show;
    this.render();
  }

  defaultOpen() {
    const all = this.nodes.length < EXPAND_ALL_BELOW;
    const open = new Set();
    this.nodes.forEach((n, id) => {
      if (all || n.depth < EXPAND_DEPTH) open.add(id);
    });
    return open;
  }

  visible(n) {
    return this.showAnon || n.named || n.error || n.missing;
  }

  visibleChildren(id) {
    return this.nodes[id].children.filter((c) => this.visible(this.nodes[c]));
  }

  render() {
    this.rows.clear();
    const frag = document.createDocumentFragment();
    if (this.nodes.length) this.renderNode(0, 0, frag);
    this.el.replaceChildren(frag);
    if (this.selected >= 0) this.select(this.selected);
  }

  renderNode(id, indent, parent) {
    const n = this.nodes[id];
    const row = document.createElement('div');
    row.className = `tree-row${n.error || n.missing ? ' tree-error' : ''}`;
    row.dataset.id = id;
    row.id = `tree-node-${id}`;
    row.setAttribute('role', 'treeitem');
    row.setAttribute('aria-level', String(indent + 1));
    row.setAttribute('aria-selected', 'false');
    row.style.paddingLeft = `${indent * INDENT_EM + 0.3}em`;
    const kids = this.visibleChildren(id);
    const toggle = span('tree-toggle', kids.length ? (this.open.has(id) ? '▾' : '▸') : '');
    toggle.setAttribute('aria-hidden', 'true');
    if (kids.length) row.setAttribute('aria-expanded', String(this.open.has(id)));
    row.append(toggle);
    if (n.field) row.append(span('tree-field', `${n.field}: `));
    const kind = n.missing ? `MISSING ${n.kind}` : n.kind;
    row.append(span(n.named ? 'tree-kind' : 'tree-anon', n.named ? kind : JSON.stringify(kind)));
    row.append(span('tree-range', this.rangeLabel(n)));
    parent.append(row);
    this.rows.set(id, row);
    const box = document.createElement('div');
    box.className = 'tree-children';
    box.setAttribute('role', 'group');
    box.dataset.of = id;
    parent.append(box);
    if (this.open.has(id)) for (const c of kids) this.renderNode(c, indent + 1, box);
  }

  rangeLabel(n) {
    if (!this.position) return `[${n.start}..${n.end}]`;
    const a = this.position(n.start);
    const b = this.position(n.end);
    return `[${a.line}:${a.column}–${b.line}:${b.column}]`;
  }

  toggle(id) {
    if (this.open.has(id)) this.open.delete(id);
    else this.open.add(id);
    this.rerender(id);
  }

  /** Re-renders one node's row and subtree in place. */
  rerender(id) {
    const row = this.rows.get(id);
    if (!row) return;
    const box = row.nextSibling;
    const indent = Math.round((parseFloat(row.style.paddingLeft) - 0.3) / INDENT_EM);
    const frag = document.createDocumentFragment();
    this.forgetSubtree(id);
    this.renderNode(id, indent, frag);
    box.remove();
    row.replaceWith(frag);
    if (this.selected >= 0) this.select(this.selected);
  }

  forgetSubtree(id) {
    this.rows.delete(id);
    for (const c of this.nodes[id].children) if (this.rows.has(c)) this.forgetSubtree(c);
  }

  select(id) {
    const old = this.rows.get(this.selected);
    old?.classList.remove('selected');
    old?.setAttribute('aria-selected', 'false');
    this.selected = id;
    const row = this.rows.get(id);
    row?.classList.add('selected');
    row?.setAttribute('aria-selected', 'true');
    if (row) this.el.setAttribute('aria-activedescendant', row.id);
    else this.el.removeAttribute('aria-activedescendant');
  }

  /** Selects the deepest shown node containing `byte`, opening its ancestors; scrolls to it. */
  revealAt(byte) {
    if (!this.nodes.length) return;
    const path = [0];
    for (let id = 0; ; ) {
      const next = this.visibleChildren(id).find((c) => this.nodes[c].start <= byte && byte < this.nodes[c].end);
      if (next === undefined) break;
      path.push(next);
      id = next;
    }
    // Open the ancestors, re-rendering from the highest one that was closed.
    const closed = path.slice(0, -1).find((id) => !this.open.has(id));
    path.slice(0, -1).forEach((id) => this.open.add(id));
    if (closed !== undefined) this.rerender(closed);
    const target = path[path.length - 1];
    this.select(target);
    this.rows.get(target)?.scrollIntoView({ block: 'nearest' });
  }
}

function span(cls, text) {
  const s = document.createElement('span');
  s.className = cls;
  s.textContent = text;
  return s;
}

function rowId(target) {
  const row = target.closest?.('.tree-row');
  return row ? Number(row.dataset.id) : null;
}
