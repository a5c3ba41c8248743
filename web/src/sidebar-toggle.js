// The settings sidebar folds away (a button in the top bar), so that the program and the
// results have the screen; it starts folded on narrow screens, where it would fill the first.
import { $ } from './ui.js';

const NARROW = '(max-width: 1000px)';

export function setUpSidebarToggle() {
  const button = $('sidebar-toggle');
  const set = (open) => {
    document.body.classList.toggle('sidebar-closed', !open);
    button.setAttribute('aria-expanded', String(open));
  };
  set(!matchMedia(NARROW).matches);
  button.addEventListener('click', () => {
    const open = button.getAttribute('aria-expanded') !== 'true';
    set(open);
    if (open) $('sidebar').scrollIntoView({ block: 'nearest' });
  });
}
