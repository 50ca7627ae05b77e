// The questions put to the person for the agent's requests: each bounded by its request's signal, and a count
// of those still open (a person deciding holds the output, told through its QuestionScreen, and the idle
// timer).
import type { Asker, Choice, TerminalQuestion } from './ask.js';

/** Where the questions show: the output, which holds what the agent sends while a person decides. */
export interface QuestionScreen {
  /** A question opens: the terminal is left at the start of a line, and what the agent sends is held. */
  hold(): void;
  /** No question is open any more: what was held is drawn, in the order it came. */
  resume(): void;
}

export class OpenQuestions {
  private open = 0;

  constructor(
    private readonly asker: Asker | undefined,
    private readonly screen?: QuestionScreen,
  ) {}

  // Is a person still deciding one of the agent's requests?
  get asking(): boolean {
    return this.open > 0;
  }

  // Shows q and waits for the choice. An abort of the request closes the question at once, whether it is on
  // the screen or still queued behind another: the asker's closing line first, then `closed(reason)`, and the
  // choice is undefined. Undefined too at end of input, or with nobody to ask.
  ask(
    q: TerminalQuestion,
    signal: AbortSignal,
    closed?: (reason: unknown) => void,
  ): Promise<Choice | undefined> {
    const asker = this.asker;
    if (!asker || signal.aborted) return Promise.resolve(undefined);
    this.open++;
    // The question starts on a fresh line, after everything rendered so far; nothing is drawn over it.
    this.screen?.hold();
    const question = new AbortController();
    return new Promise((resolve) => {
      let settled = false;
      // The question stops counting before its answer is acted on, so what that shows is drawn at once.
      const done = (choice: Choice | undefined): boolean => {
        // Stryker disable next-line BooleanLiteral: onAbort, the one reader, runs only before done (which removes it)
        if (settled) return false;
        settled = true;
        if (--this.open === 0) this.screen?.resume();
        signal.removeEventListener('abort', onAbort);
        resolve(choice);
        return true;
      };
      const onAbort = (): void => {
        question.abort(signal.reason);
        if (done(undefined)) closed?.(signal.reason);
      };
      signal.addEventListener('abort', onAbort);
      asker.choose(q, question.signal).then(done, () => done(undefined));
    });
  }
}
