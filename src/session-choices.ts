// Pure: the models and modes a session offers (session/new's `models` and `modes`, or its `configOptions`, where
// Codex reports them) and the request that sets the one --model or --mode asks for.
import { isRecord, str } from './acp/messages.js';
import { RhoError } from './errors.js';

/** A select config option (ACP v1 configOptions): its id, its values and the current one. */
export interface SelectOption {
  configId: string;
  values: string[];
  current: string | null;
}

export interface SessionChoices {
  /** models.availableModels (set with session/set_model). */
  models: string[];
  currentModel: string | null;
  /** modes.availableModes (set with session/set_mode). */
  modes: string[];
  currentMode: string | null;
  /** The `model` and `mode` config options, where the agent offers them (set with session/set_config_option). */
  modelOption?: SelectOption;
  modeOption?: SelectOption;
}

/** A request that changes the session before the prompt. */
export interface Setting {
  method: 'session/set_model' | 'session/set_mode' | 'session/set_config_option';
  params: Record<string, unknown>;
}

// The values of a select option, its groups flattened.
function selectValues(options: unknown): string[] {
  if (!Array.isArray(options)) return [];
  return options.filter(isRecord).flatMap((o) => {
    if (Array.isArray(o.options)) return selectValues(o.options);
    const v = str(o.value);
    return v === null ? [] : [v];
  });
}

// The select config option of that category (or id), if the agent offers one.
export function selectOption(configOptions: unknown, category: 'model' | 'mode'): SelectOption | undefined {
  if (!Array.isArray(configOptions)) return undefined;
  const o = configOptions
    .filter(isRecord)
    .find((c) => c.type === 'select' && typeof c.id === 'string' && (c.category ?? c.id) === category);
  if (!o) return undefined;
  return { configId: o.id as string, values: selectValues(o.options), current: str(o.currentValue) };
}

// What session/new (or session/load, or a set_config_option answer) says is offered and current.
export function readChoices(session: unknown): SessionChoices {
  const s = isRecord(session) ? session : {};
  const models = isRecord(s.models) ? s.models : {};
  const modes = isRecord(s.modes) ? s.modes : {};
  const modelOption = selectOption(s.configOptions, 'model');
  const modeOption = selectOption(s.configOptions, 'mode');
  const ids = (list: unknown, key: string): string[] =>
    (Array.isArray(list) ? list : []).filter(isRecord).flatMap((m) => str(m[key]) ?? []);
  return {
    models: ids(models.availableModels, 'modelId'),
    currentModel: str(models.currentModelId) ?? modelOption?.current ?? null,
    modes: ids(modes.availableModes, 'id'),
    currentMode: str(modes.currentModeId) ?? modeOption?.current ?? null,
    ...(modelOption ? { modelOption } : {}),
    ...(modeOption ? { modeOption } : {}),
  };
}

// Every mode the session offers, by either route.
export function offeredModes(c: SessionChoices): string[] {
  return [...new Set([...c.modes, ...(c.modeOption?.values ?? [])])];
}

// The request that sets --model for an agent that takes no --model flag; undefined when it offers no way
// (a `model-not-settable` warning). A model it does not offer is exit 2, naming those it does.
export function modelSetting(c: SessionChoices, sessionId: string, model: string): Setting | undefined {
  if (c.models.length > 0 || c.modelOption) {
    const offered = c.models.length > 0 ? c.models : c.modelOption!.values;
    if (!offered.includes(model))
      throw new RhoError(
        'capability_missing',
        `the agent does not offer the model '${model}' (it offers: ${offered.join(', ') || 'none'})`,
      );
    if (c.models.includes(model))
      return { method: 'session/set_model', params: { sessionId, modelId: model } };
    return {
      method: 'session/set_config_option',
      params: { sessionId, configId: c.modelOption!.configId, value: model },
    };
  }
  return undefined;
}

// The request that sets a mode: session/set_mode where modes lists it, else the mode config option. A mode the
// agent does not offer is plan_refused for --plan (exit 1), capability_missing for --mode (exit 2).
export function modeSetting(c: SessionChoices, sessionId: string, mode: string, plan: boolean): Setting {
  if (c.modes.includes(mode)) return { method: 'session/set_mode', params: { sessionId, modeId: mode } };
  if (c.modeOption?.values.includes(mode))
    return {
      method: 'session/set_config_option',
      params: { sessionId, configId: c.modeOption.configId, value: mode },
    };
  const offered = offeredModes(c).join(', ') || 'none';
  if (plan) throw new RhoError('plan_refused', `the agent offers no plan mode (modes: ${offered})`);
  throw new RhoError('capability_missing', `the agent does not offer the mode '${mode}' (modes: ${offered})`);
}
