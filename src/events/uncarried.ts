// Pure: what of an object from the agent an event does not carry, kept as its `extra` (nothing the agent sent
// is lost). The agent's requests are read with it, as updates.ts reads its updates: once per request (and
// per question, option or todo in it), never per chunk or tool update.
import { isRecord } from '../acp/messages.js';
import { keep } from './own-key.js';

/** What of a named field's value the event does not carry, as sent (undefined: all of it); `o` holds it. */
export type Carried = (v: unknown, o: Record<string, unknown>, k: string) => unknown;

// A field the event carries whatever it holds (an id, written as its text).
export const anyValue: Carried = () => undefined;

// A string field: a value of another type is not carried; null is nothing sent.
export const text: Carried = (v) => (typeof v === 'string' || v === null ? undefined : v);

// A list of objects: its entries that are no object are not carried (as a list), nor a value that is no list.
export const objects: Carried = (v) => {
  if (v === null) return undefined;
  if (!Array.isArray(v)) return v;
  const rest = v.filter((e) => !isRecord(e));
  return rest.length > 0 ? rest : undefined;
};

// Fields of which the event shows the first that is a string (a plan's name, else its title): each is
// carried only when it is that one.
export function firstString(...keys: string[]): Carried {
  return (v, o, k) => {
    if (v === null) return undefined;
    return keys.find((x) => typeof o[x] === 'string') === k ? undefined : v;
  };
}

// The fields of `o` its event does not carry, each as `prefix` + its name, added to `extra` (undefined when
// none and no extra): a field `named` does not name whole, and of a named one what its Carried says.
export function uncarried(
  o: Record<string, unknown>,
  named: Readonly<Record<string, Carried>>,
  prefix = '',
  extra?: Record<string, unknown>,
): Record<string, unknown> | undefined {
  // for-in: o comes from JSON.parse, a plain object with no inherited key to enumerate.
  for (const k in o) {
    const v = o[k];
    const left = Object.hasOwn(named, k) ? named[k]!(v, o, k) : v;
    // Defined, not assigned (own-key.ts): an own `__proto__` key stays a key.
    if (left !== undefined) extra = keep(extra, prefix + k, left);
  }
  return extra;
}

// A request's params its event does not carry, as `params.<name>` (as an update's params are named,
// updates.ts paramsExtra); params that are no object (JSON-RPC allows an array), whole as `params`.
export function paramsRest(
  params: unknown,
  named: Readonly<Record<string, Carried>>,
): Record<string, unknown> | undefined {
  if (isRecord(params)) return uncarried(params, named, 'params.');
  return params === undefined || params === null ? undefined : { params };
}

// An object with its extra, when there is one.
export function withExtra<T extends object>(
  o: T,
  extra: Record<string, unknown> | undefined,
): T & { extra?: Record<string, unknown> } {
  return extra === undefined ? o : { ...o, extra };
}
