// The panel a permalink opens with: what the link asks this machine and the network to do
// (linkRequests in state.js), and, until the person allows it, the one button that lets the
// page compile, contact the link's endpoint and run its JavaScript property. The page decides
// (needsConsent); this module only draws and reports the button.
import { linkRequests } from './state.js';
import { $ } from './ui.js';

const ACTION_LABEL = { check: 'Allow and check', reduce: 'Allow and reduce' };

export class LinkPanel {
  /** onAllow(): the person allowed the link. */
  constructor({ onAllow }) {
    this.el = $('link-panel');
    this.pending = null; // 'check' | 'reduce': what they pressed before allowing
    $('link-allow').addEventListener('click', () => onAllow());
    $('link-close').addEventListener('click', () => (this.el.hidden = true));
  }

  /** Shows what `state` asks; `consent`: whether the page waits for the person's leave. */
  show(state, { consent, replays }) {
    const items = linkRequests(state).map(({ key, text, warn }) => {
      const li = document.createElement('li');
      li.textContent = text;
      li.dataset.ask = key;
      li.classList.toggle('warn', warn);
      return li;
    });
    $('link-requests').replaceChildren(...items);
    const lead = [
      consent && 'Nothing below happens until you press Allow.',
      replays && 'Its recorded reduction replays here without any of it.',
      'Checking or reducing this link:',
    ];
    $('link-lead').textContent = lead.filter(Boolean).join(' ');
    $('link-allow').hidden = !consent;
    this.el.classList.toggle('allowed', !consent);
    this.el.classList.remove('attention');
    this.setPending(null);
    this.el.hidden = false;
  }

  /** The person pressed Check or Reduce before allowing: show the panel, and offer to do it. */
  ask(action) {
    this.setPending(action);
    this.el.hidden = false;
    this.el.classList.add('attention');
    $('link-allow').focus();
  }

  setPending(action) {
    this.pending = action;
    $('link-allow').textContent = ACTION_LABEL[action] ?? 'Allow';
  }

  /** Allowed: keep the list (what the page now does) without the button. */
  allowed() {
    $('link-allow').hidden = true;
    $('link-lead').textContent = 'Allowed: checking or reducing this link:';
    this.el.classList.add('allowed');
    this.el.classList.remove('attention');
    const action = this.pending;
    this.setPending(null);
    return action;
  }
}
