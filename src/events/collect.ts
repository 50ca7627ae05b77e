// Pure: gathers the whole run from its events for the json output (text, final tool states, decisions, todos).
import type {
  Event,
  JsonOutput,
  PermissionEvent,
  PlanEvent,
  QuestionEvent,
  ResultEvent,
  Todo,
  ToolEvent,
  WarningEvent,
} from './types.js';
import { MAX_HELD_TOOLS } from './tools.js';

export class RunSummary {
  private readonly text: string[] = [];
  private readonly tools = new Map<string, ToolEvent>();
  private readonly permissions: PermissionEvent[] = [];
  private readonly questions: QuestionEvent[] = [];
  private readonly plans: PlanEvent[] = [];
  private readonly warnings: WarningEvent[] = [];
  private todos: Todo[] = [];
  title: string | null = null;

  add(e: Event): void {
    switch (e.type) {
      case 'message':
        this.text.push(e.text);
        return;
      case 'tool':
        // Past the bound the turn is being stopped: tool calls made meanwhile are not kept.
        if (this.tools.size <= MAX_HELD_TOOLS || this.tools.has(e.toolCallId))
          this.tools.set(e.toolCallId, e);
        return;
      case 'permission':
        this.permissions.push(e);
        return;
      case 'question':
        this.questions.push(e);
        return;
      case 'plan':
        this.plans.push(e);
        return;
      case 'todos':
        this.todos = e.todos;
        return;
      case 'warning':
        this.warnings.push(e);
        return;
      // A failed try is retried from the start: the answer is the last try's alone.
      case 'attempt':
        this.text.length = 0;
        return;
      default:
        return;
    }
  }

  output(result: ResultEvent): JsonOutput {
    return {
      ...result,
      text: this.text.join(''),
      tools: [...this.tools.values()],
      permissions: this.permissions,
      questions: this.questions,
      plans: this.plans,
      todos: this.todos,
      warnings: this.warnings,
    };
  }
}
