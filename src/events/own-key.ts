// Pure: one key set on an object as its own property, made if need be. Defined, not assigned: an own
// `__proto__` key from the agent's JSON (JSON.parse makes it an own key) stays a key, never a prototype.
export function keep(
  o: Record<string, unknown> | undefined,
  key: string,
  value: unknown,
): Record<string, unknown> {
  o ??= {};
  Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
  return o;
}
