// Pure: the JSON value an answer ends with, for --output-schema: the whole answer if it parses, else the
// last fenced ```json block, else the last balanced JSON object or array in it.

export type Extracted = { ok: true; value: unknown } | { ok: false; reason: string };

const tryParse = (text: string): Extracted => {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
};

// The last ```json (or bare ```) fenced block's body.
function lastFencedBlock(answer: string): string | undefined {
  const re = /```(?:json|JSON)?[ \t]*\r?\n([\s\S]*?)\r?\n[ \t]*```/g;
  let last: string | undefined;
  for (let m = re.exec(answer); m; m = re.exec(answer)) last = m[1];
  return last;
}

// The end index (exclusive) of the balanced object or array starting at `start`, or -1.
function balancedEnd(text: string, start: number): number {
  const stack: string[] = [];
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text[i]!;
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
      continue;
    }
    if (c === '"') inString = true;
    else if (c === '{' || c === '[') stack.push(c === '{' ? '}' : ']');
    else if (c === '}' || c === ']') {
      if (stack.pop() !== c) return -1;
      if (stack.length === 0) return i + 1;
    }
  }
  return -1;
}

// The last balanced JSON object or array that parses: the candidate that ends latest wins.
function lastBalanced(answer: string): unknown {
  let best: { end: number; value: unknown } | undefined;
  for (let i = answer.length - 1; i >= 0; i--) {
    const c = answer[i];
    if (c !== '{' && c !== '[') continue;
    const end = balancedEnd(answer, i);
    if (end === -1 || (best && end < best.end)) continue;
    const parsed = tryParse(answer.slice(i, end));
    // Among candidates ending at the same place, the outermost (earliest start) is the value.
    if (parsed.ok && (!best || end >= best.end)) best = { end, value: parsed.value };
  }
  return best ? { found: true, value: best.value } : { found: false };
}

export function extractJson(answer: string): Extracted {
  const trimmed = answer.trim();
  if (trimmed === '') return { ok: false, reason: 'the answer is empty' };
  const whole = tryParse(trimmed);
  if (whole.ok) return whole;
  const block = lastFencedBlock(answer);
  if (block !== undefined) {
    const parsed = tryParse(block.trim());
    if (parsed.ok) return parsed;
  }
  const balanced = lastBalanced(answer) as { found: boolean; value?: unknown };
  if (balanced.found) return { ok: true, value: balanced.value };
  return { ok: false, reason: 'the answer holds no JSON value' };
}
