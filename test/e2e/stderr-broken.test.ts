// A stderr that cannot be written (its reader gone, a full disk) never holds the run: the answer still
// reaches stdout, the exit code is the turn's, and the agent and its children are ended (issue 23, item 1).
import { execa } from 'execa';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BIN, RECORDINGS, REPLAY_SHIM } from '../helpers/agent-path.js';
import { tempDir } from '../helpers/cli.js';
import { waitForGone } from '../helpers/processes.js';
import { readReplayLog } from '../helpers/replay-log.js';

const quote = (w: string): string => `'${w.replaceAll("'", `'\\''`)}'`;

// The shell forms a user writes; each runs the built CLI under a watchdog and writes stdout to a file.
const FORMS: Record<string, (cmd: string, out: string) => string> = {
  'stderr to a pipe whose reader exits at once (| true)': (cmd, out) => `${cmd} 2>&1 >${out} | true`,
  'stderr to a pipe read for one line (| head -1)': (cmd, out) => `${cmd} 2>&1 >${out} | head -1 >/dev/null`,
  'stderr to a full disk (2>/dev/full)': (cmd, out) => `${cmd} >${out} 2>/dev/full`,
};

async function once(form: (cmd: string, out: string) => string, format: string[]) {
  const home = tempDir();
  const log = join(home, 'replay.log');
  const out = join(home, 'stdout');
  const cmd = [BIN, 'run', '--agent', REPLAY_SHIM, ...format, 'list the files'].map(quote).join(' ');
  const r = await execa('sh', ['-c', form(cmd, quote(out)) + ' </dev/null; echo $? >' + quote(out + '.rc')], {
    reject: false,
    timeout: 20_000,
    env: {
      HOME: home,
      CURSOR_CONFIG_DIR: join(home, 'none'),
      RHO_REPLAY: join(RECORDINGS, 'tools.jsonl'),
      RHO_REPLAY_LOG: log,
      RHO_REPLAY_GRANDCHILD: '1',
      NO_COLOR: '1',
    },
  });
  const events = readReplayLog(log);
  const pids = events.flatMap((e) => (typeof e.pid === 'number' ? [e.pid] : []));
  const gone = await Promise.all(pids.map((p) => waitForGone(p, 3000)));
  return {
    timedOut: r.timedOut,
    code: Number(readFileSync(out + '.rc', 'utf8').trim()),
    stdout: readFileSync(out, 'utf8'),
    pids,
    gone,
  };
}

describe('a stderr nobody can write', () => {
  for (const [name, form] of Object.entries(FORMS)) {
    for (const format of [[], ['--output-format', 'stream-json']]) {
      it(`${name}, ${format.length ? 'stream-json' : 'text'}: the run ends with the turn's exit code`, async () => {
        // The pipe forms are racy (the reader may exit before or after the first write): try several times.
        for (let i = 0; i < 4; i++) {
          const r = await once(form, format);
          expect(r.timedOut).toBe(false);
          expect(r.code).toBe(0);
          if (format.length) expect(r.stdout.trim().split('\n').at(-1)).toContain('"type":"result"');
          else expect(r.stdout.length).toBeGreaterThan(0);
          // The agent and the grandchild it started are both gone.
          expect(r.pids.length).toBe(2);
          expect(r.gone).toEqual([true, true]);
        }
      });
    }
  }
});
