// Pure: how deep a parsed message nests. V8's JSON.parse takes any depth, but JSON.stringify and every
// recursive walk overflow the stack on a 100k-deep `[[[...]]]`: a message nested deeper than MAX_DEPTH is
// refused at the boundary (a protocol warning), so nothing past it ever meets one.

/** The deepest nesting of arrays and objects a message may have (documented in the README). */
export const MAX_DEPTH = 512;

// A line shorter than this cannot nest MAX_DEPTH deep (each level needs an opening and a closing bracket).
const MIN_DEEP_LINE = 2 * MAX_DEPTH;

// Does the value (parsed from `line`) nest deeper than max? Iterative: it never recurses itself.
export function tooDeep(value: unknown, lineLength: number, max = MAX_DEPTH): boolean {
  // Stryker disable next-line EqualityOperator: MIN_DEEP_LINE characters nest MAX_DEPTH deep at most
  if (lineLength < MIN_DEEP_LINE) return false;
  if (value === null || typeof value !== 'object') return false;
  const stack: Array<[object, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [v, depth] = stack.pop()!;
    if (depth > max) return true;
    const items: unknown[] = Array.isArray(v) ? v : Object.values(v);
    for (const child of items)
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
  }
  return false;
}
