// Pure: finds a loop in a JSON Schema that validation would follow for ever on any value: a subschema that
// reaches itself through $ref and the keywords that apply to the same value (allOf, anyOf, oneOf, not,
// if/then/else, dependentSchemas), never moving into a property or an item. ajv compiles such a schema
// ({"$ref": "#"}) happily and then overflows the stack on the first value, so the run refuses it at load.

type Json = unknown;
const isObject = (x: Json): x is Record<string, Json> =>
  typeof x === 'object' && x !== null && !Array.isArray(x);

/** Keywords whose subschema applies to the value itself (not to a part of it). */
const SAME_ONE = ['not', 'if', 'then', 'else'] as const;
const SAME_LIST = ['allOf', 'anyOf', 'oneOf'] as const;
const SAME_MAP = ['dependentSchemas', 'dependencies'] as const;
const REFS = ['$ref', '$dynamicRef', '$recursiveRef'] as const;
/** Every keyword that holds subschemas, to find each one (and its $id and anchors). */
const ONE = [
  ...SAME_ONE,
  'additionalProperties',
  'items',
  'additionalItems',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'contentSchema',
];
const LIST = [...SAME_LIST, 'prefixItems', 'items'];
const MAP = [...SAME_MAP, 'properties', 'patternProperties', '$defs', 'definitions'];

interface Node {
  schema: Record<string, Json>;
  pointer: string;
  base: string;
}

const ROOT_BASE = 'rho-schema:/root';

// Pure: the JSON pointer of a subschema where a loop that consumes nothing starts, or undefined.
export function selfLoop(root: Json): string | undefined {
  const nodes = new Map<string, Node>();
  const ids = new Map<string, string>();
  index(root, '', ROOT_BASE, nodes, ids);
  const state = new Map<string, 'open' | 'done'>();
  for (const start of nodes.keys()) {
    const loop = visit(start, nodes, ids, state);
    if (loop !== undefined) return loop;
  }
  return undefined;
}

// Depth-first over same-value edges; a node met again while still open closes a loop.
function visit(
  start: string,
  nodes: Map<string, Node>,
  ids: Map<string, string>,
  state: Map<string, 'open' | 'done'>,
): string | undefined {
  if (state.has(start)) return undefined;
  // An explicit stack: a deep schema must not overflow this check either.
  const stack: Array<{ at: string; next: string[] }> = [{ at: start, next: edges(nodes.get(start)!, ids) }];
  state.set(start, 'open');
  while (stack.length > 0) {
    const top = stack[stack.length - 1]!;
    const to = top.next.pop();
    if (to === undefined) {
      state.set(top.at, 'done');
      stack.pop();
      continue;
    }
    const seen = state.get(to);
    if (seen === 'open') return to === '' ? '#' : `#${to}`;
    const node = nodes.get(to);
    if (seen === 'done' || !node) continue;
    state.set(to, 'open');
    stack.push({ at: to, next: edges(node, ids) });
  }
  return undefined;
}

// Records every subschema by pointer, and every $id and anchor by the URI that names it.
function index(
  schema: Json,
  pointer: string,
  parentBase: string,
  nodes: Map<string, Node>,
  ids: Map<string, string>,
): void {
  const todo: Array<[Json, string, string]> = [[schema, pointer, parentBase]];
  while (todo.length > 0) {
    const [s, p, b] = todo.pop()!;
    if (!isObject(s) || nodes.has(p)) continue;
    const base = typeof s.$id === 'string' ? (resolveUri(s.$id, b) ?? b) : b;
    if (typeof s.$id === 'string') ids.set(stripHash(base), p);
    for (const k of ['$anchor', '$dynamicAnchor'])
      if (typeof s[k] === 'string') ids.set(`${stripHash(base)}#${s[k]}`, p);
    nodes.set(p, { schema: s, pointer: p, base });
    for (const k of ONE) if (k in s) todo.push([s[k], `${p}/${esc(k)}`, base]);
    for (const k of LIST)
      if (Array.isArray(s[k]))
        (s[k] as Json[]).forEach((x, i) => todo.push([x, `${p}/${esc(k)}/${i}`, base]));
    for (const k of MAP)
      if (isObject(s[k]))
        for (const [n, x] of Object.entries(s[k] as object)) todo.push([x, `${p}/${esc(k)}/${esc(n)}`, base]);
  }
}

// The subschemas that apply to the same value as this one (their pointers).
function edges(n: Node, ids: Map<string, string>): string[] {
  const s = n.schema;
  const out: string[] = [];
  for (const k of SAME_ONE) if (isObject(s[k])) out.push(`${n.pointer}/${k}`);
  for (const k of SAME_LIST)
    if (Array.isArray(s[k])) (s[k] as Json[]).forEach((_, i) => out.push(`${n.pointer}/${k}/${i}`));
  for (const k of SAME_MAP)
    if (isObject(s[k]))
      for (const [name, x] of Object.entries(s[k] as object))
        if (isObject(x)) out.push(`${n.pointer}/${k}/${esc(name)}`);
  for (const k of REFS) {
    const ref = s[k];
    if (typeof ref !== 'string') continue;
    const target = k === '$recursiveRef' ? '' : resolveRef(ref, n.base, ids);
    if (target !== undefined) out.push(target);
  }
  return out;
}

// A $ref as the pointer of the subschema it names, where it names one in this document.
function resolveRef(ref: string, base: string, ids: Map<string, string>): string | undefined {
  const uri = resolveUri(ref, base);
  if (uri === undefined) return undefined;
  const hash = uri.indexOf('#');
  const doc = hash === -1 ? uri : uri.slice(0, hash);
  const fragment = hash === -1 ? '' : decodeURIComponent(uri.slice(hash + 1));
  const docPointer = ids.get(doc) ?? (doc === ROOT_BASE ? '' : undefined);
  if (fragment === '' || fragment.startsWith('/'))
    return docPointer === undefined ? undefined : docPointer + fragment;
  return ids.get(`${doc}#${fragment}`);
}

function resolveUri(ref: string, base: string): string | undefined {
  try {
    return new URL(ref, base).href;
  } catch {
    return undefined;
  }
}

const stripHash = (uri: string): string => (uri.includes('#') ? uri.slice(0, uri.indexOf('#')) : uri);
const esc = (k: string): string => k.replace(/~/g, '~0').replace(/\//g, '~1');
