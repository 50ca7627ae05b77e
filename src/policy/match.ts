// Pure: does a rule cover a shell command, a path or a domain? Allow rules are read strictly (every part of a
// compound command must be covered, words exactly as written), deny rules generously (any part, wrappers,
// quotes and the program's own options seen through, a deny of `git push` also covers `git push origin main`
// and `git -C . push`).
import { homedir } from 'node:os';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import picomatch from 'picomatch';
import type { Rule } from './rules.js';
import { looseParts, parseShell } from './shell.js';

type ShellRule = Extract<Rule, { type: 'Shell' }>;

const escape = (s: string): string => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&');
// `*` matches any run of characters, everything else itself.
const globRe = (glob: string): string => glob.split('*').map(escape).join('.*');

// A rule's patterns, compiled once: a command is judged through many views, each against every rule.
interface Compiled {
  command: RegExp;
  allow?: RegExp;
  deny?: RegExp;
}
const compiled = new WeakMap<ShellRule, Compiled>();
function patterns(rule: ShellRule): Compiled {
  let c = compiled.get(rule);
  // Stryker disable next-line ConditionalExpression: compiling again each time gives the same patterns
  if (c === undefined) {
    c = { command: new RegExp(`^${globRe(rule.command)}$`, 's') };
    if (rule.args !== undefined) {
      const args = globRe(rule.args);
      c.deny = new RegExp(`^${args}(?: .*)?$`, 's');
      c.allow = rule.prefix ? c.deny : new RegExp(`^${args}$`, 's');
    }
    compiled.set(rule, c);
  }
  return c;
}

// Is the command (its first word) the rule's?
const commandCovered = (rule: ShellRule, command: string): boolean => patterns(rule).command.test(command);

// Does the rule cover one simple command (its words)? deny: the rule's words may be followed by more.
export function shellRuleCovers(rule: ShellRule, words: readonly string[], side: 'allow' | 'deny'): boolean {
  const command = words[0];
  if (command === undefined) return false;
  const p = patterns(rule);
  if (!p.command.test(command)) return false;
  const args = side === 'deny' ? p.deny : p.allow;
  return args === undefined || args.test(words.slice(1).join(' '));
}

// A catch-all allow (Shell(*)) vouches for anything, a substitution or a redirection included.
const catchAll = (r: ShellRule): boolean => r.command === '*' && r.args === undefined;

// Is the whole command line allowed? Every part must be covered; an opaque line or a write only by Shell(*).
export function shellAllowed(line: string, allow: readonly ShellRule[]): boolean {
  if (allow.some(catchAll)) return true;
  const p = parseShell(line);
  if (p.opaque !== undefined || p.writes || p.parts.length === 0) return false;
  // Stryker disable next-line StringLiteral: any side but 'deny' reads a rule strictly, as 'allow' does
  return p.parts.every((words) => allow.some((r) => shellRuleCovers(r, words, 'allow')));
}

/** A command that runs the command after it: the options that take a value (the next word), those whose value
 * is itself a command line (`env -S`, `flock -c`), and the words it takes before the command (`timeout 5`). */
interface Wrapper {
  takes?: readonly string[];
  script?: readonly string[];
  positional?: number;
  /** A lone `-` is one of its options (`env -` is `env -i`, `su -` a login shell). */
  dash?: boolean;
}

const WRAPPERS: ReadonlyMap<string, Wrapper> = new Map<string, Wrapper>([
  [
    'sudo',
    {
      takes: [
        '-u',
        '-g',
        '-C',
        '-D',
        '-h',
        '-p',
        '-r',
        '-t',
        '-U',
        '-T',
        '--user',
        '--group',
        '--chdir',
        '--host',
        '--prompt',
        '--role',
        '--type',
        '--other-user',
        '--close-from',
        '--command-timeout',
      ],
    },
  ],
  ['doas', { takes: ['-u', '-C'] }],
  ['command', {}],
  ['builtin', {}],
  ['exec', { takes: ['-a'] }],
  ['nohup', {}],
  ['time', { takes: ['-f', '-o', '--format', '--output'] }],
  ['nice', { takes: ['-n', '--adjustment'] }],
  ['env', { takes: ['-u', '-C', '--unset', '--chdir'], script: ['-S', '--split-string'], dash: true }],
  ['timeout', { takes: ['-s', '-k', '--signal', '--kill-after'], positional: 1 }],
  ['stdbuf', { takes: ['-i', '-o', '-e', '--input', '--output', '--error'] }],
  ['ionice', { takes: ['-c', '-n', '--class', '--classdata'] }],
  ['chrt', { positional: 1 }],
  ['taskset', { positional: 1 }],
  ['setsid', {}],
  [
    'flock',
    { takes: ['-w', '-E', '--timeout', '--conflict-exit-code'], script: ['-c', '--command'], positional: 1 },
  ],
  [
    'xargs',
    {
      takes: [
        '-I',
        '-n',
        '-P',
        '-L',
        '-s',
        '-d',
        '-E',
        '-a',
        '--max-args',
        '--max-procs',
        '--max-lines',
        '--delimiter',
        '--arg-file',
        '--max-chars',
        '--process-slot-var',
      ],
    },
  ],
  ['watch', { takes: ['-n', '-q', '--interval', '--equexit'] }],
  [
    'strace',
    {
      takes: [
        '-o',
        '-e',
        '-p',
        '-s',
        '-u',
        '-E',
        '-a',
        '-b',
        '-I',
        '-O',
        '-S',
        '-U',
        '-X',
        '-P',
        '--output',
        '--trace',
        '--attach',
        '--string-limit',
        '--user',
        '--env',
        '--columns',
        '--detach-on',
        '--interruptible',
        '--summary-sort-by',
        '--summary-columns',
        '--const-print-style',
        '--trace-path',
      ],
    },
  ],
  ['unbuffer', {}],
  ['coproc', {}],
  ['busybox', {}],
  [
    'su',
    {
      takes: ['-s', '-g', '-G', '-w', '--shell', '--group', '--supp-group', '--whitelist-environment'],
      script: ['-c', '--command', '--session-command'],
      positional: 1,
      dash: true,
    },
  ],
  [
    'runuser',
    {
      takes: ['-u', '-s', '-g', '-G', '-w', '--user', '--shell', '--group', '--supp-group'],
      script: ['-c', '--command', '--session-command'],
      dash: true,
    },
  ],
  [
    'script',
    {
      takes: [
        '-E',
        '-I',
        '-O',
        '-B',
        '-T',
        '-m',
        '-o',
        '--echo',
        '--log-in',
        '--log-out',
        '--log-io',
        '--log-timing',
        '--logging-format',
        '--output-limit',
      ],
      script: ['-c', '--command'],
    },
  ],
]);
const ANYWHERE = new Set(['su', 'runuser']);
const KEYWORDS = new Set(['if', 'then', 'else', 'elif', 'do', 'while', 'until', '!', '{']);
const SHELLS = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'yash', 'ash', 'fish']);

// What a wrapper's option is: one whose value is a command line, one that takes a value, or a flag. A long
// option may be cut short as getopt_long allows (`--sig` is `--signal`).
function optionKind(w: Wrapper, name: string): 'script' | 'takes' | undefined {
  const is = (list: readonly string[] | undefined): boolean =>
    list?.some((o) => o === name || (name.length > 2 && name.startsWith('--') && o.startsWith(name))) ??
    false;
  return is(w.script) ? 'script' : is(w.takes) ? 'takes' : undefined;
}

// Skips a wrapper's options from words[i] on, as getopt reads them: a cluster of short options is read letter
// by letter, and the first that takes a value takes the rest of the word (`-uroot`, `-S'git push'`) or, with
// nothing left, the next word (`-iu root`); a long one takes what follows its `=`, else the next word. A value
// that is a command line goes into `scripts`.
function skipOptions(words: readonly string[], i: number, w: Wrapper, scripts: string[]): number {
  while (i < words.length && words[i]!.startsWith('-') && (words[i] !== '-' || w.dash)) {
    const opt = words[i++]!;
    if (opt === '--') break;
    let kind: 'script' | 'takes' | undefined;
    let value: string | undefined;
    if (opt.startsWith('--')) {
      const eq = opt.indexOf('=');
      kind = optionKind(w, eq === -1 ? opt : opt.slice(0, eq));
      if (eq !== -1) value = opt.slice(eq + 1);
    } else
      for (let k = 1; k < opt.length && kind === undefined; k++) {
        kind = optionKind(w, `-${opt[k]!}`);
        if (kind !== undefined && k + 1 < opt.length) value = opt.slice(k + 1);
      }
    if (kind !== undefined && value === undefined && i < words.length) value = words[i++]!;
    if (kind === 'script' && value !== undefined) scripts.push(value);
  }
  return i;
}

// The script a shell runs (`bash -c '...'`, `bash -lc`, `bash -c -e -- '...'`, `fish --command='...'`): the
// first word that is no option, once an option cluster holding `c` was seen; `-o`/`-O` take a word.
function shellScript(words: readonly string[]): string | undefined {
  const fish = /(^|\/)fish$/.test(words[0] ?? '');
  let c = false;
  // Words the options read so far still take: each `o` or `O` of a cluster takes one, in order (`-co pipefail
  // 'git push'`, `-xo pipefail -ec '...'`: found by review), as `--rcfile` and `--init-file` do.
  let take = 0;
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (take > 0) {
      take--;
      continue;
    }
    if (w === '--' || w === '-') return c ? words[i + 1] : undefined;
    if (w.startsWith('--command=')) return w.slice('--command='.length);
    if (w === '--command') return words[i + 1];
    // fish runs its init command too, before the script (`fish -C 'git push'`); zsh's --emulate takes a word.
    if (w.startsWith('--init-command=')) return w.slice('--init-command='.length);
    if (w === '--init-command' || (fish && w === '-C')) return words[i + 1];
    if (w === '--rcfile' || w === '--init-file' || w === '--emulate') take = 1;
    else if (w.startsWith('--')) continue;
    else if (!/^[-+]/.test(w)) return c ? w : undefined;
    else {
      take = w.slice(1).replace(/[^oO]/g, '').length;
      if (/^-[A-Za-z]*c/.test(w)) c = true;
    }
  }
  return undefined;
}

// The commands `find` runs for each file: what follows `-exec`, `-execdir`, `-ok` or `-okdir`, up to `;` or `+`.
function findCommands(words: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 1; i < words.length; i++) {
    if (!/^-(?:exec|execdir|ok|okdir)$/.test(words[i]!)) continue;
    let end = i + 1;
    while (end < words.length && words[end] !== ';' && words[end] !== '+') end++;
    if (end > i + 1) out.push(words.slice(i + 1, end));
    i = end;
  }
  return out;
}

// How many of a program's own leading words are read as options (`git -C . -c a=b --no-pager push`): a bound,
// so a line of a million dashes costs a few views, not a million. A command with more before its reading ends
// is read as any command of that program: every deny rule for the program covers it.
const OWN_OPTIONS_MAX = 16;
// How deep scripts in scripts are read (`bash -c "eval '...'"`): one deeper is not read, and is covered by
// every deny rule, as it may run anything.
const SCRIPT_DEPTH_MAX = 3;
// Views that stand for what was not read: any command of a program, or any command at all.
const unread = new WeakMap<readonly string[], 'program' | 'any'>();
const markView = (view: string[], what: 'program' | 'any'): string[] => {
  unread.set(view, what);
  return view;
};

// The command by its base name (`/usr/bin/git` is `git`), and the same without the program's own options
// before its first other word: each option read both ways, as a flag and as one that takes the next word
// (`git -C . push` and `git --no-pager push` are both `git push`), as no table of every program's options
// could be complete. Generous, as deny rules are: `git -p log push` is read as `git push` too.
function withoutOwnOptions(rest: readonly string[]): string[][] {
  const base = rest[0]!.replace(/^.*\//, '');
  const views = [[base, ...rest.slice(1)]];
  // `git-push` (git's own programs, in git --exec-path) is `git push`; only git's (`ssh-keygen` is no `ssh`).
  if (base.startsWith('git-') && base.length > 4) views.push(['git', base.slice(4), ...rest.slice(1)]);
  const reached = new Set<number>([1]);
  for (let j = 1; j < rest.length && j <= OWN_OPTIONS_MAX; j++) {
    if (!reached.has(j)) continue;
    const w = rest[j]!;
    if (w === '--') views.push([base, ...rest.slice(j + 1)]);
    else if (w.startsWith('-') && w !== '-') {
      reached.add(j + 1);
      if (!w.includes('=')) reached.add(j + 2);
    } else if (j > 1) views.push([base, ...rest.slice(j)]);
  }
  if ([...reached].some((k) => k > OWN_OPTIONS_MAX && k < rest.length))
    views.push(markView([base], 'program'));
  return views;
}

// The commands a part may really run: itself, without assignments, wrappers (with their options and the
// words they take) and keywords in front, the command's base name (`/usr/bin/git`) and the command without
// its own leading options (`git -C . push`), and the script of `bash -c '...'`, `eval ...`, `env -S '...'` or
// `flock f -c '...'`, three levels deep.
function runnable(words: string[], depth: number): string[][] {
  let i = 0;
  const scripts: string[] = [];
  const bodies: string[][] = [];
  while (i < words.length) {
    const w = words[i]!;
    const wrapper = WRAPPERS.get(w.replace(/^.*\//, ''));
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(w) || KEYWORDS.has(w)) i++;
    // `function f { ...`: the name, then the body's first command.
    else if (w === 'function') i += 2;
    else if (wrapper) {
      // `coproc NAME { ...` and `coproc NAME ( ...`: a named coprocess, its body a compound command, read
      // too. The quotes are gone by now, so `coproc rm '{' -rf x` looks the same and runs rm: coproc is
      // still read as the wrapper it is as well.
      if (w === 'coproc' && (words[i + 2] === '{' || words[i + 2] === '(')) bodies.push(words.slice(i + 3));
      // su and runuser take the user as a word, with options before or after it (`runuser - root -c '...'`):
      // their command-line options are looked for anywhere after them.
      if (ANYWHERE.has(w.replace(/^.*\//, '')))
        for (let k = i + 1; k < words.length; k++)
          if (words[k]!.startsWith('-')) k = skipOptions(words, k, wrapper, scripts) - 1;
      i = skipOptions(words, i + 1, wrapper, scripts);
      if (wrapper.positional)
        i = skipOptions(words, Math.min(i + wrapper.positional, words.length), wrapper, scripts);
    } else break;
  }
  const rest = words.slice(i);
  const out = rest.length === 0 ? [words] : [words, rest, ...withoutOwnOptions(rest)];
  for (const b of bodies) if (b.length > 0) out.push(...runnable(b, depth));
  const base = rest[0]?.replace(/^.*\//, '');
  if (base !== undefined && SHELLS.has(base)) {
    const script = shellScript(rest);
    if (script !== undefined) scripts.push(script);
    // Generous too: any word after a lone `-c` (`bash -lc x -c 'git push'` runs x, but reads as both).
    const c = rest.indexOf('-c');
    if (c !== -1 && rest[c + 1] !== undefined && rest[c + 1] !== script) scripts.push(rest[c + 1]!);
  }
  if (base === 'eval') scripts.push(rest.slice(1).join(' '));
  // `trap '...' EXIT`, `trap -- '...' EXIT`: the script runs later in the same shell.
  if (base === 'trap') {
    const at = rest[1] === '--' ? 2 : 1;
    if (rest[at] !== undefined && (at === 2 || !rest[at].startsWith('-'))) scripts.push(rest[at]);
  }
  const found = base === 'find' ? findCommands(rest) : [];
  if (depth < SCRIPT_DEPTH_MAX) {
    for (const s of scripts) out.push(...commandViews(s, depth + 1));
    for (const f of found) out.push(...runnable(f, depth + 1));
  } else if (found.length > 0 || scripts.some((s) => s.trim() !== '')) out.push(markView([], 'any'));
  return out;
}

// Every way a deny rule may see the line's commands: the shell's own parts and the looser cut.
function commandViews(line: string, depth = 0): string[][] {
  const parts = [...parseShell(line).parts, ...looseParts(line)];
  return parts.flatMap((w) => runnable(w, depth));
}

/** The longest command line deny rules read (characters; a request's commands together, judge.ts): every deny
 * rule covers a longer one. Reading is linear, but through scripts three levels deep and many views of each
 * command it costs up to ~6-40 ms of CPU a KiB by the shape (`eval eval eval eval -c ...`, `env -S a -S b ...`):
 * the bound keeps one request's judgement to a few hundred ms at worst, whatever the agent sends. */
export const SHELL_READ_MAX = 8 * 1024;

// The deny rule that covers any part of the line, if one does.
export function shellDenied(line: string, deny: readonly ShellRule[]): ShellRule | undefined {
  // Stryker disable next-line ConditionalExpression,BlockStatement: without rules nothing is found either, only later
  if (deny.length === 0) return undefined;
  if (line.length > SHELL_READ_MAX) return deny[0];
  const views = commandViews(line);
  return deny.find(
    (r) =>
      catchAll(r) ||
      views.some((w) => {
        const what = unread.get(w);
        if (what === 'any') return true;
        return what === 'program' ? commandCovered(r, w[0]!) : shellRuleCovers(r, w, 'deny');
      }),
  );
}

// The deny rule that covers a part of the line as written (no wrapper, script or program option seen through):
// what Cursor's copy of the rule is known to stop. `sudo git push` or `git -C . push` may have run.
export function shellDeniedAsWritten(line: string, deny: readonly ShellRule[]): ShellRule | undefined {
  const parts = parseShell(line).parts;
  return deny.find((r) => catchAll(r) || parts.some((w) => shellRuleCovers(r, w, 'deny')));
}

// A path as rules see it: relative to the workspace, `/`-separated; one outside it stays absolute.
export function workspacePath(path: string, cwd: string): string {
  const abs = resolve(cwd, path);
  const rel = relative(cwd, abs);
  // `/`-separated where the platform separates with something else (Windows); on POSIX a backslash is a
  // character of a name: `src\\evil.yml` is a file beside src/, never in it (found by review).
  return rel === '' ? '.' : rel.startsWith('..') || isAbsolute(rel) ? abs : rel.split(sep).join('/');
}

// The characters picomatch reads as a glob's; a path segment without any is a name.
const GLOB_CHARS = /[*?[\]{}()!+@|\\]/;
const GLOB_ESCAPE = /[*?[\]{}()!+@|\\]/g;

/** A path glob as the matcher takes it: its leading names resolved into a directory (`prefix`, absolute,
 * a plain path) and the glob that follows (`rest`, '' when the glob names that one path). */
export interface GlobRoot {
  prefix: string;
  rest: string;
}

// Where a Read(...) or Write(...) glob starts: `~` and `~/` are the home directory, an absolute glob is
// itself, any other is the workspace's; its leading names are resolved there, so `../**` is the parent's
// tree and `../outside/x` that file (found by review: a relative glob that left the workspace never matched).
export function globRoot(glob: string, cwd: string, home: string): GlobRoot {
  const tilde = glob === '~' || glob.startsWith('~/');
  const base = tilde ? home : isAbsolute(glob) ? '/' : cwd;
  const segments = (tilde ? glob.slice(2) : glob).split('/');
  let i = 0;
  while (i < segments.length && !GLOB_CHARS.test(segments[i]!)) i++;
  return { prefix: resolve(base, ...segments.slice(0, i)), rest: segments.slice(i).join('/') };
}

// The absolute glob of a root: its directory escaped (a workspace named `a(1)` is a name), then the rest.
export function globForm(root: GlobRoot): string {
  const dir = root.prefix.replace(GLOB_ESCAPE, '\\$&');
  return root.rest === '' ? dir : `${dir.replace(/\/$/, '')}/${root.rest}`;
}

// Compiled once: a path is judged against every form of every rule.
const matchers = new Map<string, (path: string) => boolean>();
function matcher(form: string): (path: string) => boolean {
  let m = matchers.get(form);
  if (m === undefined) {
    m = picomatch(form, { dot: true });
    matchers.set(form, m);
  }
  return m;
}

// Does any form of a Read(...) or Write(...) rule (absolute globs: the rule as written, and through the real
// path of its leading names, real-paths.ts) cover the path, resolved against the workspace?
export function formsCover(forms: readonly string[], path: string, cwd: string): boolean {
  const abs = resolve(cwd, path);
  return forms.some((f) => matcher(f)(abs));
}

// Does a Read(...) or Write(...) glob, as written, cover a path? Relative globs are the workspace's, `~/`
// the home directory's, absolute ones anywhere.
export function pathCovered(glob: string, path: string, cwd: string, home = homedir()): boolean {
  return formsCover([globForm(globRoot(glob, cwd, home))], path, cwd);
}

// The host a URL or a bare host names, lower-case, without the trailing dot of a fully qualified name
// (`evil.com.` is `evil.com` to DNS): a URL without a scheme (`evil.com/x`, `evil.com:8080/x`, `//evil.com/x`)
// is read as https. Undefined when no host can be read.
export function hostOf(urlOrHost: string): string | undefined {
  for (const candidate of [urlOrHost, `https://${urlOrHost.replace(/^\/\//, '')}`]) {
    try {
      const host = new URL(candidate).hostname.toLowerCase().replace(/\.$/, '');
      if (host !== '') return host;
    } catch {
      // not this reading
    }
  }
  return undefined;
}

// Does a WebFetch(...) domain cover a URL or host? `*` matches any run, so `*.example.com` covers subdomains.
export function domainCovered(domain: string, urlOrHost: string): boolean {
  const host = hostOf(urlOrHost);
  return host !== undefined && new RegExp(`^${globRe(domain.toLowerCase())}$`).test(host);
}
