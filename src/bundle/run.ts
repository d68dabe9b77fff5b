/**
 * `bundle run --mock`: a local dry run of one workflow, without a control plane, a model or a gateway.
 * Model steps answer from the bundle's `mock` section as the kernos mock provider does (compat-kernos §5),
 * action steps are decided by one local decision (`--decide`), tool steps answer from canned results
 * (`--tools`). Outputs are checked against their schemas, low confidence escalates, and when a step
 * fails the completed steps' compensations run in reverse order. The result is a trace.
 */
import { kernosCanonicalJson } from '../json/canonical.js';
import { Refusal } from '../fs/refusal.js';
import { readJsonFile } from './file.js';
import { emptyObject, isJsonNumber, isJsonObject, type JsonObject, JsonSyntaxError, type JsonValue, type ParsedJson, parseJson, SERDE_JSON } from '../json/parse.js';
import { newId } from './keys.js';
import { type SchemaViolation, schemaViolations } from './schema.js';
import { renderString, renderValue, TemplateError } from './template.js';
import { ACTION_OUTPUT_FIELDS, validateBundle } from './validate.js';

export type Decision = 'allow' | 'deny' | 'approve';

export interface RunOptions {
  workflow: string;
  input: JsonValue;
  /** How every action step is decided (default allow). */
  decide?: Decision;
  /**
   * Canned tool results by tool id, rendered against the run context plus `args`;
   * `{"$error": "message"}` makes the call fail.
   */
  tools?: JsonObject;
  /** Prompts whose mock answer is a refusal (as `KERNOS_MOCK_REFUSE`). */
  refuse?: readonly string[];
  /** Overrides of the `confidence` of prompts' outputs (as `KERNOS_MOCK_CONFIDENCE`). */
  confidence?: Readonly<Record<string, number>>;
  requestedBy?: string;
}

export type StepStatus = 'completed' | 'failed' | 'parked';

export interface StepTrace {
  id: string;
  kind: string;
  status: StepStatus;
  /** Model steps: the tiers asked, in order (more than one when the answer escalated). */
  tiers?: string[];
  prompt?: { name: string; user: string; usage: { input_tokens: number; output_tokens: number } };
  tool?: string;
  args?: JsonValue;
  idempotency_key?: JsonValue;
  action?: JsonValue;
  output?: JsonValue;
  notes: string[];
  error?: { code: string; message: string };
}

export interface RunTrace {
  run_id: string;
  bundle: { name: string; version: string };
  workflow: string;
  status: StepStatus;
  steps: StepTrace[];
  /** Compensations run after a failure, newest step first. */
  compensations: StepTrace[];
  error?: { step: string; code: string; message: string };
}

class StepFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

class StepParked extends Error {}

interface RunState {
  bundle: JsonObject;
  options: RunOptions;
  context: { input: JsonValue; steps: JsonObject; run: JsonObject };
}

export function runBundle(parsed: ParsedJson, options: RunOptions, file?: string): RunTrace {
  const validation = validateBundle(parsed, file);
  const [first] = validation.errors;
  if (first) throw new Refusal('bundle_invalid', `bundle is invalid at ${first.details.path || '(root)'}: ${first.message}`, { exitCode: 1, details: { path: first.details.path } });
  const bundle = parsed.value as JsonObject;
  const workflows = bundle.workflows as JsonObject;
  const workflow = Object.hasOwn(workflows, options.workflow) ? (workflows[options.workflow] as JsonObject) : undefined;
  if (!workflow) {
    throw new Refusal('workflow_not_found', `workflow ${options.workflow} is not in the bundle (it has ${Object.keys(workflows).join(', ')})`);
  }
  const [violation] = workflow.input_schema === undefined ? [] : schemaViolations(options.input, workflow.input_schema);
  if (violation) throw new Refusal('input_invalid', `input ${violation.path || '(root)'} ${violation.message}`, { exitCode: 1, details: { path: violation.path } });

  const identity = { name: bundle.name as string, version: bundle.version as string };
  const runId = newId('run');
  const run: JsonObject = {
    id: runId, workflow: options.workflow, department: (bundle.department ?? null) as JsonValue,
    requested_by: options.requestedBy ?? null, bundle: { ...identity },
  };
  const state: RunState = { bundle, options, context: { input: options.input, steps: emptyObject(), run } };
  const trace: RunTrace = { run_id: runId, bundle: identity, workflow: options.workflow, status: 'completed', steps: [], compensations: [] };
  const done: { step: JsonObject; trace: StepTrace }[] = [];

  for (const step of workflow.steps as JsonObject[]) {
    const stepTrace: StepTrace = { id: step.id as string, kind: step.kind as string, status: 'completed', notes: [] };
    trace.steps.push(stepTrace);
    try {
      stepTrace.output = runStep(state, step, stepTrace);
      state.context.steps[stepTrace.id] = { output: stepTrace.output };
      done.push({ step, trace: stepTrace });
    } catch (error) {
      if (error instanceof StepParked) {
        stepTrace.status = trace.status = 'parked';
        return trace;
      }
      const failure = asStepFailure(error);
      stepTrace.status = trace.status = 'failed';
      stepTrace.error = { code: failure.code, message: failure.message };
      trace.error = { step: stepTrace.id, ...stepTrace.error };
      trace.compensations = compensate(state, done);
      return trace;
    }
  }
  return trace;
}

function asStepFailure(error: unknown): StepFailure {
  if (error instanceof StepFailure) return error;
  if (error instanceof TemplateError) return new StepFailure(error.code, error.message);
  throw error;
}

function runStep(state: RunState, step: JsonObject, trace: StepTrace): JsonValue {
  if (step.kind === 'model') return runModelStep(state, step, trace);
  if (step.kind === 'action') return runActionStep(state, step, trace);
  return runToolStep(state, step, trace);
}

function runModelStep(state: RunState, step: JsonObject, trace: StepTrace): JsonValue {
  const name = step.prompt as string;
  const prompt = (state.bundle.prompts as JsonObject)[name] as JsonObject;
  const user = renderString(prompt.user as string, state.context);
  const tiers = [step.tier as string];
  trace.tiers = tiers;
  const refused = state.options.refuse?.includes(name) ?? false;
  const output = refused ? { text: 'I cannot help with this request.' } : mockAnswer(state, name, step.output_schema);
  trace.prompt = { name, user, usage: { input_tokens: Math.floor(`${prompt.system as string}\n${user}`.length / 4), output_tokens: Math.floor(kernosCanonicalJson(output).length / 4) } };
  if (refused) return onRefusal(step, trace, output);
  const violations = step.output_schema === undefined ? [] : schemaViolations(output, step.output_schema);
  if (violations.length > 0) throw new StepFailure('output_invalid', `the answer does not satisfy output_schema: ${describe(violations)}`);
  const escalate = isJsonObject(step.escalate) ? step.escalate : undefined;
  const confidence = isJsonObject(output) && isJsonNumber(output.confidence) ? Number(output.confidence) : undefined;
  if (escalate && confidence !== undefined && confidence < Number(escalate.when_confidence_below)) {
    // The mock answers every tier alike, so the escalated answer is as unsure: it parks for a person.
    tiers.push(escalate.to_tier as string);
    trace.output = output;
    trace.notes.push(`confidence ${confidence} below ${Number(escalate.when_confidence_below)}: escalated to ${escalate.to_tier as string}, same answer from the mock: parked for review`);
    throw new StepParked();
  }
  return output;
}

function onRefusal(step: JsonObject, trace: StepTrace, output: JsonValue): never {
  const outcome = (step.on_refusal as string | undefined) ?? 'park';
  trace.output = output;
  if (outcome === 'fail') throw new StepFailure('model_refused', `the model refused prompt ${trace.prompt!.name} (on_refusal: fail)`);
  if (outcome === 'escalate' && isJsonObject(step.escalate)) trace.tiers!.push(step.escalate.to_tier as string);
  trace.notes.push(`the model refused (on_refusal: ${outcome})${outcome === 'escalate' ? ', and refused again at the next tier' : ''}: parked`);
  throw new StepParked();
}

/** The mock provider: the bundle's mock rendered, else a value shaped by the schema, else a text. */
function mockAnswer(state: RunState, prompt: string, schema: JsonValue | undefined): JsonValue {
  const mock = isJsonObject(state.bundle.mock) ? state.bundle.mock : {};
  let output: JsonValue;
  if (Object.hasOwn(mock, prompt)) output = renderValue(mock[prompt]!, state.context, { wholeStringKeepsType: true });
  else if (isJsonObject(schema)) output = exampleOf(schema);
  else output = { text: 'mock response' };
  const override = state.options.confidence?.[prompt];
  if (override !== undefined && isJsonObject(output)) output = { ...output, confidence: override };
  return output;
}

/** A value that satisfies the simple constraints of a schema. */
function exampleOf(schema: JsonValue): JsonValue {
  if (!isJsonObject(schema)) return null;
  if (Array.isArray(schema.enum) && schema.enum.length > 0) return schema.enum[0]!;
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const minimum = isJsonNumber(schema.minimum) ? Number(schema.minimum) : 0;
  switch (type) {
    case 'string':
      return 'x'.repeat(isJsonNumber(schema.minLength) ? Number(schema.minLength) : 0);
    case 'number':
    case 'integer':
      return Math.ceil(minimum);
    case 'boolean':
      return false;
    case 'array':
      return [];
    case 'null':
      return null;
    default: {
      const out = emptyObject();
      const properties = isJsonObject(schema.properties) ? schema.properties : {};
      for (const [key, sub] of Object.entries(properties)) out[key] = exampleOf(sub);
      return out;
    }
  }
}

function runActionStep(state: RunState, step: JsonObject, trace: StepTrace): JsonValue {
  const action = renderValue(step.action!, state.context) as JsonObject;
  trace.action = action;
  if (action.idempotency_key !== undefined) trace.idempotency_key = action.idempotency_key;
  const decision = state.options.decide ?? 'allow';
  if (decision === 'deny') throw new StepFailure('action_denied', `action ${String(action.kind)} denied by the local decision (--decide deny)`);
  const actionId = newId('act');
  if (decision === 'approve') {
    const approvalId = newId('apr');
    trace.notes.push(`approval required; approved locally as ${approvalId}`);
    return outputOfAction([actionId, 'allow', `approved:${approvalId}`, approvalId]);
  }
  return outputOfAction([actionId, 'allow', 'local', null]);
}

function outputOfAction(values: JsonValue[]): JsonObject {
  const out = emptyObject();
  ACTION_OUTPUT_FIELDS.forEach((field, i) => (out[field] = values[i]!));
  return out;
}

function runToolStep(state: RunState, step: JsonObject, trace: StepTrace): JsonValue {
  trace.tool = step.tool as string;
  trace.args = renderValue(step.args ?? {}, state.context);
  const key = step.idempotency_key;
  if (key !== undefined) trace.idempotency_key = typeof key === 'string' ? renderString(key, state.context) : renderValue(key, state.context);
  return callTool(state, trace.tool, trace.args);
}

function callTool(state: RunState, tool: string, args: JsonValue): JsonValue {
  const canned = state.options.tools && Object.hasOwn(state.options.tools, tool) ? state.options.tools[tool]! : undefined;
  if (canned === undefined) throw new StepFailure('tool_result_missing', `no canned result for tool ${tool} (give one in the --tools file)`);
  if (isJsonObject(canned) && Object.keys(canned).length === 1 && typeof canned.$error === 'string') throw new StepFailure('tool_failed', canned.$error);
  return renderValue(canned, { ...state.context, args });
}

function compensate(state: RunState, done: readonly { step: JsonObject; trace: StepTrace }[]): StepTrace[] {
  const out: StepTrace[] = [];
  for (const { step, trace } of [...done].reverse()) {
    if (!isJsonObject(step.compensation)) continue;
    const tool = step.compensation.tool as string;
    const compensation: StepTrace = { id: trace.id, kind: 'compensation', status: 'completed', tool, notes: [] };
    out.push(compensation);
    try {
      compensation.args = renderValue(step.compensation.args ?? {}, state.context);
      compensation.output = callTool(state, tool, compensation.args);
    } catch (error) {
      const failure = asStepFailure(error);
      compensation.status = 'failed';
      compensation.error = { code: failure.code, message: failure.message };
    }
  }
  return out;
}

function describe(violations: readonly SchemaViolation[]): string {
  return violations.map((v) => `${v.path || '(root)'} ${v.message}`).join('; ');
}

export interface RunFileOptions {
  file: string;
  workflow: string;
  /** Inline JSON (`{…}`) or a JSON file. */
  input: string;
  decide?: Decision;
  /** A JSON file of canned tool results. */
  tools?: string;
  /** `p1,p2`: prompts the mock refuses. */
  refuse?: string;
  /** `p=0.2,q=0.9`: confidence overrides by prompt. */
  confidence?: string;
  requestedBy?: string;
}

/** `bundle run`: reads the files and flag texts, then `runBundle`. */
export function runBundleFile(options: RunFileOptions): RunTrace {
  const bundle = readJsonFile(options.file, 'bundle');
  const input = inlineOrFile(options.input);
  if (!isJsonObject(input)) throw new Refusal('usage', `--input must be a JSON object (the workflow's input by field), got ${jsonKind(input)}`, { exitCode: 2 });
  const tools = options.tools === undefined ? undefined : readJsonFile(options.tools, 'tools file').value;
  if (tools !== undefined && !isJsonObject(tools)) throw new Refusal('usage', `--tools ${options.tools} must be a JSON object of results by tool id`, { exitCode: 2 });
  return runBundle(bundle, {
    workflow: options.workflow, input,
    ...(options.decide ? { decide: options.decide } : {}),
    ...(tools ? { tools } : {}),
    ...(options.refuse ? { refuse: options.refuse.split(',').map((p) => p.trim()) } : {}),
    ...(options.confidence ? { confidence: parseConfidence(options.confidence) } : {}),
    ...(options.requestedBy ? { requestedBy: options.requestedBy } : {}),
  }, options.file);
}

function inlineOrFile(text: string): JsonValue {
  if (!/^\s*[{[]/.test(text)) return readJsonFile(text, 'input file').value;
  try {
    return parseJson(text, SERDE_JSON).value;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    throw new Refusal('usage', `--input is not valid JSON: ${error.message}`, { exitCode: 2 });
  }
}

function jsonKind(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return isJsonNumber(value) ? 'a number' : `a ${typeof value}`;
}

function parseConfidence(text: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const pair of text.split(',')) {
    const [prompt, value] = pair.split('=').map((s) => s.trim());
    if (!prompt || value === undefined || value === '' || !Number.isFinite(Number(value))) {
      throw new Refusal('usage', `--confidence expects prompt=number pairs separated by commas, got ${JSON.stringify(pair)}`, { exitCode: 2 });
    }
    out[prompt] = Number(value);
  }
  return out;
}
