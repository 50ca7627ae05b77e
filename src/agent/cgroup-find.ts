// Pure: where this process may make a cgroup for its agent, from /proc/self/cgroup and
// /proc/self/mountinfo. A cgroup is a whole-tree handle: a process cannot leave it by setsid, by clearing its
// environment or by being reparented, so every process in it can be found and ended.

export type CgroupKind = 'v2' | 'v1-freezer' | 'v1-pids';

export interface CgroupPlace {
  kind: CgroupKind;
  /** This process's own cgroup directory in that hierarchy: the new cgroup is made inside it. */
  dir: string;
}

/** RHO_CURSOR_CGROUP: which hierarchies may be used (`off` keeps to the process group and the survey). */
export type CgroupChoice = 'auto' | 'off' | 'v1' | 'v2';

interface Mount {
  root: string;
  point: string;
  fstype: string;
  superOptions: string[];
}

// mountinfo escapes a space, tab, newline and backslash in paths as octal (\040).
const unescape = (s: string): string =>
  s.replace(/\\([0-7]{3})/g, (_, o: string) => String.fromCharCode(parseInt(o, 8)));

// Pure: the cgroup mounts of /proc/self/mountinfo.
export function cgroupMounts(mountinfo: string): Mount[] {
  const out: Mount[] = [];
  for (const line of mountinfo.split('\n')) {
    const f = line.split(' ');
    const dash = f.indexOf('-');
    if (dash < 6) continue;
    const fstype = f[dash + 1] ?? '';
    if (fstype !== 'cgroup' && fstype !== 'cgroup2') continue;
    out.push({
      root: unescape(f[3]!),
      point: unescape(f[4]!),
      fstype,
      superOptions: (f[dash + 3] ?? '').split(','),
    });
  }
  return out;
}

// Pure: the cgroup directories this process may make its agent's cgroup in, the best first: v2 (one
// hierarchy, cgroup.kill), then v1's freezer (frozen, then killed, so nothing forks meanwhile), then v1's pids.
export function cgroupPlaces(
  procCgroup: string,
  mountinfo: string,
  choice: CgroupChoice = 'auto',
): CgroupPlace[] {
  if (choice === 'off') return [];
  const mounts = cgroupMounts(mountinfo);
  const out: CgroupPlace[] = [];
  const own = new Map<string, string>();
  for (const line of procCgroup.split('\n')) {
    const m = /^(\d+):([^:]*):(.*)$/.exec(line);
    if (!m) continue;
    if (m[1] === '0' && m[2] === '') own.set('v2', m[3]!);
    for (const c of m[2]!.split(',')) if (c === 'freezer' || c === 'pids') own.set(c, m[3]!);
  }
  const place = (kind: CgroupKind, path: string | undefined, mount: Mount | undefined): void => {
    if (path === undefined || mount === undefined) return;
    // The mount shows the hierarchy from its root: our path must lie under it (in a container it may not).
    const root = mount.root === '/' ? '' : mount.root;
    if (root !== '' && path !== root && !path.startsWith(root + '/')) return;
    const rel = path.slice(root.length);
    out.push({ kind, dir: (mount.point + (rel === '/' ? '' : rel)).replace(/\/+$/, '') || '/' });
  };
  if (choice !== 'v1')
    place(
      'v2',
      own.get('v2'),
      mounts.find((m) => m.fstype === 'cgroup2'),
    );
  if (choice !== 'v2') {
    for (const c of ['freezer', 'pids'] as const)
      place(
        `v1-${c}`,
        own.get(c),
        mounts.find((m) => m.fstype === 'cgroup' && m.superOptions.includes(c)),
      );
  }
  return out;
}

// Pure: the choice RHO_CURSOR_CGROUP makes (anything unknown is auto).
export function cgroupChoice(value: string | undefined): CgroupChoice {
  return value === 'off' || value === 'v1' || value === 'v2' ? value : 'auto';
}
