import { describe, expect, it } from 'vitest';
import { modelSetting, modeSetting, readChoices, selectOption } from '../../src/session-choices.js';

const select = (id: string, currentValue: string, values: string[]) => ({
  type: 'select',
  id,
  name: id,
  category: id,
  currentValue,
  options: values.map((value) => ({ value, name: value })),
});
const CLAUDE = readChoices({
  sessionId: 's',
  models: { currentModelId: 'default', availableModels: [{ modelId: 'default' }, { modelId: 'opus' }] },
  modes: { currentModeId: 'default', availableModes: [{ id: 'default' }, { id: 'plan' }] },
});
const CODEX = readChoices({
  sessionId: 's',
  configOptions: [
    select('mode', 'auto', ['read-only', 'auto']),
    select('model', 'm/medium', ['m/low', 'm/medium']),
  ],
});
const NOTHING = readChoices({ sessionId: 's' });

describe('readChoices', () => {
  it('reads models and modes, or their config options', () => {
    expect(CLAUDE).toMatchObject({
      models: ['default', 'opus'],
      currentModel: 'default',
      currentMode: 'default',
    });
    expect(CODEX).toMatchObject({ models: [], modes: [], currentModel: 'm/medium', currentMode: 'auto' });
  });

  it('flattens grouped select options and finds an option by id where it has no category', () => {
    const o = selectOption(
      [
        {
          type: 'select',
          id: 'model',
          name: 'M',
          currentValue: 'a',
          options: [
            {
              group: 'g',
              name: 'G',
              options: [
                { value: 'a', name: 'A' },
                { value: 'b', name: 'B' },
              ],
            },
          ],
        },
      ],
      'model',
    );
    expect(o).toEqual({ configId: 'model', values: ['a', 'b'], current: 'a' });
  });
});

describe('modelSetting', () => {
  it.each([
    {
      c: CLAUDE,
      model: 'opus',
      want: { method: 'session/set_model', params: { sessionId: 's', modelId: 'opus' } },
    },
    {
      c: CODEX,
      model: 'm/low',
      want: {
        method: 'session/set_config_option',
        params: { sessionId: 's', configId: 'model', value: 'm/low' },
      },
    },
    { c: NOTHING, model: 'x', want: undefined },
  ])('$model', ({ c, model, want }) => {
    expect(modelSetting(c, 's', model)).toEqual(want);
  });

  it('refuses a model the agent does not offer, listing those it does (exit 2)', () => {
    expect(() => modelSetting(CODEX, 's', 'gpt-4')).toThrow(
      /does not offer the model 'gpt-4' \(it offers: m\/low, m\/medium\)/,
    );
    expect(() => modelSetting(CLAUDE, 's', 'gpt-4')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });
});

describe('modeSetting', () => {
  it('sets a listed mode with session/set_mode, a config-option mode with set_config_option', () => {
    expect(modeSetting(CLAUDE, 's', 'plan', true)).toEqual({
      method: 'session/set_mode',
      params: { sessionId: 's', modeId: 'plan' },
    });
    expect(modeSetting(CODEX, 's', 'read-only', false)).toEqual({
      method: 'session/set_config_option',
      params: { sessionId: 's', configId: 'mode', value: 'read-only' },
    });
  });

  it('refuses a mode not offered: plan_refused for --plan (exit 1), capability_missing for --mode (exit 2)', () => {
    expect(() => modeSetting(CODEX, 's', 'plan', true)).toThrow(
      expect.objectContaining({ code: 'plan_refused', exitCode: 1 }),
    );
    expect(() => modeSetting(CODEX, 's', 'yolo', false)).toThrow(
      expect.objectContaining({ code: 'capability_missing', exitCode: 2 }),
    );
  });
});
