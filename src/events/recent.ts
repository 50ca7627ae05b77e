// Pure: a window of recently seen ids, kept in two generations so remembering and forgetting are O(1).
// (Deleting a Set's oldest entry one at a time leaves holes V8 skips on every `values().next()`: a long
// turn made that quadratic.)
export class RecentIds {
  private current = new Set<string>();
  private previous = new Set<string>();

  /** Remembers at least the last `size` ids added (and at most twice that). */
  constructor(private readonly size: number) {}

  add(id: string): void {
    if (this.current.size >= this.size) {
      this.previous = this.current;
      this.current = new Set();
    }
    this.current.add(id);
  }

  has(id: string): boolean {
    return this.current.has(id) || this.previous.has(id);
  }
}
