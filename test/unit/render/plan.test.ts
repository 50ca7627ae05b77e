import { describe, expect, it } from 'vitest';
import { planOutput, type OutputPlan, type PlanInput } from '../../../src/render/plan.js';

type Row = [string, PlanInput, Partial<OutputPlan>];

const rows: Row[] = [
  [
    'text at a terminal',
    { format: 'text' },
    {
      answerTo: 'stdout',
      valueOnStdout: false,
      collect: false,
      stderrLines: false,
      spinner: true,
      extraOnlyChunks: false,
    },
  ],
  [
    'stream-json',
    { format: 'stream-json' },
    { answerTo: 'stdout', collect: false, stderrLines: true, spinner: false, extraOnlyChunks: true },
  ],
  [
    'json collects the run',
    { format: 'json' },
    { collect: true, stderrLines: true, silencedAsEvents: true, extraOnlyChunks: false },
  ],
  [
    'text with --output-schema: the answer aside, the value alone on stdout',
    { format: 'text', outputSchema: 's.json' },
    { answerTo: 'stderr', valueOnStdout: true },
  ],
  [
    'the same with -q: the answer nowhere',
    { format: 'text', outputSchema: 's.json', quiet: true },
    { answerTo: 'nowhere' },
  ],
  ['-q alone keeps the answer on stdout', { format: 'text', quiet: true }, { answerTo: 'stdout' }],
  [
    'stream-json with --output-schema: the answer stays in the stream',
    { format: 'stream-json', outputSchema: 's.json' },
    { answerTo: 'stdout', valueOnStdout: false },
  ],
  [
    'GitHub Actions, text: stdout guarded, annotations',
    { format: 'text', github: true },
    { guardStdout: true, inertStdout: false, annotate: true },
  ],
  [
    'GitHub Actions, text to a file the runner never reads: no guard on stdout',
    { format: 'text', github: true, stdoutIsFile: true },
    { guardStdout: false, annotate: true },
  ],
  [
    'GitHub Actions, text with --output-schema: the value alone on stdout, one inert JSON line, unguarded',
    { format: 'text', outputSchema: 's.json', github: true },
    { valueOnStdout: true, guardStdout: false, inertStdout: true, annotate: true },
  ],
  [
    'GitHub Actions, stream-json: JSON made inert, never guarded',
    { format: 'stream-json', github: true },
    { guardStdout: false, inertStdout: true, annotate: true },
  ],
  [
    'outside GitHub Actions nothing is guarded',
    { format: 'stream-json' },
    { guardStdout: false, inertStdout: false, annotate: false },
  ],
  [
    'text mode renders warnings itself; silenced ones are not events there',
    { format: 'text' },
    { silencedAsEvents: false },
  ],
];

describe('planOutput', () => {
  it.each(rows)('%s', (_, input, expected) => {
    expect(planOutput(input)).toMatchObject(expected);
  });

  it('keeps the silenced codes as a set', () => {
    const plan = planOutput({ format: 'text', silenced: ['ask-without-terminal'] });
    expect(plan.silenced.has('ask-without-terminal')).toBe(true);
    expect(plan.silenced.has('agent-non-json')).toBe(false);
  });
});
