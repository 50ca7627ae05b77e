// Pure: what the output does, decided once from the options, so the Output that follows the plan only
// renders and never branches on the format, the schema or GitHub Actions itself.
import type { Format } from '../options.js';

export interface OutputPlan {
  format: Format;
  /** Where the answer's text is rendered: stdout; stderr (text mode with --output-schema); nowhere (that, -q). */
  answerTo: 'stdout' | 'stderr' | 'nowhere';
  /** Text mode with --output-schema: stdout is the validated value alone, one line of JSON (null too). */
  valueOnStdout: boolean;
  /** The json output: every event collected into one object written at the end. */
  collect: boolean;
  /** Under GitHub Actions, stdout's text behind the stop-commands guard (not a file the runner never reads);
   * never the --output-schema value, which a script reads as one line of JSON (`| jq -e .safe`). */
  guardStdout: boolean;
  /** Under GitHub Actions, JSON lines made inert (`##[` written `##\u005b`): stream-json, json, and text
   * mode's --output-schema value (a JSON line cannot start with `::`, so it needs no guard). */
  inertStdout: boolean;
  /** Under GitHub Actions: stderr guarded; warnings and the error as annotations after the guard ends. */
  annotate: boolean;
  /** Warnings (and the run's error) are also `rho-cursor:` lines on stderr: outside text mode, which renders
   * them itself; under GitHub Actions a warning's annotation is its line. */
  stderrLines: boolean;
  /** Warnings are events of the stream: a silenced one still goes into stream-json and json. */
  silencedAsEvents: boolean;
  /** A spinner may run during the handshake (text mode; on a sized terminal, the output checks). */
  spinner: boolean;
  /** Warning codes the user silenced. */
  silenced: ReadonlySet<string>;
  /** A text chunk with no text that carries `extra` (an empty chunk, or one whose one character waits for the
   * rest of its pair) is written for it: stream-json, the one output that writes chunks' extras. */
  extraOnlyChunks: boolean;
}

export interface PlanInput {
  format: Format;
  outputSchema?: string | undefined;
  quiet?: boolean | undefined;
  github?: boolean | undefined;
  /** stdout is a regular file (`> answer.md`). */
  stdoutIsFile?: boolean | undefined;
  silenced?: readonly string[] | undefined;
}

export function planOutput(i: PlanInput): OutputPlan {
  const text = i.format === 'text';
  const schemaText = text && i.outputSchema !== undefined;
  const github = i.github === true;
  return {
    format: i.format,
    answerTo: schemaText ? (i.quiet ? 'nowhere' : 'stderr') : 'stdout',
    valueOnStdout: schemaText,
    collect: i.format === 'json',
    guardStdout: github && text && !schemaText && i.stdoutIsFile !== true,
    inertStdout: github && (!text || schemaText),
    annotate: github,
    stderrLines: !text,
    silencedAsEvents: !text,
    spinner: text,
    silenced: new Set(i.silenced ?? []),
    extraOnlyChunks: i.format === 'stream-json',
  };
}
