// Opening a Compiler Explorer link in the page: pasted into the top bar's field or into an
// editor, dropped anywhere on the page, or given as `?ce=<url>` in the page's address (a
// bookmarklet's way in). The link is read (ce-link.js; a short link through its instance's
// /api/shortlinkinfo), the person picks an editor when it has several, and the page's hook
// `open` takes the program, its language, compiler, flags and execution. The page asks before
// it compiles anything at the link's instance, as it does for its own links.
import { CeLinkError, describeSession, isCeFragment, readLink, recognise, settingsOf } from './ce-link.js';
import { DEFAULT_CE_BASE } from './endpoint.js';
import { $ } from './ui.js';

/**
 * open(settings, base): the page takes a session's settings (settingsOf) and the instance's
 * address; fail(message): a link could not be opened; busy(): why not now, or null.
 */
export function setUpCeImport({ open, fail, busy }) {
  const go = async (text) => {
    const why = busy();
    if (why) return fail(why);
    try {
      const { base, sessions } = await readLink(recognise(text));
      if (sessions.length === 0) throw new CeLinkError('it has no source editor');
      const session = sessions.length === 1 ? sessions[0] : await pick(sessions);
      if (!session) return; // the person closed the choice
      open(settingsOf(session), base);
    } catch (e) {
      fail(`Could not open the Compiler Explorer link: ${e instanceof CeLinkError ? e.message : e.message ?? e}`);
    }
  };
  const isCeLink = (text) => !!text && !!recognise(text);

  const field = $('ce-link');
  const fromField = () => {
    const text = field.value.trim();
    if (!text) return;
    if (!isCeLink(text)) return fail('That is not a Compiler Explorer link: paste the address of a godbolt.org page (Share → Full link or Short link), or of another instance.');
    field.value = '';
    go(text);
  };
  field.addEventListener('paste', () => setTimeout(fromField)); // (the value is there after the event)
  field.addEventListener('keydown', (e) => e.key === 'Enter' && fromField());
  field.addEventListener('change', fromField);

  // A link pasted into an editor, or dropped anywhere: opened instead of inserted as text.
  document.addEventListener('paste', (e) => {
    if (e.target === field) return;
    const text = e.clipboardData?.getData('text/plain')?.trim();
    if (!isCeLink(text)) return;
    e.preventDefault();
    e.stopPropagation();
    go(text);
  }, true);
  const dropped = (e) => (e.dataTransfer?.getData('text/uri-list') || e.dataTransfer?.getData('text/plain') || '').split('\n').find((l) => l && !l.startsWith('#'))?.trim();
  document.addEventListener('dragover', (e) => {
    if (e.dataTransfer?.types.some((t) => t === 'text/uri-list' || t === 'text/plain')) e.preventDefault();
  }, true);
  document.addEventListener('drop', (e) => {
    const text = dropped(e);
    if (!isCeLink(text)) {
      // Text dropped into a field or an editor is theirs; anywhere else it would make the
      // browser leave the page (and its work) for a dropped link.
      if (text && !e.target?.closest?.('input, textarea, [contenteditable="true"]')) {
        e.preventDefault();
        fail('That is not a Compiler Explorer link: drop the address of a godbolt.org page (or of another instance).');
      }
      return;
    }
    e.preventDefault();
    e.stopPropagation();
    go(text);
  }, true);

  return {
    /** `?ce=<url>` in the page's address, or Compiler Explorer state pasted as its fragment
     *  (read as godbolt.org's): open it once (and take it out of the address). */
    fromAddress() {
      if (isCeFragment(location.hash)) {
        const fragment = location.hash;
        history.replaceState(null, '', `${location.pathname}${location.search}`);
        return go(`${DEFAULT_CE_BASE}/${fragment}`);
      }
      const params = new URLSearchParams(location.search);
      const text = params.get('ce');
      if (!text) return;
      params.delete('ce');
      const rest = params.toString();
      history.replaceState(null, '', `${location.pathname}${rest ? `?${rest}` : ''}${location.hash}`);
      if (!isCeLink(text)) return fail('The address’s ?ce= is not a Compiler Explorer link.');
      go(text);
    },
  };
}

/** The person picks one of a link's editors: a promise of the session, or null. */
function pick(sessions) {
  const dialog = $('ce-pick');
  const list = $('ce-pick-list');
  return new Promise((resolve) => {
    list.replaceChildren(...sessions.map((s, i) => {
      const b = document.createElement('button');
      b.type = 'button';
      b.textContent = describeSession(s, i);
      b.dataset.editor = String(i);
      b.addEventListener('click', () => {
        resolve(s);
        dialog.close();
      });
      return b;
    }));
    dialog.addEventListener('close', () => resolve(null), { once: true });
    dialog.showModal();
  });
}
