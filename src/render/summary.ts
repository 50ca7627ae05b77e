// Pure one-line summaries of a tool's result for the text renderer.
import { idText } from '../acp/messages.js';
import type { ToolEvent } from '../events/types.js';
import { cutEnd } from '../sanitize/cut.js';

// The first non-empty line of a text, shortened.
export function firstLine(text: string, max = 80): string {
  const line = text.split('\n').find((l) => l.trim() !== '') ?? '';
  return cutEnd(line, max);
}

// Counts lines added and removed between two texts (a multiset comparison, cheap for big files).
export function lineDelta(oldText: string | null, newText: string): { added: number; removed: number } {
  const oldLines = oldText === null || oldText === '' ? [] : oldText.replace(/\n$/, '').split('\n');
  const newLines = newText === '' ? [] : newText.replace(/\n$/, '').split('\n');
  const counts = new Map<string, number>();
  for (const l of oldLines) counts.set(l, (counts.get(l) ?? 0) + 1);
  let common = 0;
  for (const l of newLines) {
    const n = counts.get(l) ?? 0;
    if (n > 0) {
      common++;
      counts.set(l, n - 1);
    }
  }
  return { added: newLines.length - common, removed: oldLines.length - common };
}

// A tool the agent left pending or in progress when its turn ended, which the run closed as cancelled.
export const unfinished = (tool: Pick<ToolEvent, 'status' | 'reportedStatus'>): boolean =>
  tool.status === 'cancelled' && (tool.reportedStatus === 'pending' || tool.reportedStatus === 'in_progress');

// A short summary of what the tool returned: exit code and first line, match counts, +/- lines.
export function toolSummary(tool: ToolEvent): string {
  // Any JSON value can arrive as a tool's output: only an object is looked into.
  const out =
    typeof tool.output === 'object' && tool.output !== null && !Array.isArray(tool.output)
      ? (tool.output as Record<string, unknown>)
      : null;
  // A rejected tool left pending was never reported completed (the SDK's example agent leaves it so).
  if (tool.status === 'rejected')
    return tool.reportedStatus === 'pending' ? 'did not run' : 'did not run (Cursor reported it completed)';
  if (unfinished(tool)) return `never finished: the agent left it ${tool.reportedStatus!.replace('_', ' ')}`;
  if (Array.isArray(tool.output)) return `${tool.output.length} item${tool.output.length === 1 ? '' : 's'}`;
  if (!out) return '';
  if (Array.isArray(out.diffs)) {
    return (out.diffs as { path: string; oldText: string | null; newText: string }[])
      .map((d) => {
        const { added, removed } = lineDelta(d.oldText, d.newText);
        return d.oldText === null ? `new file +${added}` : `+${added} -${removed}`;
      })
      .join(', ');
  }
  if ('stdout' in out) {
    const line = firstLine(idText(out.stdout)) || firstLine(idText(out.stderr));
    // An execute's exitCode is a number or null (unknown: `?`); another kind's rawOutput may have a stdout and
    // no exit code at all, and gets no exit label (found by review: `exit  · 5`).
    const code = out.exitCode === null ? '?' : idText(out.exitCode);
    return [code === '' ? '' : `exit ${code}`, line].filter(Boolean).join(' · ');
  }
  if (typeof out.totalMatches === 'number')
    return `${out.totalMatches} match${out.totalMatches === 1 ? '' : 'es'}`;
  if (typeof out.totalFiles === 'number') return `${out.totalFiles} file${out.totalFiles === 1 ? '' : 's'}`;
  if (typeof out.content === 'string') {
    const n = out.content === '' ? 0 : out.content.replace(/\n$/, '').split('\n').length;
    return `${n} line${n === 1 ? '' : 's'}`;
  }
  return '';
}
