// Pure: the part of an agent's stderr that explains its failure, for a one-line error message. A Node or
// Python crash ends in a stack trace; the message is the line before the frames, not the frames.

import { keyForms, cutStart } from '../sanitize/cut.js';
import { redactAcrossLines } from '../lifecycle/secrets.js';

// Lines that locate an error rather than say what it is.
const NOISE = [
  /^\s+at\s/, // JavaScript stack frame
  /^\s*File ".*", line \d+/, // Python frame
  /^\s*Traceback \(most recent call last\):/,
  /^\s*\^+\s*$/, // the caret under the failing source line
  /^Node\.js v\d+/,
  /^\s*\.\.\. \d+ more/,
];

const isNoise = (line: string): boolean => NOISE.some((re) => re.test(line));

// The last lines of stderr that are not stack frames; with a stack trace, the message right before it.
export function stderrMessage(tail: string, maxChars = 300): string {
  // The key is masked in the tail as one text first: a copy broken across lines (two writes, a wrapped line)
  // would otherwise be joined below as `sk-...Zq7 | Xv9...`, which no mask of whole keys finds.
  const lines = redactAcrossLines(tail, keyForms()[0])
    .split('\n')
    .map((l) => l.trimEnd());
  const firstFrame = lines.findIndex((l) => /^\s+at\s/.test(l));
  let picked: string[];
  if (firstFrame > 0) {
    // A JavaScript trace: "Error: message" (maybe over several lines) sits right above the first frame.
    let start = firstFrame;
    while (start > 0 && lines[start - 1]!.trim() !== '' && !isNoise(lines[start - 1]!)) start--;
    picked = lines.slice(start, firstFrame);
  } else {
    picked = lines.filter((l) => l.trim() !== '' && !isNoise(l)).slice(-3);
  }
  const text = picked
    .map((l) => l.trim())
    .filter(Boolean)
    .join(' | ');
  return cutStart(text, maxChars + 1);
}
