// The fence on the run's teardown stack: released after the agent, by the normal drain and by the exit hook.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { LoadedConfig } from '../../../src/config/load.js';
import { ToolStore } from '../../../src/events/tools.js';
import { fenceEnv, fenceTool } from '../../../src/fence/run.js';
import { Teardown } from '../../../src/lifecycle/teardown.js';

// A user config dir with a login, as the loader would have read it.
function loaded(): LoadedConfig {
  const dir = join(mkdtempSync(join(tmpdir(), 'rho-fence-run-')), 'cursor');
  mkdirSync(dir);
  writeFileSync(join(dir, 'cli-config.json'), '{"version":1}');
  writeFileSync(join(dir, 'auth.json'), 'old');
  const file = { exists: true, data: { version: 1 }, problem: undefined };
  return {
    configDir: dir,
    configDirSource: 'CURSOR_CONFIG_DIR',
    dirProblem: undefined,
    user: { path: join(dir, 'cli-config.json'), ...file },
    project: { path: '/nowhere/.cursor/cli.json', exists: false, data: undefined, problem: undefined },
    effective: { approvalMode: 'unrestricted', approvalModeSet: false, permissions: { allow: [], deny: [] } },
  };
}

// The agent refreshing its login by temp file and rename, in the dir it was given.
function refreshLogin(dir: string): void {
  writeFileSync(join(dir, 'auth.json.tmp'), 'new');
  renameSync(join(dir, 'auth.json.tmp'), join(dir, 'auth.json'));
}

describe('fenceEnv', () => {
  it('leaves the environment alone under none', () => {
    const env = { CURSOR_CONFIG_DIR: '/x' };
    const t = new Teardown();
    expect(fenceEnv('none', loaded(), env, t)).toBe(env);
  });

  it('the exit hook (drainSync) carries back and removes the dir, after the agent registered later', () => {
    const config = loaded();
    const t = new Teardown();
    const env = fenceEnv('read-only', config, { KEEP: '1' }, t);
    const dir = env.CURSOR_CONFIG_DIR!;
    expect(env.KEEP).toBe('1');
    const order: string[] = [];
    t.defer({
      name: 'agent',
      run: () => {},
      runSync: () => order.push(existsSync(dir) ? 'agent, dir still there' : 'agent, dir gone'),
    });
    refreshLogin(dir);
    t.drainSync();
    expect(order).toEqual(['agent, dir still there']);
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(config.configDir, 'auth.json'), 'utf8')).toBe('new');
    expect(readFileSync(join(config.configDir, 'cli-config.json'), 'utf8')).toBe('{"version":1}');
  });

  it('the normal drain does the same, and reports what it could not carry back', async () => {
    const config = loaded();
    const t = new Teardown();
    const dir = fenceEnv('no-shell', config, {}, t).CURSOR_CONFIG_DIR!;
    refreshLogin(dir);
    mkdirSync(join(config.configDir, 'blocker'));
    writeFileSync(join(dir, 'blocker'), 'a file where the user has a dir');
    const errors: string[] = [];
    await t.drain((name, e) => errors.push(`${name}: ${String(e)}`));
    expect(existsSync(dir)).toBe(false);
    expect(readFileSync(join(config.configDir, 'auth.json'), 'utf8')).toBe('new');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^fence dir: .*could not carry blocker back/);
  });
});

describe('fenceTool', () => {
  const call = (tools: ToolStore, id: string, kind: string, extra: Record<string, unknown> = {}) =>
    tools.apply({ toolCallId: id, kind, title: 't', status: 'completed', ...extra });

  it('marks a completed call with no output rejected when the fence rule stops its kind', () => {
    const tools = new ToolStore();
    expect(fenceTool('read-only', tools, call(tools, 'a', 'edit'))).toMatchObject({
      status: 'rejected',
      reportedStatus: 'completed',
    });
    expect(fenceTool('no-shell', tools, call(tools, 'b', 'execute'))).toMatchObject({ status: 'rejected' });
  });

  it('leaves calls the fence does not stop, and calls that did produce output, as Cursor reported them', () => {
    const tools = new ToolStore();
    expect(fenceTool('no-shell', tools, call(tools, 'a', 'edit'))).toMatchObject({ status: 'completed' });
    expect(fenceTool('none', tools, call(tools, 'b', 'execute'))).toMatchObject({ status: 'completed' });
    const ran = call(tools, 'c', 'execute', { rawOutput: { exitCode: 0, stdout: 'x', stderr: '' } });
    expect(fenceTool('read-only', tools, ran)).toMatchObject({ status: 'completed' });
  });
});

describe('fenceTool and the extra of the update it marks', () => {
  it('keeps it on the rejected state (the store holds no extra)', () => {
    const tools = new ToolStore();
    const e = {
      ...tools.apply({ toolCallId: 'a', kind: 'edit', title: 't', status: 'completed' }),
      extra: { durationMs: 5 },
    };
    expect(fenceTool('read-only', tools, e)).toMatchObject({ status: 'rejected', extra: { durationMs: 5 } });
    const bare = tools.apply({ toolCallId: 'b', kind: 'edit', title: 't', status: 'completed' });
    expect(fenceTool('read-only', tools, bare)).not.toHaveProperty('extra');
  });
});

describe('fenceTool before any decision', () => {
  it.each(['pending', 'in_progress'])(
    'leaves a %s call of a fenced kind as the agent reported it',
    (status) => {
      const tools = new ToolStore();
      const e = tools.apply({ toolCallId: 'p', kind: 'execute', title: 't', status });
      expect(fenceTool('no-shell', tools, e)).toMatchObject({ status });
      expect(
        fenceTool('read-only', tools, tools.apply({ toolCallId: 'q', kind: 'edit', status })),
      ).toMatchObject({
        status,
      });
    },
  );
});
