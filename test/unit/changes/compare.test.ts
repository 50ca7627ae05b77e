import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changesLine, changesOf, classify, nameSome, type Changes } from '../../../src/changes/compare.js';

const mark = { stat: '1:2:3:4:5' };

describe('classify', () => {
  it.each([
    [null, false, false, undefined],
    [null, true, false, 'added'],
    [mark, false, false, 'deleted'],
    ['clean', false, false, 'deleted'],
    [mark, true, true, undefined],
    [mark, true, false, 'modified'],
    ['clean', true, false, 'modified'],
  ] as const)('was %j, exists now %j, same %j: %j', (was, exists, same, change) => {
    expect(classify(was, exists, same)).toBe(change);
  });
});

const none: Changes = { added: [], modified: [], deleted: [], unaccounted: [], truncated: false };

describe('changesLine', () => {
  it.each([
    [none, 'changed no files'],
    [
      { ...none, added: ['new.ts'], modified: ['src/a.ts'], deleted: ['old.md'] },
      'changed 3 files: +new.ts, -old.md, ~src/a.ts',
    ],
    [{ ...none, modified: ['a'] }, 'changed 1 file: ~a'],
    [{ ...none, truncated: true }, 'changed no files (the ledger reached its cap: more may have changed)'],
    [
      { ...none, added: Array.from({ length: 12 }, (_, i) => `f${String(i).padStart(2, '0')}`) },
      'changed 12 files: +f00, +f01, +f02, +f03, +f04, +f05, +f06, +f07, +f08, +f09 and 2 more',
    ],
    // A name the agent chose to read as a list of its own is one quoted name.
    [
      { ...none, added: ['notes.txt, -auth.ts, ~README.md'] },
      'changed 1 file: +"notes.txt, -auth.ts, ~README.md"',
    ],
    [{ ...none, modified: ['a and 9 more'] }, 'changed 1 file: ~"a and 9 more"'],
    [{ ...none, deleted: ['say "hi"\\'] }, 'changed 1 file: -"say \\"hi\\"\\\\"'],
  ])('%j', (c, line) => {
    expect(changesLine(c)).toBe(line);
  });
});

describe('nameSome', () => {
  it.each([
    [['a.ts', 'b c.ts'], 'a.ts, "b c.ts"'],
    [["it's"], '"it\'s"'],
    [[''], '""'],
    [
      Array.from({ length: 11 }, (_, i) => `f ${i}`),
      '"f 0", "f 1", "f 2", "f 3", "f 4", "f 5", "f 6", "f 7", "f 8", "f 9" and 1 more',
    ],
  ])('%j', (names, shown) => {
    expect(nameSome(names)).toBe(shown);
  });

  it('shows n names as n: no name reads as a separator or as the count', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 10 }), (names) => {
        // Read back as a list: each name bare or quoted, each followed by ", " or the end.
        const list = nameSome(names);
        const name = /(?:"(?:[^"\\]|\\.)*"|[^\s,"'\\]+)(?:, |$)/y;
        const parts: string[] = [];
        while (name.lastIndex < list.length) {
          const m = name.exec(list);
          if (m === null) break;
          parts.push(m[0]);
        }
        expect(parts.join('')).toBe(list);
        expect(parts).toHaveLength(names.length);
      }),
    );
  });
});

describe('changesOf', () => {
  it('sorts every changed path into its list, and the ones no tool names into unaccounted', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(
          fc.record({
            path: fc.string({ minLength: 1 }),
            change: fc.constantFrom('added', 'modified', 'deleted') as fc.Arbitrary<
              'added' | 'modified' | 'deleted'
            >,
          }),
          { selector: (c) => c.path },
        ),
        fc.func(fc.boolean()),
        (changed, accounted) => {
          const c = changesOf(changed, accounted, false);
          expect(c.added.length + c.modified.length + c.deleted.length).toBe(changed.length);
          expect(c.unaccounted).toEqual(changed.filter((x) => !accounted(x.path)).map((x) => x.path));
        },
      ),
    );
  });
});
