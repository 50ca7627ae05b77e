// Pure and fixed in size: the toolCallIds of the tools that reached a final status, in a Bloom filter, so a
// later permission request for one of them is known to be about a tool that already finished, in every
// output format (text and stream-json let a finished tool go; found by review: a tool announced `rm -rf ~`
// that failed, then a request for its id claiming read, was judged as read in text mode only). Such a
// request is rejected (decide.ts): nothing run now can be that tool's. Keeping each finished tool's kind and
// command instead cost the 200k-tool turn 16-40 MiB and half again its CPU (they outlive the young
// generation); the filter is 1 MiB whatever the turn, and adds no object per tool.

/** The filter's bits (1 MiB), and the bits each id sets: of ids never seen, about 3% are taken for finished
 * ones once a million tools have finished, 0.03% after 200k (those requests are rejected too). */
const BITS = 1 << 23;
const PROBES = 3;

// The id's bits: one pass over it (32-bit FNV-1a), the probes spread from it by double hashing (a second
// hash mixed from the first, odd so every probe differs).
function probes(id: string, each: (bit: number) => boolean): boolean {
  let h = 0x811c9dc5;
  for (let i = 0; i < id.length; i++) h = Math.imul(h ^ id.charCodeAt(i), 0x01000193);
  let g = h ^ (h >>> 16);
  g = Math.imul(g, 0x85ebca6b);
  g ^= g >>> 13;
  g = Math.imul(g, 0xc2b2ae35);
  g = (g ^ (g >>> 16)) | 1;
  for (let p = 0; p < PROBES; p++) if (!each((h + Math.imul(p, g)) & (BITS - 1))) return false;
  return true;
}

export class FinishedIds {
  // Allocated at the first finished tool.
  private bits: Uint8Array | undefined;

  add(toolCallId: string): void {
    const b = (this.bits ??= new Uint8Array(BITS >>> 3));
    probes(toolCallId, (bit) => {
      b[bit >>> 3]! |= 1 << (bit & 7);
      return true;
    });
  }

  // Did a tool with this id finish? Never wrongly false; rarely wrongly true (above).
  has(toolCallId: string): boolean {
    const b = this.bits;
    return b !== undefined && probes(toolCallId, (bit) => (b[bit >>> 3]! & (1 << (bit & 7))) !== 0);
  }
}
