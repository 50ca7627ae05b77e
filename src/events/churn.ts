// Pure: a Map for entries that come and go all the time (a tool, from its call to its final update: 200k
// of them in a long turn), which never rehashes the table it holds on a delete.
//
// Why not a Map and `delete`: V8 rehashes a Map's table into a new one when a delete leaves it sparse (every
// time the last entry goes) and when an insert finds it full of deleted slots, and the old table keeps a
// pointer to its successor (for iterators still walking it). Once one of those tables has been promoted to
// the old generation, that pointer keeps every later table alive through the young generation's
// collections, so each is promoted in turn: a text-mode turn of 200k tool pairs grew the old generation by
// ~15 MiB of dead tables between full collections (peak RSS 57 -> 73 MiB), or not, by how a scavenge fell.
// Here a delete only marks the entry; the live entries move to a fresh Map once the dead outnumber them
// (and there are more than a few), and the old Map, never rehashed, is garbage with all its tables.

const DEAD: unique symbol = Symbol('dead');
/** Dead entries tolerated before a rebuild, whatever the live count: a rebuild of a handful is cheap. */
const SLACK = 32;

export class ChurnMap<K, V> {
  private map = new Map<K, V | typeof DEAD>();
  private dead = 0;

  get size(): number {
    return this.map.size - this.dead;
  }

  /** The entries held, the dead ones included: never more than twice the live ones plus SLACK + 1. */
  get footprint(): number {
    return this.map.size;
  }

  get(key: K): V | undefined {
    const v = this.map.get(key);
    return v === DEAD ? undefined : v;
  }

  has(key: K): boolean {
    const v = this.map.get(key);
    return v !== DEAD && (v !== undefined || this.map.has(key));
  }

  // A key set again after its delete goes last, as in a Map (a rare path: the two calls rehash).
  set(key: K, value: V): this {
    if (this.map.get(key) === DEAD) {
      this.map.delete(key);
      this.dead--;
    }
    this.map.set(key, value);
    return this;
  }

  delete(key: K): boolean {
    // Nothing held (a tool's verdicts, mostly): no lookup at all.
    if (this.size === 0 || !this.has(key)) return false;
    // In place: an existing key's value is replaced without touching the table's layout.
    this.map.set(key, DEAD);
    if (++this.dead > SLACK && this.dead > this.size) this.rebuild();
    return true;
  }

  // The live values in order, as a snapshot: a rebuild while a caller walks them cannot skip one or bring a
  // deleted one back (a Map's own iterator would also see what is added meanwhile; no caller needs that).
  values(): V[] {
    const out: V[] = [];
    for (const v of this.map.values()) if (v !== DEAD) out.push(v);
    return out;
  }

  // The live entries, in their order, into a fresh Map.
  private rebuild(): void {
    const fresh = new Map<K, V | typeof DEAD>();
    for (const [k, v] of this.map) if (v !== DEAD) fresh.set(k, v);
    this.map = fresh;
    this.dead = 0;
  }
}
