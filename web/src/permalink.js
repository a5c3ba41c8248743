// Permalinks: the whole playground state in the URL fragment, so a link needs no server
// storage. Format: `#v1,` + base64url(deflate-raw(JSON)). The version prefix lets a later
// format read old links. Older v1 links name the variant `program`: decodeState gives the JSON
// as it is, and withDefaults (state.js) reads both, as it does for saved states.

const PREFIX = 'v1,';

/** The most a link may inflate to: more is no playground state anyone made (a deflate bomb
 *  would otherwise hold the tab for seconds), so decoding stops there. */
export const MAX_INFLATED_BYTES = 8 << 20;

export async function encodeState(state) {
  const json = new TextEncoder().encode(JSON.stringify(state));
  const packed = await pipe(json, new CompressionStream('deflate-raw'));
  return `#${PREFIX}${toBase64Url(packed)}`;
}

/** The state (an object) in a fragment, or null when there is none; throws with a readable reason. */
export async function decodeState(hash) {
  const body = hash.replace(/^#/, '');
  if (!body) return null;
  const comma = body.indexOf(',');
  const version = comma > 0 ? body.slice(0, comma) : '';
  if (!/^v\d+$/.test(version)) throw new Error('the link’s fragment is not Whittle playground state');
  if (`${version},` !== PREFIX) throw new Error(`the link was made by a newer playground (format ${version}); this page reads ${PREFIX.slice(0, -1)}`);
  // (base64 of at most the cap, deflated: a longer fragment is no link this page made)
  if (body.length > MAX_INFLATED_BYTES) throw tooLarge();
  let json;
  try {
    json = new TextDecoder().decode(await inflateCapped(fromBase64Url(body.slice(comma + 1)), MAX_INFLATED_BYTES));
  } catch (e) {
    if (e instanceof LinkTooLarge) throw e;
    throw new Error('the link is damaged (it does not decompress); was it cut short when copied?');
  }
  let state;
  try {
    state = JSON.parse(json);
  } catch {
    throw new Error('the link is damaged (its contents are not valid JSON); was it changed when copied?');
  }
  // A state is an object: anything else (null, a number, an array) is no playground state.
  if (state === null || typeof state !== 'object' || Array.isArray(state)) throw new Error('the link holds no playground state');
  return state;
}

class LinkTooLarge extends Error {}

const tooLarge = () =>
  new LinkTooLarge(`the link is too large: its state would take more than ${MAX_INFLATED_BYTES >> 20} MiB, which no playground state needs, so it was not opened`);

/** deflate-raw `bytes`, read chunk by chunk, stopping (and throwing LinkTooLarge) past `cap` bytes. */
async function inflateCapped(bytes, cap) {
  const reader = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate-raw')).getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > cap) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

async function pipe(bytes, transform) {
  const stream = new Blob([bytes]).stream().pipeThrough(transform);
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

function toBase64Url(bytes) {
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(text) {
  const bin = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}
