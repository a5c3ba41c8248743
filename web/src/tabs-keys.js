// The output pane's tabs as the ARIA tabs pattern: one tab in the Tab order (the selected
// one), the arrow keys, Home and End move between the tabs shown (and select them), each
// tab names its panel and each panel its tab.

/** Wires `tablist`'s [role=tab] buttons (data-tab) to their [data-panel] panels; `select(name)`
 *  shows one. Call `sync()` after the selection changed. */
export function tabKeys(tablist, select) {
  const tabs = () => [...tablist.querySelectorAll('[role=tab]')];
  for (const tab of tabs()) {
    const panel = document.querySelector(`[data-panel="${tab.dataset.tab}"]`);
    tab.id ||= `tab-${tab.dataset.tab}`;
    if (panel) {
      panel.id ||= `panel-${tab.dataset.tab}`;
      panel.setAttribute('role', 'tabpanel');
      panel.setAttribute('aria-labelledby', tab.id);
      tab.setAttribute('aria-controls', panel.id);
    }
  }
  const moves = { ArrowRight: 1, ArrowLeft: -1, Home: -Infinity, End: Infinity };
  tablist.addEventListener('keydown', (e) => {
    if (!(e.key in moves) || e.altKey || e.ctrlKey || e.metaKey) return;
    // (A mode hides some tabs: only the ones shown take part.)
    const shown = tabs().filter((t) => t.getClientRects().length > 0);
    const at = shown.indexOf(document.activeElement);
    if (at < 0) return;
    const step = moves[e.key];
    const next = Number.isFinite(step) ? shown[(at + step + shown.length) % shown.length] : shown[step < 0 ? 0 : shown.length - 1];
    e.preventDefault();
    select(next.dataset.tab);
    next.focus();
  });
  const sync = () => {
    for (const t of tabs()) t.tabIndex = t.getAttribute('aria-selected') === 'true' ? 0 : -1;
  };
  sync();
  return sync;
}
