import { describe, expect, it } from 'vitest';
import { cgroupChoice, cgroupMounts, cgroupPlaces } from '../../../src/agent/cgroup-find.js';

// This project's machines: cgroup v1 controllers each mounted, and v2 at /sys/fs/cgroup/unified.
const HYBRID_MOUNTS = [
  '30 22 0:27 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755',
  '34 30 0:31 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory',
  '36 30 0:33 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer',
  '38 30 0:35 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids',
  '40 30 0:37 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw',
].join('\n');
const HYBRID_SELF = ['8:pids:/', '6:freezer:/', '4:memory:/process_api/d8', '0::/'].join('\n');
// A systemd machine on v2 only; a container that sees its own cgroup as the mount's root.
const V2_MOUNTS = '29 23 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate';
const V2_SELF = '0::/user.slice/user-1000.slice/session-2.scope';
const CONTAINER_MOUNTS = '700 690 0:26 /docker/abc /sys/fs/cgroup ro,nosuid - cgroup2 cgroup2 rw';

describe('cgroupPlaces', () => {
  it.each([
    [
      'hybrid, auto',
      HYBRID_SELF,
      HYBRID_MOUNTS,
      'auto',
      [
        ['v2', '/sys/fs/cgroup/unified'],
        ['v1-freezer', '/sys/fs/cgroup/freezer'],
        ['v1-pids', '/sys/fs/cgroup/pids'],
      ],
    ],
    [
      'hybrid, v1 only',
      HYBRID_SELF,
      HYBRID_MOUNTS,
      'v1',
      [
        ['v1-freezer', '/sys/fs/cgroup/freezer'],
        ['v1-pids', '/sys/fs/cgroup/pids'],
      ],
    ],
    ['hybrid, v2 only', HYBRID_SELF, HYBRID_MOUNTS, 'v2', [['v2', '/sys/fs/cgroup/unified']]],
    ['hybrid, off', HYBRID_SELF, HYBRID_MOUNTS, 'off', []],
    [
      'v2 under systemd',
      V2_SELF,
      V2_MOUNTS,
      'auto',
      [['v2', '/sys/fs/cgroup/user.slice/user-1000.slice/session-2.scope']],
    ],
    [
      'a container whose mount root is its own cgroup',
      '0::/docker/abc',
      CONTAINER_MOUNTS,
      'auto',
      [['v2', '/sys/fs/cgroup']],
    ],
    ['a cgroup outside the mount', '0::/elsewhere', CONTAINER_MOUNTS, 'auto', []],
    ['no cgroup fs at all', '', '', 'auto', []],
  ] as const)('%s', (_, self, mounts, choice, places) => {
    expect(cgroupPlaces(self, mounts, choice).map((p) => [p.kind, p.dir])).toEqual(places);
  });
});

describe('cgroupMounts', () => {
  it('reads octal escapes in mount points and skips other file systems', () => {
    const m = cgroupMounts(
      '1 2 0:3 / /sys/fs/my\\040cgroup rw - cgroup2 cgroup2 rw\n4 5 0:6 / /proc rw - proc proc rw',
    );
    expect(m).toEqual([{ root: '/', point: '/sys/fs/my cgroup', fstype: 'cgroup2', superOptions: ['rw'] }]);
  });
});

describe('cgroupChoice', () => {
  it.each([
    [undefined, 'auto'],
    ['off', 'off'],
    ['v1', 'v1'],
    ['v2', 'v2'],
    ['yes', 'auto'],
  ])('RHO_CURSOR_CGROUP=%s is %s', (value, choice) => {
    expect(cgroupChoice(value)).toBe(choice);
  });
});
