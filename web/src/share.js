// Sharing: the Share dialog (a permalink and an embed snippet), and embed mode, the read-only
// page at `/e#…` (or `?embed=1`) that other sites frame, with its "open in playground" link.
import { encodeState } from './permalink.js';
import { $, copy } from './ui.js';

/** Whether the page at `loc` (a Location) is an embed. */
export const isEmbed = (loc) => /\/e\/?$/.test(loc.pathname) || new URLSearchParams(loc.search).get('embed') === '1';

/** The playground's address for a permalink fragment, from the playground or an embed. */
export const playgroundUrl = (loc, hash) => `${loc.origin}${loc.pathname.replace(/\/e\/?$/, '/')}${hash}`;

/** The embed's address for a permalink fragment. */
export const embedUrl = (loc, hash) => `${loc.origin}${loc.pathname.replace(/\/(e\/?)?$/, '/e')}${hash}`;

export const embedSnippet = (url) =>
  `<iframe src="${url}" width="100%" height="420" style="border:1px solid #ddd;border-radius:8px" title="Whittle playground" loading="lazy"></iframe>`;

/**
 * Wires the Share button: shareable() gives the state to put in the link (shareableState in
 * state.js); onShared() runs once the address bar shows the new link.
 */
export function setUpSharing({ shareable, onShared }) {
  $('share').addEventListener('click', async () => {
    const s = shareable();
    const hash = await encodeState(s);
    const link = playgroundUrl(location, hash);
    history.replaceState(null, '', hash);
    onShared();
    $('share-link').value = link;
    $('share-embed').value = embedSnippet(embedUrl(location, hash));
    $('share-info').textContent = `${(link.length / 1024).toFixed(1)} KiB link. ${s.verdicts ? `It replays the reduction (${s.verdicts.length} recorded verdicts) without any compiler.` : 'It holds no recorded reduction: reduce first to include one.'}`;
    $('share-dialog').showModal();
    $('share-link').select();
    copy(link, $('share-copy'));
  });
  $('share-copy').addEventListener('click', () => copy($('share-link').value, $('share-copy')));
  $('share-copy-embed').addEventListener('click', () => copy($('share-embed').value, $('share-copy-embed')));
}

/** Embed mode: read-only editors are the caller's; here the page's look, the controls an
 *  embed may not change, and the link to the same state in the full playground. */
export function enterEmbedMode() {
  document.body.classList.add('embed');
  $('lang').disabled = true;
  $('mode').disabled = true;
  const link = $('open-playground');
  link.href = `${location.pathname.replace(/\/e\/?$/, '/')}${location.hash}`;
  link.hidden = false;
}
