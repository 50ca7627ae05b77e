// The agent's cgroup on this machine's real cgroup file system (skipped where no cgroup can be made): a
// process born in it cannot leave it by setsid or by clearing its environment, and killAll ends it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AgentCgroup, probeTreeHandle, treeHandleText } from '../../../src/agent/cgroup.js';
import { waitForGone } from '../../helpers/processes.js';

const here = probeTreeHandle(process.env).kind !== 'none';

describe.runIf(here).each(['v2', 'v1'])('AgentCgroup (RHO_CURSOR_CGROUP=%s)', (choice) => {
  it('holds a child born in it and the setsid, env -i grandchild it starts; killAll ends both; remove() takes the cgroup', async () => {
    const cg = AgentCgroup.create({ RHO_CURSOR_CGROUP: choice })!;
    expect(cg.kind.startsWith(choice)).toBe(true);
    const { value: child, inside } = cg.enclose(() =>
      spawn('sh', ['-c', `setsid env -i sh -c 'trap "" TERM; exec sleep 300' & echo ready; exec sleep 300`], {
        stdio: ['ignore', 'pipe', 'ignore'],
      }),
    );
    expect(inside).toBe(true);
    await new Promise((resolve) => child.stdout!.once('data', resolve));
    const pids = cg.pids();
    expect(pids).toContain(child.pid);
    expect(pids).not.toContain(process.pid);
    expect(pids.length).toBe(2);
    expect(cg.remove()).toBe(false);
    cg.killAll();
    for (const pid of pids) expect(await waitForGone(pid, 3000)).toBe(true);
    expect(await cg.release()).toBe(true);
    expect(existsSync(cg.dir)).toBe(false);
  });
});

describe('treeHandleText', () => {
  it.each([
    [
      { kind: 'v2', parent: '/sys/fs/cgroup' } as const,
      'cgroup v2 under /sys/fs/cgroup: every process the agent starts ends with the run',
    ],
    [
      { kind: 'v1-freezer', parent: '/sys/fs/cgroup/freezer' } as const,
      'cgroup v1 freezer under /sys/fs/cgroup/freezer: every process the agent starts ends with the run',
    ],
    [
      { kind: 'none' } as const,
      expect.stringMatching(
        /^process group \+ \/proc survey .*leaves the session and clears its environment can outlive the run$/,
      ),
    ],
  ])('%j', (h, text) => {
    expect(treeHandleText(h)).toEqual(text);
  });
});
