// Pure: --allow and --deny values in Cursor's rule syntax (Shell, Read, Write, WebFetch, Mcp) or a bare tool
// kind, parsed once into rules, and each rule written back in the form Cursor's cli-config.json takes.
import { domainToASCII } from 'node:url';
import { RhoError } from '../errors.js';
import { TOOL_KINDS, type ToolKind } from '../options.js';

export type Rule =
  | { type: 'kind'; kind: ToolKind; text: string }
  /** command: a glob for the first word; args: a glob for the rest (undefined: any); prefix: `args:*` form. */
  | { type: 'Shell'; command: string; args: string | undefined; prefix: boolean; text: string }
  /** forms: the absolute globs it is matched by in this run (real-paths.ts resolvePathRules); unset: as written. */
  | { type: 'Read' | 'Write'; glob: string; text: string; forms?: readonly string[] }
  | { type: 'WebFetch'; domain: string; text: string }
  | { type: 'Mcp'; server: string; tool: string; text: string };

export interface RuleSet {
  allow: Rule[];
  deny: Rule[];
}

export const NO_RULES: RuleSet = { allow: [], deny: [] };

const HEADS = ['Shell', 'Read', 'Write', 'WebFetch', 'Mcp'] as const;

// The usage error of a value that is neither a kind nor a rule, naming it.
function malformed(option: string, value: string, why: string): RhoError {
  return new RhoError(
    'usage',
    `option '${option}' got a malformed rule '${value}': ${why}; give a tool kind (${TOOL_KINDS.join(', ')}) or a rule: Shell(cmd), Shell(cmd:args), Read(glob), Write(glob), WebFetch(domain), Mcp(server:tool)`,
  );
}

// Parses one --allow or --deny value; throws a one-line usage error naming it when it is malformed.
export function parseRule(option: '--allow' | '--deny', value: string): Rule {
  const text = value.trim();
  if ((TOOL_KINDS as readonly string[]).includes(text)) return { type: 'kind', kind: text as ToolKind, text };
  // eslint-disable-next-line no-control-regex -- refusing control characters is the point
  if (/[\0-\x1f\x7f]/.test(text))
    throw malformed(option, JSON.stringify(value).slice(1, -1), 'control characters');
  const m = /^([A-Za-z]+)\((.*)\)$/s.exec(text);
  if (!m) throw malformed(option, value, 'not a tool kind, and not Kind(...)');
  const head = HEADS.find((h) => h.toLowerCase() === m[1]!.toLowerCase());
  if (!head) throw malformed(option, value, `unknown rule '${m[1]}'`);
  const body = m[2]!.trim();
  if (body === '') throw malformed(option, value, 'nothing between the parentheses');
  switch (head) {
    case 'Shell':
      return shellRule(option, value, body);
    case 'Read':
    case 'Write': {
      const glob = body.replace(/^\.\//, '');
      return { type: head, glob, text: `${head}(${glob})` };
    }
    case 'WebFetch': {
      const domain = hostForm(option, value, body);
      return { type: 'WebFetch', domain, text: `WebFetch(${domain})` };
    }
    case 'Mcp': {
      const [server, tool, extra] = body.split(':').map((s) => s.trim());
      if (!server || !tool || extra !== undefined) throw malformed(option, value, 'Mcp takes server:tool');
      return { type: 'Mcp', server, tool, text: `Mcp(${server}:${tool})` };
    }
  }
}

// A WebFetch(...) domain in the form a URL's host takes (match.ts hostOf reads it through the WHATWG URL
// parser): ASCII (`münchen.de` is `xn--mnchen-3ya.de`), lower case, without the trailing dot of a fully
// qualified name; a `*` stays a wildcard. A scheme, a port, a path or user info would never match a host: a
// usage error rather than a rule that silently covers nothing (found by review).
function hostForm(option: '--allow' | '--deny', value: string, body: string): string {
  const no = (what: string): RhoError => malformed(option, value, `a domain has no ${what}`);
  if (/\s/.test(body)) throw no('spaces');
  if (/^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(body)) throw no('scheme (give the host alone: example.com)');
  if (/[/\\?#]/.test(body)) throw no('path');
  if (body.includes('@')) throw no('user info');
  if (/:\d*$/.test(body)) throw no('port');
  const ascii = body.includes('*')
    ? body
        .split('.')
        .map((label) => (label.includes('*') ? label.toLowerCase() : domainToASCII(label)))
        .join('.')
    : domainToASCII(body);
  const host = ascii.replace(/\.$/, '');
  // A label left empty (`a..b`) or unconvertible (`xn--zz`, a wildcard label that is not ASCII) is no host.
  if (host === '' || host.split('.').some((l) => l === '') || !/^[\x21-\x7e]+$/.test(host))
    throw malformed(option, value, 'not a domain name');
  return host;
}

// Shell(npm), Shell(npm test), Shell(npm:test), Shell(npx vitest:*): the first word is the command, the rest
// an argument glob; a trailing `:*` after arguments (`npx vitest:*`) means those words and anything after.
function shellRule(option: '--allow' | '--deny', value: string, body: string): Rule {
  const words = body.split(/\s+/);
  let command: string;
  let args: string | undefined;
  let prefix = false;
  if (words.length > 1) {
    command = words[0]!;
    args = words.slice(1).join(' ');
  } else {
    const colon = body.indexOf(':');
    command = colon === -1 ? body : body.slice(0, colon);
    args = colon === -1 ? undefined : body.slice(colon + 1);
  }
  if (args !== undefined && args.length > 2 && args.endsWith(':*')) {
    prefix = true;
    args = args.slice(0, -2).trim();
  }
  if (command === '' || command.includes(':')) throw malformed(option, value, 'Shell needs a command first');
  if (args === '') throw malformed(option, value, 'nothing after the command');
  const text =
    args === undefined
      ? `Shell(${command})`
      : prefix
        ? `Shell(${command} ${args}:*)`
        : `Shell(${command}:${args})`;
  return { type: 'Shell', command, args, prefix, text };
}

// Parses every --allow and --deny value, collecting one usage error per malformed value.
export function parseRules(
  allow: readonly string[],
  deny: readonly string[],
): { rules: RuleSet; errors: RhoError[] } {
  const errors: RhoError[] = [];
  const parse = (option: '--allow' | '--deny', vs: readonly string[]): Rule[] =>
    vs.flatMap((v) => {
      try {
        return [parseRule(option, v)];
      } catch (e) {
        if (!(e instanceof RhoError)) throw e;
        errors.push(e);
        return [];
      }
    });
  return { rules: { allow: parse('--allow', allow), deny: parse('--deny', deny) }, errors };
}

// The deny rule Cursor gets for a denied kind (others are enforced by answers alone).
const KIND_DENY: Partial<Record<ToolKind, string>> = {
  execute: 'Shell(*)',
  edit: 'Write(**)',
  delete: 'Write(**)',
  move: 'Write(**)',
  read: 'Read(**)',
};

// One rule in Cursor's `cmd:args` form. A deny of `git push` also denies `git push <anything>`, and a prefix
// allow (`npx vitest:*`) is the words alone or followed by anything: two Cursor rules, never a wider one.
export function cursorForm(rule: Rule, side: 'allow' | 'deny'): string[] {
  switch (rule.type) {
    case 'kind': {
      const d = side === 'deny' ? KIND_DENY[rule.kind] : undefined;
      return d ? [d] : [];
    }
    case 'Shell': {
      if (rule.args === undefined) return [`Shell(${rule.command})`];
      const exact = `Shell(${rule.command}:${rule.args})`;
      const wider = rule.prefix || (side === 'deny' && !rule.args.endsWith('*'));
      return wider ? [exact, `Shell(${rule.command}:${rule.args} *)`] : [exact];
    }
    default:
      return [rule.text];
  }
}

// The rules as the session event and doctor show them: each value as rho-cursor read it.
export function rulesJson(r: RuleSet): { allow: string[]; deny: string[] } {
  return { allow: r.allow.map((x) => x.text), deny: r.deny.map((x) => x.text) };
}

// The kinds given bare to --allow (today's meaning: allow once that kind's requests).
export const allowedKinds = (r: RuleSet): ToolKind[] =>
  r.allow.flatMap((x) => (x.type === 'kind' ? [x.kind] : []));

/** The kinds of rule whose deny rules Cursor does not hold: WebFetch(...) (the spike: a fetch under a
 * `WebFetch(*)` deny still asked) and Mcp(...) (never observed, so not trusted). */
export type UnheldHead = 'WebFetch' | 'Mcp';

/** The rules as Cursor's cli-config.json takes them. */
export interface CursorRules {
  allow: string[];
  deny: string[];
  /** The kinds of rule the run denies that Cursor does not hold: their allow rules must go from Cursor's config,
   * which must be allowlist, so what they cover asks and rho-cursor's answer decides (fence/rules.ts). */
  unheld?: UnheldHead[];
}

// Every rule in Cursor's form, once each; empty when the run's rules are bare allowed kinds only. A fetch deny
// (WebFetch(...), or a bare --deny fetch, which has no Cursor form) and an Mcp(...) deny are said in `unheld`.
export function cursorRules(r: RuleSet): CursorRules {
  const all = (rs: Rule[], side: 'allow' | 'deny'): string[] => [
    ...new Set(rs.flatMap((x) => cursorForm(x, side))),
  ];
  const unheld: UnheldHead[] = [];
  if (r.deny.some((x) => x.type === 'WebFetch' || (x.type === 'kind' && x.kind === 'fetch')))
    unheld.push('WebFetch');
  if (r.deny.some((x) => x.type === 'Mcp')) unheld.push('Mcp');
  return {
    allow: all(r.allow, 'allow'),
    deny: all(r.deny, 'deny'),
    ...(unheld.length > 0 ? { unheld } : {}),
  };
}

// Does the run need Cursor's config to carry rules (and so a private config dir)? Also for a deny Cursor does
// not hold: only a private allowlist config makes what it covers ask (found by review: `--deny fetch` under the
// user's `WebFetch(*)` allow, or under unrestricted, never asked).
export const needsCursorRules = (c: CursorRules): boolean =>
  c.allow.length + c.deny.length > 0 || (c.unheld?.length ?? 0) > 0;

// The kinds given bare to --deny: every request of one is rejected, whatever else the rules say.
export const deniedKinds = (r: RuleSet): ToolKind[] =>
  r.deny.flatMap((x) => (x.type === 'kind' ? [x.kind] : []));
