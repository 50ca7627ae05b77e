// Text renderer: the agent's message text alone on stdout; everything else as short lines on stderr.
import type { ChalkInstance } from 'chalk';
import { str } from '../acp/messages.js';
import type { Event, JsonOutput, ToolEvent } from '../events/types.js';
import { fenceLine } from '../fence/summary.js';
import { toolSummary } from './summary.js';
import type { Renderer, Writer } from './writer.js';

const PRINTED_KEPT = 16;
const TERMINAL = new Set(['completed', 'failed', 'rejected', 'cancelled']);

export class TextRenderer implements Renderer {
  private outBatch = '';
  private errBatch = '';
  private outMidLine = false;
  private errMidLine = false;
  private inThought = false;
  private readonly printed = new Set<string>();
  private readonly tools = new Map<string, ToolEvent>();

  constructor(
    private readonly out: Writer,
    private readonly err: Writer,
    private readonly c: ChalkInstance,
  ) {}

  emit(e: Event): void {
    if (e.type !== 'thought') this.endThought();
    switch (e.type) {
      case 'message':
        // Non-text content is listed by kind and name, never dropped; an embedded resource's text is the answer's.
        if (e.content)
          this.line(this.c.dim(`${e.content.type}: ${e.content.name ?? e.content.mimeType ?? ''}`));
        this.outBatch += e.text;
        if (e.text.length > 0) this.outMidLine = !e.text.endsWith('\n');
        return;
      case 'thought':
        if (e.content) e = { ...e, text: `[${e.content.type}: ${e.content.name ?? ''}] ${e.text}` };
        if (!this.inThought) this.line(this.c.dim('thinking: '), false);
        this.inThought = true;
        this.errRaw(this.c.dim(e.text.replace(/\n+/g, ' ')));
        return;
      case 'tool':
        if (TERMINAL.has(e.status) && !this.printed.has(e.toolCallId)) {
          this.remember(e.toolCallId);
          this.tools.delete(e.toolCallId);
          this.line(this.toolLine(e));
        } else if (!this.printed.has(e.toolCallId)) this.tools.set(e.toolCallId, e);
        return;
      case 'session':
        this.line(
          this.c.dim(
            `session ${e.sessionId} · model ${e.model ?? 'default'} · mode ${e.mode ?? '?'} · approvalMode ${e.approvalMode} · permissions ${e.permissions}`,
          ),
        );
        if (e.fence.name !== 'none') this.line(this.c.dim(fenceLine(e.fence)));
        return;
      case 'permission': {
        const d = 'optionId' in e.decision ? e.decision.optionId : 'cancelled';
        const colour =
          'optionId' in e.decision && e.decision.kind.startsWith('allow') ? this.c.green : this.c.red;
        const why = e.agentReason ? ` · Cursor: ${e.agentReason}` : '';
        this.line(
          `${this.c.bold('permission')} ${e.kind} ${e.title} → ${colour(d)} (${e.reason})${this.c.dim(why)}`,
        );
        return;
      }
      case 'question':
        for (const q of e.questions)
          this.line(`${this.c.bold('question')} ${q.prompt} → ${e.answer.outcome}`);
        if (e.questions.length === 0)
          this.line(`${this.c.bold('question')} ${e.title ?? ''} → ${e.answer.outcome}`);
        return;
      case 'plan':
        this.line(`${this.c.bold('plan')}${e.name ? ' ' + e.name : ''} → ${e.answer.outcome}`);
        for (const l of e.plan.split('\n')) this.line(this.c.dim('  ' + l));
        return;
      case 'todos':
        this.line(this.c.bold('todos'));
        for (const t of e.todos) this.line(`  ${todoMark(t.status)} ${t.content}`);
        return;
      case 'mode':
        this.line(this.c.dim(`mode: ${e.mode}`));
        return;
      case 'warning':
        this.line(this.c.yellow(`warning: ${e.message}`));
        return;
      case 'extension':
        this.extension(e.method, e.params);
        return;
      case 'result':
        return;
    }
  }

  flush(): boolean {
    let ok = true;
    if (this.errBatch) {
      ok = this.err.write(this.errBatch) && ok;
      this.errBatch = '';
    }
    if (this.outBatch) {
      ok = this.out.write(this.outBatch) && ok;
      this.outBatch = '';
    }
    return ok;
  }

  finish(o: JsonOutput): void {
    this.endThought();
    for (const t of this.tools.values()) {
      if (!this.printed.has(t.toolCallId)) this.line(this.toolLine(t));
    }
    if (this.outMidLine) {
      this.outBatch += '\n';
      this.outMidLine = false;
    }
    if (o.error) {
      this.line(this.c.red(`error: ${o.error.message}`));
    }
    this.line(`stopReason: ${o.stopReason ?? 'none'}`);
    this.flush();
  }

  // Shows what Cursor's own extensions carry (a subagent task, an image, the session title); the rest stays quiet.
  private extension(method: string, params: unknown): void {
    const p = (params ?? {}) as Record<string, unknown>;
    const s = (v: unknown): string => str(v) ?? '';
    if (method === 'cursor/task') {
      this.line(
        `${this.c.bold('task')} ${s(p.description) || s(p.prompt)}${p.subagentType ? this.c.dim(` (${s(p.subagentType)})`) : ''}`,
      );
    } else if (method === 'cursor/generate_image') {
      this.line(
        `${this.c.bold('image')} ${s(p.prompt)}${p.outputPath ? this.c.dim(` → ${s(p.outputPath)}`) : ''}`,
      );
    } else if (method === 'session/update') {
      const u = (p.update ?? {}) as Record<string, unknown>;
      if (u.sessionUpdate === 'session_info_update' && typeof u.title === 'string')
        this.line(this.c.dim(`title: ${u.title}`));
    }
  }

  private toolLine(t: ToolEvent): string {
    const status =
      t.status === 'completed'
        ? this.c.green(t.status)
        : t.status === 'in_progress' || t.status === 'pending'
          ? this.c.yellow(t.status)
          : this.c.red(t.status);
    const summary = toolSummary(t);
    return `${this.c.cyan(t.kind)} ${t.title} ${status}${summary ? this.c.dim(' · ' + summary) : ''}`;
  }

  // Remembers a printed tool so it is printed once; only the latest ones, as a finished tool comes back
  // (if ever) right after: a long turn's thousands of tools are not held to the end (issue 10).
  private remember(toolCallId: string): void {
    this.printed.add(toolCallId);
    if (this.printed.size > PRINTED_KEPT) this.printed.delete(this.printed.values().next().value as string);
  }

  private endThought(): void {
    if (this.inThought) {
      this.inThought = false;
      this.errRaw('\n');
    }
  }

  // One stderr line; on a shared terminal, first break a message line that stdout left open.
  private line(text: string, newline = true): void {
    if (this.outMidLine && this.out.isTTY && this.err.isTTY) {
      this.flush();
      this.errRaw('\n');
      this.outMidLine = false;
    }
    if (this.errMidLine) this.errRaw('\n');
    this.errRaw(newline ? text + '\n' : text);
  }

  private errRaw(text: string): void {
    if (text.length === 0) return;
    this.errBatch += text;
    this.errMidLine = !text.endsWith('\n');
  }
}

function todoMark(status: string): string {
  return status === 'completed'
    ? '[x]'
    : status === 'in_progress'
      ? '[~]'
      : status === 'cancelled'
        ? '[-]'
        : '[ ]';
}
