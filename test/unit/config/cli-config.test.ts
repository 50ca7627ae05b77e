import { describe, expect, it } from 'vitest';
import {
  configProblems,
  effectiveConfig,
  parseConfigText,
  permissionsOf,
} from '../../../src/config/cli-config.js';
import { RhoError } from '../../../src/errors.js';

const PATH = '/home/dev/.cursor/cli-config.json';

// The error parseConfigText throws for a text, or undefined.
function errorOf(text: string): unknown {
  try {
    parseConfigText(PATH, text);
  } catch (err) {
    return err;
  }
  return undefined;
}

describe('parseConfigText', () => {
  it('returns the object a valid file holds', () => {
    expect(parseConfigText(PATH, '{"version":1,"approvalMode":"allowlist"}')).toEqual({
      version: 1,
      approvalMode: 'allowlist',
    });
  });

  it.each(['{', '{"version": 1,}', '', 'approvalMode: allowlist'])(
    'rejects invalid JSON %j as config_invalid naming the file',
    (text) => {
      const err = errorOf(text);
      expect(err).toBeInstanceOf(RhoError);
      expect(err).toMatchObject({ code: 'config_invalid', exitCode: 2 });
      expect((err as Error).message).toContain(`${PATH} is not valid JSON`);
    },
  );

  // Found by review: V8's message quotes the file (a link to a credentials file printed its first characters,
  // an unquoted key ten of its own). The error says where and what in general terms, never the text.
  it.each([
    ['AKIAIOSFODNN7EXAMPLE\nwJalrXUtnFEMI/K7MDENG', 'AKIA', 'line 1, column 1: a value was expected'],
    ['{"apiKey": sk-test-abcdef0123456789}', 'sk-test', 'line 1, column 12: a value was expected'],
    ['{\n  "a": 1\n  "b": "s3cr3t"\n}', 's3cr3t', "line 3, column 3: ',' or '}' was expected"],
    ['{"a": "s3cr3t-unclosed', 's3cr3t', 'line 1, column 7: a string is not closed'],
    ['{"a": "s3cr3t\tx"}', 's3cr3t', 'line 1, column 14: a control character in a string'],
    ['{"a": 1} s3cr3t', 's3cr3t', 'line 1, column 10: more text after the JSON value'],
    ['{"a": [1, 2', '[1', 'line 1, column 12: the text ends before the JSON does'],
    ['\ufeff{}', '{}', 'line 1, column 1: a byte order mark'],
  ])('names where %j is invalid, never its text', (text, secret, where) => {
    const message = (errorOf(text) as Error).message;
    expect(message).toContain(`${PATH} is not valid JSON (${where}`);
    expect(message).not.toContain(secret);
  });

  it.each(['[]', 'null', '42', '"allowlist"'])('rejects %s as not a JSON object', (text) => {
    const err = errorOf(text);
    expect(err).toMatchObject({ code: 'config_invalid', exitCode: 2 });
    expect((err as Error).message).toContain(`${PATH} must hold a JSON object`);
  });
});

describe('permissionsOf', () => {
  it.each([
    { name: 'no config', data: undefined },
    { name: 'no permissions', data: { version: 1 } },
    { name: 'permissions that are a string', data: { permissions: 'none' } },
    { name: 'lists that are not arrays', data: { permissions: { allow: 'Shell(ls)', deny: {} } } },
  ])('is empty for $name', ({ data }) => {
    expect(permissionsOf(data)).toEqual({ allow: [], deny: [] });
  });

  it('keeps only the string rules', () => {
    expect(
      permissionsOf({ permissions: { allow: ['Shell(ls)', 3, null], deny: ['Write(**)', { x: 1 }] } }),
    ).toEqual({
      allow: ['Shell(ls)'],
      deny: ['Write(**)'],
    });
  });
});

describe('effectiveConfig', () => {
  it("defaults approvalMode to Cursor's unrestricted, marked as not set", () => {
    expect(effectiveConfig(undefined, undefined)).toEqual({
      approvalMode: 'unrestricted',
      approvalModeSet: false,
      permissions: { allow: [], deny: [] },
    });
  });

  it.each([
    { approvalMode: 'allowlist', mode: 'allowlist', set: true },
    { approvalMode: 'unrestricted', mode: 'unrestricted', set: true },
    { approvalMode: 'yolo', mode: 'yolo', set: true },
    { approvalMode: 5, mode: 'unrestricted', set: false },
  ])("reads the user's approvalMode $approvalMode", ({ approvalMode, mode, set }) => {
    expect(effectiveConfig({ approvalMode }, undefined)).toMatchObject({
      approvalMode: mode,
      approvalModeSet: set,
    });
  });

  it("adds the project's permissions after the user's", () => {
    const user = { approvalMode: 'allowlist', permissions: { allow: ['Shell(ls)'], deny: ['Shell(rm *)'] } };
    const project = { permissions: { allow: ['Read(src/**)'], deny: ['Write(**)'] } };
    expect(effectiveConfig(user, project).permissions).toEqual({
      allow: ['Shell(ls)', 'Read(src/**)'],
      deny: ['Shell(rm *)', 'Write(**)'],
    });
  });

  it('takes the permissions of a project file alone', () => {
    expect(effectiveConfig(undefined, { permissions: { deny: ['Shell(*)'] } }).permissions).toEqual({
      allow: [],
      deny: ['Shell(*)'],
    });
  });
});

describe('configProblems', () => {
  it.each<[string, Record<string, unknown>]>([
    ['an empty file', {}],
    [
      'a full one',
      { version: 1, approvalMode: 'allowlist', permissions: { allow: ['Shell(ls)'], deny: [] } },
    ],
    ['permissions without lists', { permissions: {} }],
    ['an unknown approvalMode string (warned about, not refused)', { approvalMode: 'yolo' }],
  ])('finds nothing wrong with %s', (_, data) => {
    expect(configProblems(data)).toEqual([]);
  });

  it.each<[string, Record<string, unknown>, RegExp]>([
    ['approvalMode a number', { approvalMode: 5 }, /^approvalMode must be a string .*got 5/],
    ['approvalMode null', { approvalMode: null }, /^approvalMode must be a string/],
    ['permissions a string', { permissions: 'none' }, /^permissions must be an object/],
    ['permissions an array', { permissions: [] }, /^permissions must be an object/],
    [
      'deny a string',
      { permissions: { deny: 'Shell(*)' } },
      /^permissions\.deny must be an array .*"Shell\(\*\)"/,
    ],
    ['allow an object', { permissions: { allow: {} } }, /^permissions\.allow must be an array/],
    [
      'deny holding a number',
      { permissions: { deny: ['Shell(*)', 3] } },
      /^permissions\.deny must hold only rule strings/,
    ],
  ])('refuses %s', (_, data, message) => {
    const problems = configProblems(data);
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(message);
  });

  it("ignores a project file's approvalMode (Cursor reads only its permissions)", () => {
    expect(configProblems({ approvalMode: 5 }, true)).toEqual([]);
    expect(configProblems({ permissions: { deny: 'x' } }, true)).toHaveLength(1);
  });
});
