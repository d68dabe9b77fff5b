/**
 * `kernos.bundle/1` validation. Errors are the control plane's rules (compat-kernos §1.2–1.4), checked
 * in its order — maps in byte-sorted key order, steps in array order — so that `errors[0]` is exactly
 * the one error `POST /v1/bundles` would answer with; unlike the control plane, the walk goes on and
 * reports every error. Warnings are the stricter checks of the kernos acceptance validator (§1.6) and
 * ours (schema subset, mock outputs, templates naming undeclared fields): they never make a bundle invalid.
 */
import { readRegularFileSync } from '../fs/read.js';
import { kernosCanonicalBytes } from '../json/canonical.js';
import { isJsonNumber, isJsonObject, JsonNumber, type JsonObject, JsonSyntaxError, type JsonValue, locate, type ParsedJson, parseJson, SERDE_JSON } from '../json/parse.js';
import { childPointer } from '../json/pointer.js';
import { didYouMean } from '../model/did-you-mean.js';
import { declaresPath, schemaShapeProblems, schemaViolations } from './schema.js';
import { collectTemplates, isRefObject, sortedKeys, type TemplateUse } from './template.js';

export const BUNDLE_FORMAT = 'kernos.bundle/1';
export const MAX_CANONICAL_BYTES = 1024 * 1024;
const TIERS = ['deep', 'standard', 'cheap'];
const EFFORTS = ['low', 'medium', 'high', 'xhigh'];
const ON_REFUSAL = ['park', 'escalate', 'fail'];
const STEP_KINDS = ['model', 'tool', 'action'];
const TEMPLATE_ROOTS = ['input', 'steps', 'run'];
const RUN_FIELDS = ['id', 'workflow', 'department', 'requested_by'];
/** What an action step outputs (bundle format reference). */
export const ACTION_OUTPUT_FIELDS = ['action_id', 'decision', 'rule', 'approval_id'];
const U64_MAX = 2n ** 64n - 1n;

export interface BundleError {
  /** `bundle_invalid` (what the control plane answers) for errors; the warning's own code for warnings. */
  code: string;
  /** The specific rule, stable snake_case (`step_id_duplicate`, `template_bad_ref`, …). */
  rule: string;
  severity: 'error' | 'warning';
  message: string;
  /** The control plane's dotted path (`workflows.intake.steps.3.idempotency_key`; `''` for the root). */
  details: { path: string };
  /** JSON Pointer of the exact value (it can be deeper than `details.path`, e.g. the offending template). */
  pointer: string;
  /** What would be right, e.g. "did you mean 'ledger.post_entry'?". */
  hint?: string;
  file?: string;
  line?: number;
  column?: number;
  endLine?: number;
  endColumn?: number;
}

export interface BundleSummary {
  name: string;
  version: string;
  department: string | null;
  workflows: number;
  steps: number;
}

export interface BundleValidation {
  ok: boolean;
  /** Every error; `errors[0]` is the control plane's first error. */
  errors: BundleError[];
  warnings: BundleError[];
  /** Set when the bundle is valid: what `kernos bundle validate` prints. */
  summary?: BundleSummary;
}

type Segments = readonly string[];

interface TemplateSite {
  /** Where an error about this site is reported (the control plane's path). */
  site: Segments;
  uses: TemplateUse[];
  workflow: string;
  /** Step ids a `steps.<id>` path may name. */
  allowedSteps: readonly string[];
}

class Walk {
  readonly errors: BundleError[] = [];
  readonly warnings: BundleError[] = [];
  readonly sites: TemplateSite[] = [];
  private readonly seen = new Set<string>();

  constructor(
    readonly parsed: ParsedJson,
    readonly file: string | undefined,
  ) {}

  error(path: Segments, rule: string, message: string, at: Segments = path, hint?: string): void {
    this.push(this.errors, 'bundle_invalid', rule, 'error', path, message, at, hint);
  }

  warn(path: Segments, rule: string, message: string, at: Segments = path): void {
    this.push(this.warnings, rule, rule, 'warning', path, message, at);
  }

  private push(list: BundleError[], code: string, rule: string, severity: BundleError['severity'], path: Segments, message: string, at: Segments, hint?: string): void {
    const dotted = path.join('.');
    const key = `${severity}\0${dotted}\0${message}`;
    if (this.seen.has(key)) return; // a prompt shared by several steps is reported once
    this.seen.add(key);
    const pointer = at.reduce<string>((base, segment) => childPointer(base, segment), '');
    const span = locate(this.parsed, pointer);
    list.push({ code, rule, severity, message, details: { path: dotted }, pointer, ...(hint === undefined ? {} : { hint }), ...(this.file === undefined ? {} : { file: this.file }), ...span });
  }
}

/** Validates a bundle text (or an already parsed one); never throws on bad input. */
export function validateBundle(input: string | ParsedJson, file?: string): BundleValidation {
  let parsed: ParsedJson;
  try {
    parsed = typeof input === 'string' ? parseJson(input, SERDE_JSON) : input;
  } catch (error) {
    if (!(error instanceof JsonSyntaxError)) throw error;
    const where = { ...(file === undefined ? {} : { file }), line: error.line, column: error.column };
    const problem: BundleError = { code: 'invalid_json', rule: 'invalid_json', severity: 'error', message: `not valid JSON: ${error.reason}`, details: { path: '' }, pointer: '', ...where };
    return { ok: false, errors: [problem], warnings: [] };
  }
  const walk = new Walk(parsed, file);
  const bundle = parsed.value;
  if (!isJsonObject(bundle)) {
    walk.error([], 'bundle_not_object', 'the bundle must be a JSON object');
    return { ok: false, errors: walk.errors, warnings: [] };
  }
  checkBundle(walk, bundle);
  lintBundle(walk, bundle);
  const ok = walk.errors.length === 0;
  return { ok, errors: walk.errors, warnings: walk.warnings, ...(ok ? { summary: summarize(bundle) } : {}) };
}

function summarize(bundle: JsonObject): BundleSummary {
  const workflows = bundle.workflows as JsonObject;
  const steps = Object.values(workflows).reduce<number>((n, wf) => n + ((wf as JsonObject).steps as JsonValue[]).length, 0);
  const department = typeof bundle.department === 'string' ? bundle.department : null;
  return { name: bundle.name as string, version: bundle.version as string, department, workflows: Object.keys(workflows).length, steps };
}

/** Rust's rule: the text before the first `-` or `+` is three dot-separated numbers without leading zeros. */
export function isKernosSemver(version: string): boolean {
  const core = version.split(/[-+]/, 1)[0]!;
  const parts = core.split('.');
  return parts.length === 3 && parts.every((p) => /^(?:0|[1-9][0-9]*)$/.test(p));
}

const STRICT_SEMVER = /^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/;
const NAME = /^[a-z0-9_]+(?:\.[a-z0-9_]+)*$/;
const TOOL_ID = /^[a-z0-9_]+\.[a-z0-9_]+$/;
const STEP_ID = /^[a-z][a-z0-9_]*$/;

function isPositiveU64(value: JsonValue | undefined): boolean {
  if (!(value instanceof JsonNumber) || value.isFloat) return false;
  const n = BigInt(value.lexeme);
  return n > 0n && n <= U64_MAX;
}

const oneOf = (values: string[]) => values.join(', ');

function checkBundle(walk: Walk, bundle: JsonObject): void {
  if (bundle.format !== BUNDLE_FORMAT) walk.error(['format'], 'format_invalid', `format must be "${BUNDLE_FORMAT}"`);
  checkIdentity(walk, bundle);
  checkPolicies(walk, bundle.policies);
  const size = kernosCanonicalBytes(bundle).length;
  if (size > MAX_CANONICAL_BYTES) walk.error([], 'bundle_too_large', `the canonical bundle is ${size} bytes, over the limit of ${MAX_CANONICAL_BYTES} bytes (1 MiB)`);
  const tools = checkTools(walk, bundle.tools);
  const prompts = checkPrompts(walk, bundle.prompts);
  const mock = checkMock(walk, bundle.mock, prompts);
  checkWorkflows(walk, bundle.workflows, { tools, prompts, mock });
}

function checkIdentity(walk: Walk, bundle: JsonObject): void {
  const { name, version, department } = bundle;
  if (typeof name !== 'string') walk.error(['name'], 'name_missing', 'name must be a string');
  else if (name === '' || Buffer.byteLength(name) > 120 || !NAME.test(name)) {
    walk.error(['name'], 'name_invalid', 'name must be at most 120 characters of dot-separated parts made of a-z, 0-9 and _');
  }
  if (typeof version !== 'string') walk.error(['version'], 'version_missing', 'version must be a string');
  else if (!isKernosSemver(version)) walk.error(['version'], 'version_invalid', `version ${JSON.stringify(version)} is not a semantic version MAJOR.MINOR.PATCH`);
  if (department !== undefined && department !== null && typeof department !== 'string') {
    walk.error(['department'], 'department_invalid', 'department must be a string or null');
  }
}

function checkPolicies(walk: Walk, policies: JsonValue | undefined): void {
  if (policies === undefined) return;
  if (!Array.isArray(policies)) return walk.error(['policies'], 'policies_not_array', 'policies must be an array of policy names');
  policies.forEach((p, i) => {
    if (typeof p !== 'string') walk.error(['policies', String(i)], 'policy_not_string', 'a policy name must be a string');
  });
}

/** Declared tool ids and whether each writes. */
type ToolTable = Map<string, boolean>;

function checkTools(walk: Walk, tools: JsonValue | undefined): ToolTable {
  const table: ToolTable = new Map();
  if (tools === undefined) return table;
  if (!Array.isArray(tools)) {
    walk.error(['tools'], 'tools_not_array', 'tools must be an array');
    return table;
  }
  tools.forEach((tool, i) => {
    const at = ['tools', String(i)];
    const entry = isJsonObject(tool) ? tool : undefined;
    const id = entry?.id;
    if (typeof id !== 'string') walk.error([...at, 'id'], 'tool_id_missing', 'a tool must be an object with a string id');
    else if (!TOOL_ID.test(id)) walk.error([...at, 'id'], 'tool_id_invalid', `tool id ${JSON.stringify(id)} must be connector.operation: two non-empty parts made of a-z, 0-9 and _`);
    else if (table.has(id)) walk.error([...at, 'id'], 'tool_id_duplicate', `tool ${id} is declared twice`);
    if (!entry) return;
    const writes = entry.writes;
    if (writes !== undefined && typeof writes !== 'boolean') walk.error([...at, 'writes'], 'tool_writes_invalid', 'writes must be a boolean');
    if (entry.description !== undefined && typeof entry.description !== 'string') walk.error([...at, 'description'], 'tool_description_invalid', 'description must be a string');
    if (typeof id === 'string' && !table.has(id)) table.set(id, writes === true);
  });
  return table;
}

function checkPrompts(walk: Walk, prompts: JsonValue | undefined): JsonObject {
  if (prompts === undefined) return {};
  if (!isJsonObject(prompts)) {
    walk.error(['prompts'], 'prompts_not_object', 'prompts must be an object of named prompts');
    return {};
  }
  for (const name of sortedKeys(prompts)) {
    const prompt = prompts[name]!;
    const at = ['prompts', name];
    if (!isJsonObject(prompt)) {
      walk.error(at, 'prompt_not_object', 'a prompt must be an object with system and user');
      continue;
    }
    if (typeof prompt.system !== 'string') walk.error([...at, 'system'], 'prompt_system_missing', 'system must be a string');
    else if (prompt.system.includes('{{')) {
      walk.error([...at, 'system'], 'prompt_system_templated', 'the system prompt may not contain {{: it is the stable cache prefix, so variable text belongs in user');
    }
    if (typeof prompt.user !== 'string') walk.error([...at, 'user'], 'prompt_user_missing', 'user must be a string');
  }
  return prompts;
}

function checkMock(walk: Walk, mock: JsonValue | undefined, prompts: JsonObject): JsonObject {
  if (mock === undefined) return {};
  if (!isJsonObject(mock)) {
    walk.error(['mock'], 'mock_not_object', 'mock must be an object keyed by prompt name');
    return {};
  }
  for (const name of sortedKeys(mock)) {
    const at = ['mock', name];
    if (!Object.hasOwn(prompts, name)) walk.error(at, 'mock_unknown_prompt', `mock ${name} names no prompt of the bundle`, at, didYouMean(name, Object.keys(prompts)));
    const collected = collectTemplates(mock[name]!, at);
    for (const bad of collected.badRefs) badRef(walk, at, bad);
    for (const use of collected.uses) checkRoot(walk, at, use);
  }
  return mock;
}

function badRef(walk: Walk, site: Segments, at: Segments): void {
  walk.error(site, 'template_bad_ref', 'a {"$ref"} must be exactly {"$ref": "<path>"} with a string path', at);
}

function checkRoot(walk: Walk, site: Segments, use: TemplateUse): boolean {
  if (TEMPLATE_ROOTS.includes(use.path.split('.')[0]!)) return true;
  walk.error(site, 'template_path_root', `template path ${use.path} must start with input, steps or run`, use.at);
  return false;
}

/** Checks every template of `value` at `site`: roots, and `steps.<id>` naming an allowed step. */
function checkTemplates(walk: Walk, site: Segments, value: JsonValue, workflow: string, allowedSteps: readonly string[], at: Segments = site): void {
  const collected = collectTemplates(value, [...at]);
  for (const bad of collected.badRefs) badRef(walk, site, bad);
  for (const use of collected.uses) {
    if (!checkRoot(walk, site, use)) continue;
    const [root, step] = use.path.split('.');
    if (root !== 'steps') continue;
    if (step === undefined || step === '') walk.error(site, 'template_path_step_missing', `template path ${use.path} must name a step`, use.at);
    else if (!allowedSteps.includes(step)) walk.error(site, 'template_path_not_earlier', `template path ${use.path}: ${step} is not an earlier step`, use.at);
  }
  walk.sites.push({ site, uses: collected.uses, workflow, allowedSteps });
}

interface Declarations {
  tools: ToolTable;
  prompts: JsonObject;
  mock: JsonObject;
}

function checkWorkflows(walk: Walk, workflows: JsonValue | undefined, decl: Declarations): void {
  if (!isJsonObject(workflows)) return walk.error(['workflows'], 'workflows_missing', 'workflows must be an object of named workflows');
  const names = sortedKeys(workflows);
  if (names.length === 0) return walk.error(['workflows'], 'workflows_empty', 'a bundle needs at least one workflow');
  for (const name of names) {
    const workflow = workflows[name]!;
    const at = ['workflows', name];
    if (!isJsonObject(workflow)) {
      walk.error(at, 'workflow_not_object', 'a workflow must be an object with steps');
      continue;
    }
    if (workflow.input_schema !== undefined && !isJsonObject(workflow.input_schema)) {
      walk.error([...at, 'input_schema'], 'input_schema_not_object', 'input_schema must be an object (a JSON Schema)');
    }
    const steps = workflow.steps;
    if (!Array.isArray(steps)) walk.error([...at, 'steps'], 'steps_missing', 'steps must be an array');
    else if (steps.length === 0) walk.error([...at, 'steps'], 'steps_empty', 'a workflow needs at least one step');
    else checkSteps(walk, name, steps, decl);
  }
}

function checkSteps(walk: Walk, workflow: string, steps: JsonValue[], decl: Declarations): void {
  const earlier: string[] = [];
  steps.forEach((step, i) => {
    const at = ['workflows', workflow, 'steps', String(i)];
    if (!isJsonObject(step)) return walk.error(at, 'step_not_object', 'a step must be an object');
    const id = step.id;
    if (typeof id !== 'string') walk.error([...at, 'id'], 'step_id_missing', 'id must be a string');
    else if (!STEP_ID.test(id)) walk.error([...at, 'id'], 'step_id_invalid', `step id ${JSON.stringify(id)} must match [a-z][a-z0-9_]*`);
    else if (earlier.includes(id)) walk.error([...at, 'id'], 'step_id_duplicate', `step id ${id} is already used by an earlier step`);
    checkCommonStepFields(walk, at, step);
    const ctx: StepContext = { walk, at, step, workflow, earlier: [...earlier], ownId: typeof id === 'string' ? id : undefined, decl };
    if (step.kind === 'model') checkModelStep(ctx);
    else if (step.kind === 'tool') checkToolStep(ctx);
    else if (step.kind === 'action') checkActionStep(ctx);
    if (typeof id === 'string') earlier.push(id);
  });
}

function checkCommonStepFields(walk: Walk, at: Segments, step: JsonObject): void {
  if (step.timeout_seconds !== undefined && !isPositiveU64(step.timeout_seconds)) {
    walk.error([...at, 'timeout_seconds'], 'timeout_invalid', 'timeout_seconds must be a positive integer (seconds)');
  }
  if (step.description !== undefined && typeof step.description !== 'string') walk.error([...at, 'description'], 'step_description_invalid', 'description must be a string');
  if (typeof step.kind !== 'string') walk.error([...at, 'kind'], 'step_kind_missing', 'kind must be a string');
  else if (!STEP_KINDS.includes(step.kind)) walk.error([...at, 'kind'], 'step_kind_invalid', `kind ${JSON.stringify(step.kind)} must be one of ${oneOf(STEP_KINDS)}`);
}

interface StepContext {
  walk: Walk;
  at: Segments;
  step: JsonObject;
  workflow: string;
  earlier: string[];
  ownId: string | undefined;
  decl: Declarations;
}

function checkModelStep({ walk, at, step, workflow, earlier, decl }: StepContext): void {
  const field = (name: string) => [...at, name];
  if (typeof step.tier !== 'string' || !TIERS.includes(step.tier)) walk.error(field('tier'), 'tier_invalid', `tier must be one of ${oneOf(TIERS)}`);
  if (step.effort !== undefined && (typeof step.effort !== 'string' || !EFFORTS.includes(step.effort))) walk.error(field('effort'), 'effort_invalid', `effort must be one of ${oneOf(EFFORTS)}`);
  const prompt = step.prompt;
  if (typeof prompt !== 'string') walk.error(field('prompt'), 'prompt_missing', 'prompt must be a string naming a key of prompts');
  else if (!Object.hasOwn(decl.prompts, prompt)) {
    walk.error(field('prompt'), 'prompt_unknown', `prompt ${prompt} is not declared in prompts`, field('prompt'), didYouMean(prompt, Object.keys(decl.prompts)));
  }
  else {
    const declared = decl.prompts[prompt];
    if (isJsonObject(declared) && typeof declared.user === 'string') checkTemplates(walk, ['prompts', prompt, 'user'], declared.user, workflow, earlier);
    if (Object.hasOwn(decl.mock, prompt)) checkTemplates(walk, ['mock', prompt], decl.mock[prompt]!, workflow, earlier);
  }
  const schema = step.output_schema;
  if (schema !== undefined && !isJsonObject(schema)) walk.error(field('output_schema'), 'output_schema_not_object', 'output_schema must be an object (a JSON Schema)');
  if (step.max_output_tokens !== undefined && !isPositiveU64(step.max_output_tokens)) walk.error(field('max_output_tokens'), 'max_output_tokens_invalid', 'max_output_tokens must be a positive integer');
  if (step.on_refusal !== undefined && (typeof step.on_refusal !== 'string' || !ON_REFUSAL.includes(step.on_refusal))) {
    walk.error(field('on_refusal'), 'on_refusal_invalid', `on_refusal must be one of ${oneOf(ON_REFUSAL)}`);
  }
  checkEscalate(walk, at, step);
  const classes = step.data_classes;
  if (classes !== undefined && !(Array.isArray(classes) && classes.every((c) => typeof c === 'string'))) {
    walk.error(field('data_classes'), 'data_classes_invalid', 'data_classes must be an array of strings');
  }
}

function checkEscalate(walk: Walk, at: Segments, step: JsonObject): void {
  const escalate = step.escalate;
  if (escalate === undefined) return;
  const path = [...at, 'escalate'];
  if (!isJsonObject(escalate)) return walk.error(path, 'escalate_not_object', 'escalate must be an object {when_confidence_below, to_tier}');
  if (!isJsonNumber(escalate.when_confidence_below)) walk.error([...path, 'when_confidence_below'], 'escalate_threshold_invalid', 'when_confidence_below must be a number');
  if (typeof escalate.to_tier !== 'string' || !TIERS.includes(escalate.to_tier)) walk.error([...path, 'to_tier'], 'escalate_tier_invalid', `to_tier must be one of ${oneOf(TIERS)}`);
  const schema = step.output_schema;
  const properties = isJsonObject(schema) ? schema.properties : undefined;
  if (!isJsonObject(properties) || !Object.hasOwn(properties, 'confidence')) {
    walk.error(path, 'escalate_without_confidence', 'escalate needs a confidence property in output_schema.properties');
  }
}

function checkToolStep({ walk, at, step, workflow, earlier, ownId, decl }: StepContext): void {
  const field = (name: string) => [...at, name];
  const tool = step.tool;
  if (typeof tool !== 'string') walk.error(field('tool'), 'tool_missing', 'tool must be a string naming a declared tool');
  else if (!decl.tools.has(tool)) walk.error(field('tool'), 'tool_undeclared', `tool ${tool} is not declared in tools`, field('tool'), didYouMean(tool, decl.tools.keys()));
  const args = step.args ?? {};
  if (!isJsonObject(args)) walk.error(field('args'), 'args_not_object', 'args must be an object');
  else checkTemplates(walk, field('args'), args, workflow, earlier);
  const key = step.idempotency_key;
  if (key !== undefined) {
    if (typeof key === 'string' || isRefObject(key)) checkTemplates(walk, field('idempotency_key'), key, workflow, earlier);
    else walk.error(field('idempotency_key'), 'idempotency_key_invalid', 'idempotency_key must be a templated string or {"$ref": "<path>"}');
  } else if (typeof tool === 'string' && decl.tools.get(tool) === true) {
    walk.error(field('idempotency_key'), 'idempotency_key_required', `tool ${tool} writes, so the step needs an idempotency_key`);
  }
  if (step.scope !== undefined && step.scope !== null && typeof step.scope !== 'string') walk.error(field('scope'), 'scope_invalid', 'scope must be a string or null');
  checkCompensation(walk, field('compensation'), step.compensation, workflow, ownId === undefined ? earlier : [...earlier, ownId], decl);
}

function checkCompensation(walk: Walk, at: Segments, compensation: JsonValue | undefined, workflow: string, allowed: string[], decl: Declarations): void {
  if (compensation === undefined) return;
  if (!isJsonObject(compensation)) return walk.error(at, 'compensation_not_object', 'compensation must be an object {tool, args}');
  const tool = compensation.tool;
  if (typeof tool !== 'string') walk.error([...at, 'tool'], 'compensation_tool_missing', 'compensation.tool must be a string naming a declared tool');
  else if (!decl.tools.has(tool)) walk.error([...at, 'tool'], 'compensation_tool_undeclared', `tool ${tool} is not declared in tools`, [...at, 'tool'], didYouMean(tool, decl.tools.keys()));
  const args = compensation.args ?? {};
  if (!isJsonObject(args)) walk.error([...at, 'args'], 'compensation_args_not_object', 'compensation.args must be an object');
  else checkTemplates(walk, [...at, 'args'], args, workflow, allowed);
}

function checkActionStep({ walk, at, step, workflow, earlier }: StepContext): void {
  const path = [...at, 'action'];
  const action = step.action;
  if (action === undefined) return walk.error(path, 'action_missing', 'an action step needs an action');
  if (!isJsonObject(action)) return walk.error(path, 'action_not_object', 'action must be an object');
  if (typeof action.kind !== 'string') walk.error([...path, 'kind'], 'action_kind_missing', 'action.kind must be a string');
  checkTemplates(walk, path, action, workflow, earlier);
}

// ---- warnings: the acceptance validator's stricter rules and ours -------------------------------------

function lintBundle(walk: Walk, bundle: JsonObject): void {
  lintTopLevel(walk, bundle);
  const workflows = isJsonObject(bundle.workflows) ? bundle.workflows : {};
  const prompts = isJsonObject(bundle.prompts) ? bundle.prompts : {};
  const mock = isJsonObject(bundle.mock) ? bundle.mock : {};
  for (const name of sortedKeys(workflows)) {
    const workflow = workflows[name];
    if (!isJsonObject(workflow)) continue;
    if (!STEP_ID.test(name)) walk.warn(['workflows', name], 'workflow_name_invalid', `workflow name ${JSON.stringify(name)} should match [a-z][a-z0-9_]*`);
    lintInputSchema(walk, ['workflows', name, 'input_schema'], workflow.input_schema);
    if (!Array.isArray(workflow.steps)) continue;
    workflow.steps.forEach((step, i) => {
      if (isJsonObject(step)) lintStep(walk, ['workflows', name, 'steps', String(i)], step, prompts, mock);
    });
  }
  for (const site of walk.sites) lintTemplates(walk, site, isJsonObject(workflows[site.workflow]) ? (workflows[site.workflow] as JsonObject) : {});
}

function lintTopLevel(walk: Walk, bundle: JsonObject): void {
  if (typeof bundle.version === 'string' && isKernosSemver(bundle.version) && !STRICT_SEMVER.test(bundle.version)) {
    walk.warn(['version'], 'version_not_strict_semver', `version ${JSON.stringify(bundle.version)} has pre-release or build text that is not semver`);
  }
  if (bundle.department === null) walk.warn(['department'], 'department_null', 'department should be a string: null leaves the runs of the bundle without a department');
  if (bundle.policies === undefined) walk.warn(['policies'], 'policies_missing', 'policies should list the policy names the remit must carry');
  else if (Array.isArray(bundle.policies)) {
    bundle.policies.forEach((p, i) => {
      if (p === '') walk.warn(['policies', String(i)], 'policy_empty', 'a policy name should not be empty');
    });
  }
  if (bundle.tools === undefined) walk.warn(['tools'], 'tools_missing', 'tools should be declared (an empty list when no step calls a tool)');
  else if (Array.isArray(bundle.tools)) {
    bundle.tools.forEach((tool, i) => {
      if (isJsonObject(tool) && tool.writes === undefined) walk.warn(['tools', String(i), 'writes'], 'tool_writes_missing', 'writes should be stated: the gateway refuses writes under an observe remit');
    });
  }
  if (bundle.prompts === undefined) walk.warn(['prompts'], 'prompts_missing', 'prompts should be declared (an empty object when no step is a model step)');
  else if (isJsonObject(bundle.prompts)) {
    for (const name of sortedKeys(bundle.prompts)) {
      const prompt = bundle.prompts[name];
      if (isJsonObject(prompt) && typeof prompt.system === 'string' && prompt.system.trim() === '') {
        walk.warn(['prompts', name, 'system'], 'system_prompt_empty', 'the system prompt should not be empty');
      }
    }
  }
}

function lintInputSchema(walk: Walk, at: string[], schema: JsonValue | undefined): void {
  if (schema === undefined) return walk.warn(at, 'input_schema_missing', 'input_schema should describe the workflow input');
  if (!isJsonObject(schema)) return;
  for (const problem of schemaShapeProblems(schema)) {
    const path = problem.path === '' ? at : [...at, ...problem.path.split('.')];
    const rule = problem.message.includes('outside the bundle schema subset') ? 'input_schema_unsupported' : 'input_schema_invalid';
    walk.warn(path, rule, problem.message);
  }
}

function lintStep(walk: Walk, at: string[], step: JsonObject, prompts: JsonObject, mock: JsonObject): void {
  if (step.kind === 'action') lintActionStep(walk, at, step);
  if (step.kind === 'tool') lintToolStep(walk, at, step);
  if (step.kind !== 'model') return;
  const schema = step.output_schema;
  if (schema === undefined) walk.warn([...at, 'output_schema'], 'output_schema_missing', 'a model step should declare the output_schema its answer must satisfy');
  else if (isJsonObject(schema)) lintRequiredDeclared(walk, [...at, 'output_schema'], schema);
  const threshold = isJsonObject(step.escalate) ? step.escalate.when_confidence_below : undefined;
  if (isJsonNumber(threshold) && (Number(threshold) < 0 || Number(threshold) > 1)) {
    walk.warn([...at, 'escalate', 'when_confidence_below'], 'confidence_threshold_range', 'when_confidence_below should be between 0 and 1');
  }
  const prompt = step.prompt;
  if (typeof prompt !== 'string' || !Object.hasOwn(prompts, prompt) || !Object.hasOwn(mock, prompt) || !isJsonObject(schema)) return;
  for (const v of schemaViolations(mock[prompt]!, schema, { opaque: isTemplated })) {
    const path = ['mock', prompt, ...(v.path === '' ? [] : v.path.split('.'))];
    walk.warn(path, 'mock_output_invalid', `the mock output does not satisfy the output_schema of step ${String(step.id)}: ${v.path || 'the output'} ${v.message}`);
  }
}

function lintActionStep(walk: Walk, at: string[], step: JsonObject): void {
  const action = step.action;
  if (!isJsonObject(action)) return;
  if (action.kind === '') walk.warn([...at, 'action', 'kind'], 'action_kind_empty', 'action.kind should name the kind of action: policies match on it');
  if (action.writes_to_system_of_record !== undefined && typeof action.writes_to_system_of_record !== 'boolean') {
    walk.warn([...at, 'action', 'writes_to_system_of_record'], 'writes_to_system_of_record_not_boolean', 'writes_to_system_of_record should be a boolean');
  }
}

function lintToolStep(walk: Walk, at: string[], step: JsonObject): void {
  const key = step.idempotency_key;
  if (key === '') walk.warn([...at, 'idempotency_key'], 'idempotency_key_empty', 'idempotency_key should not be empty: every call would share one key');
  else if (isRefObject(key)) walk.warn([...at, 'idempotency_key'], 'idempotency_key_ref', 'idempotency_key should be a templated string: the acceptance validator refuses a {"$ref"}');
  if (step.scope === null) walk.warn([...at, 'scope'], 'scope_null', 'scope should be a string or left out, not null');
  if (step.args === undefined) walk.warn([...at, 'args'], 'args_missing', 'args should be stated (an empty object when the tool takes none)');
  const compensation = step.compensation;
  if (isJsonObject(compensation) && compensation.args === undefined) {
    walk.warn([...at, 'compensation', 'args'], 'compensation_args_missing', 'compensation.args should be stated (an empty object when the tool takes none)');
  }
}

/**
 * `required` entries of an output_schema that its `properties` do not declare (as the acceptance validator
 * checks input_schema): an answer could never satisfy the schema as meant. Other shape problems of an
 * output schema are the schema checker's.
 */
function lintRequiredDeclared(walk: Walk, at: string[], schema: JsonObject): void {
  for (const problem of schemaShapeProblems(schema)) {
    if (problem.path.split('.').pop() === 'required') walk.warn([...at, ...problem.path.split('.')], 'output_schema_required_undeclared', problem.message);
  }
}

/** A mock value whose content is only known once rendered: a `$ref` or a string with a template. */
function isTemplated(value: JsonValue): boolean {
  return isRefObject(value) || (typeof value === 'string' && value.includes('{{'));
}

function lintTemplates(walk: Walk, site: TemplateSite, workflow: JsonObject): void {
  const steps = Array.isArray(workflow.steps) ? workflow.steps.filter(isJsonObject) : [];
  for (const use of site.uses) {
    const segments = use.path.split('.');
    const [root, step, output, ...rest] = segments;
    if (!TEMPLATE_ROOTS.includes(root!)) continue; // already an error
    if (segments.includes('')) {
      walk.warn(site.site, 'template_path_empty_segment', `template path ${use.path} has an empty segment`, use.at);
    } else if (root === 'run' && !RUN_FIELDS.includes(step ?? '')) {
      walk.warn(site.site, 'template_run_field_unknown', `template path ${use.path}: run has ${oneOf(RUN_FIELDS)}`, use.at);
    } else if (root === 'steps' && step !== undefined && site.allowedSteps.includes(step) && output !== 'output') {
      walk.warn(site.site, 'template_path_not_output', `template path ${use.path} should read steps.${step}.output…`, use.at);
    } else if (root === 'steps' && output === 'output' && rest.length > 0) {
      const target = steps.find((s) => s.id === step);
      const declared = target && outputSchemaOf(target);
      if (declared !== undefined && declaresPath(declared, rest) === 'undeclared') {
        walk.warn(site.site, 'template_field_undeclared', `template path ${use.path} names a field that the output of step ${step} does not declare`, use.at);
      }
    } else if (root === 'input' && step !== undefined && declaresPath(workflow.input_schema ?? null, segments.slice(1)) === 'undeclared') {
      walk.warn(site.site, 'template_field_undeclared', `template path ${use.path} names a field that input_schema does not declare`, use.at);
    }
  }
}

/** What a step's output is known to look like: its output_schema, or the fixed output of an action. */
function outputSchemaOf(step: JsonObject): JsonValue | undefined {
  if (step.kind === 'model') return step.output_schema;
  if (step.kind === 'action') return { type: 'object', properties: Object.fromEntries(ACTION_OUTPUT_FIELDS.map((f) => [f, {}])) };
  return undefined;
}

export interface FileValidation extends Partial<BundleSummary> {
  file: string;
  ok: boolean;
}

export interface FilesValidation {
  ok: boolean;
  errors: BundleError[];
  warnings: BundleError[];
  bundles: FileValidation[];
  /** Some file could not be read or is not JSON: a usage error (exit 2) as in kernos. */
  unreadable: boolean;
}

/**
 * `bundle validate FILE...`. With `first`, only the control plane's single first error of each file is
 * kept (no warnings), in its exact order and words.
 */
export function validateBundleFiles(files: readonly string[], options: { first?: boolean } = {}): FilesValidation {
  const out: FilesValidation = { ok: true, errors: [], warnings: [], bundles: [], unreadable: false };
  for (const file of files) {
    let text: string;
    try {
      text = readRegularFileSync(file);
    } catch (error) {
      const problem: BundleError = { code: 'usage', rule: 'file_unreadable', severity: 'error', message: `cannot read ${file}: ${(error as Error).message}`, details: { path: '' }, pointer: '', file };
      out.errors.push(problem);
      out.bundles.push({ file, ok: false });
      out.unreadable = true;
      continue;
    }
    const result = validateBundle(text, file);
    if (result.errors[0]?.code === 'invalid_json') out.unreadable = true;
    out.errors.push(...(options.first ? result.errors.slice(0, 1) : result.errors));
    if (!options.first) out.warnings.push(...result.warnings);
    out.bundles.push({ file, ok: result.ok, ...result.summary });
  }
  out.ok = out.errors.length === 0;
  return out;
}
