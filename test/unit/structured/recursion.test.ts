import { describe, expect, it } from 'vitest';
import { selfLoop } from '../../../src/structured/recursion.js';

describe('selfLoop finds a loop validation would follow for ever on the same value', () => {
  it.each<[string, unknown, string | RegExp]>([
    ['the root referring to itself', { $ref: '#' }, '#'],
    ['through not', { not: { $ref: '#' } }, '#'],
    ['through if', { if: { $ref: '#' } }, '#'],
    ['through then', { then: { $ref: '#' } }, '#'],
    ['through else', { else: { $ref: '#' } }, '#'],
    ['through allOf', { allOf: [{}, { $ref: '#' }] }, '#'],
    ['through anyOf', { anyOf: [{ $ref: '#' }] }, '#'],
    ['through oneOf', { oneOf: [{ type: 'string' }, { $ref: '#' }] }, '#'],
    ['through dependentSchemas', { dependentSchemas: { a: { $ref: '#' } } }, '#'],
    ['through dependencies (draft-07)', { dependencies: { a: { $ref: '#' } } }, '#'],
    ['through $dynamicRef', { $dynamicRef: '#' }, '#'],
    ['through $recursiveRef (always the root)', { allOf: [{ $recursiveRef: '#/anything' }] }, '#'],
    [
      'between two $defs',
      { $defs: { a: { $ref: '#/$defs/b' }, b: { $ref: '#/$defs/a' } } },
      /^#\/\$defs\/[ab]$/,
    ],
    ['a $def referring to itself', { $defs: { a: { allOf: [{ $ref: '#/$defs/a' }] } } }, '#/$defs/a'],
    [
      'through definitions (draft-07)',
      { definitions: { a: { $ref: '#/definitions/a' } } },
      '#/definitions/a',
    ],
    ['by an $anchor', { $defs: { a: { $anchor: 'here', not: { $ref: '#here' } } } }, '#/$defs/a'],
    [
      'by a $dynamicAnchor',
      { $defs: { a: { $dynamicAnchor: 'node', anyOf: [{ $ref: '#node' }] } } },
      '#/$defs/a',
    ],
    ['by the root $id', { $id: 'https://example.com/s', $ref: 'https://example.com/s' }, '#'],
    [
      'by a nested $id, relative to the root one',
      { $id: 'https://example.com/root', $defs: { a: { $id: 'a', $ref: 'a' } } },
      '#/$defs/a',
    ],
    [
      'by a pointer inside a nested $id',
      { $id: 'https://example.com/root', $defs: { a: { $id: 'a', $defs: { b: { $ref: 'a#/$defs/b' } } } } },
      '#/$defs/a/$defs/b',
    ],
    [
      'by an anchor inside a nested $id',
      { $id: 'https://example.com/r', $defs: { a: { $id: 'a', $anchor: 'x', not: { $ref: 'a#x' } } } },
      '#/$defs/a',
    ],
    [
      'a pointer escaped with ~1 and ~0',
      { $defs: { 'a/b~c': { $ref: '#/$defs/a~1b~0c' } } },
      '#/$defs/a~1b~0c',
    ],
    ['a pointer percent-encoded', { $defs: { 'a b': { $ref: '#/$defs/a%20b' } } }, '#/$defs/a b'],
    [
      'found from a subschema deep inside properties',
      { properties: { x: { items: { $defs: { a: { $ref: '#/properties/x/items/$defs/a' } } } } } },
      '#/properties/x/items/$defs/a',
    ],
  ])('%s', (_, schema, at) => {
    if (typeof at === 'string') expect(selfLoop(schema)).toBe(at);
    else expect(selfLoop(schema)).toMatch(at);
  });
});

// Every keyword that holds subschemas is searched for loops inside them.
describe('selfLoop finds a loop inside any subschema', () => {
  const loop = { not: { $ref: '#/$defs/x' } };
  it.each<[string, unknown, string]>([
    ['additionalProperties', { additionalProperties: loop }, '/additionalProperties'],
    ['items', { items: loop }, '/items'],
    ['additionalItems', { additionalItems: loop }, '/additionalItems'],
    ['contains', { contains: loop }, '/contains'],
    ['propertyNames', { propertyNames: loop }, '/propertyNames'],
    ['unevaluatedItems', { unevaluatedItems: loop }, '/unevaluatedItems'],
    ['unevaluatedProperties', { unevaluatedProperties: loop }, '/unevaluatedProperties'],
    ['contentSchema', { contentSchema: loop }, '/contentSchema'],
    ['prefixItems', { prefixItems: [{}, loop] }, '/prefixItems/1'],
    ['items as a list', { items: [loop] }, '/items/0'],
    ['properties', { properties: { p: loop } }, '/properties/p'],
    ['patternProperties', { patternProperties: { '^a': loop } }, '/patternProperties/^a'],
    ['definitions', { definitions: { d: loop } }, '/definitions/d'],
  ])('%s', (_, schema, at) => {
    const s = JSON.parse(JSON.stringify(schema).replace('#/$defs/x', `#${at}`)) as unknown;
    expect(selfLoop(s)).toBe(`#${at}`);
  });
});

describe('selfLoop takes a schema that moves into the value or ends', () => {
  it.each<[string, unknown]>([
    ['no $ref at all', { type: 'object', properties: { a: { type: 'string' } } }],
    ['a boolean schema', true],
    ['not an object', 'string'],
    ['a $ref into a property', { properties: { a: { $ref: '#' } } }],
    ['a $ref into items', { items: { $ref: '#' } }],
    ['a $ref into prefixItems', { prefixItems: [{ $ref: '#' }] }],
    ['a $ref into additionalProperties', { additionalProperties: { $ref: '#' } }],
    ['a $ref into patternProperties', { patternProperties: { '^a': { $ref: '#' } } }],
    ['a $ref into contains', { contains: { $ref: '#' } }],
    ['a $ref into propertyNames', { propertyNames: { $ref: '#' } }],
    ['a $ref into unevaluatedProperties', { unevaluatedProperties: { $ref: '#' } }],
    ['a $ref into unevaluatedItems', { unevaluatedItems: { $ref: '#' } }],
    ['a $ref into additionalItems', { additionalItems: { $ref: '#' } }],
    ['a $ref into contentSchema', { contentSchema: { $ref: '#' } }],
    [
      'a chain of $defs that ends',
      { $ref: '#/$defs/a', $defs: { a: { $ref: '#/$defs/b' }, b: { type: 'string' } } },
    ],
    [
      'two refs to the same $def (met twice, no loop)',
      { allOf: [{ $ref: '#/$defs/a' }, { $ref: '#/$defs/a' }], $defs: { a: {} } },
    ],
    ['a $ref to another document', { $ref: 'https://example.com/other' }],
    ["a $ref to the root's member named '' (not the root)", { $ref: '#/' }],
    ['a $ref to a pointer that does not exist', { $ref: '#/$defs/none' }],
    ['a $ref to an anchor that does not exist', { $ref: '#nowhere' }],
    ['a $ref that is no URI', { $ref: 'http://[' }],
    ['a $ref that is not a string', { $ref: 1, allOf: 'x', dependentSchemas: { a: true } }],
    ['an anchor that is not a string', { $anchor: 1, $ref: '#1' }],
    ['an $id that is not a string', { $id: 1, $ref: '1' }],
    ['a non-schema under a same-value keyword', { not: 'x', if: true, allOf: [true, 1] }],
    ['a $ref into an item of a draft-07 items list', { items: [{ $ref: '#' }] }],
    [
      'a nested $id shadowing the root: its #/ is its own document',
      {
        $id: 'https://example.com/r',
        $defs: { a: { $id: 'a', allOf: [{ $ref: '#/$defs/b' }], $defs: { b: { type: 'string' } } } },
      },
    ],
  ])('%s', (_, schema) => {
    expect(selfLoop(schema)).toBeUndefined();
  });
});
