// The engine speaks UTF-8 byte offsets; the editor speaks UTF-16 code units. For ASCII text
// they are the same, which is the common case and costs nothing.

export class Offsets {
  constructor(text) {
    // eslint-disable-next-line no-control-regex
    this.ascii = /^[\x00-\x7f]*$/.test(text);
    if (this.ascii) return;
    // byteAt[i] = UTF-8 offset of UTF-16 index i (for i in 0..=length).
    const byteAt = new Uint32Array(text.length + 1);
    let b = 0;
    for (let i = 0; i < text.length; i++) {
      byteAt[i] = b;
      const c = text.charCodeAt(i);
      if (c < 0x80) b += 1;
      else if (c < 0x800) b += 2;
      else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
        byteAt[++i] = b; // a surrogate pair is one 4-byte character: both halves map to its start
        b += 4;
      } else b += 3;
    }
    byteAt[text.length] = b;
    this.byteAt = byteAt;
  }

  toByte(index) {
    return this.ascii ? index : this.byteAt[Math.min(index, this.byteAt.length - 1)];
  }

  /** The UTF-16 index of a byte offset (the start of the character holding it). */
  toIndex(byte) {
    if (this.ascii) return byte;
    let lo = 0;
    let hi = this.byteAt.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (this.byteAt[mid] <= byte) lo = mid;
      else hi = mid - 1;
    }
    while (lo > 0 && this.byteAt[lo - 1] === this.byteAt[lo]) lo--; // not inside a surrogate pair
    return lo;
  }
}
