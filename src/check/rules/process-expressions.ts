/**
 * The expressions of processes (compat-core-validators.md §2.6–§2.7): every CEL field of a Process compiles in
 * the `cp/1` profile where it stands, and what a process writes fits its target — `start.set`, `correlate[].set`,
 * `set`, `output.as` and `export.as` into `spec.data`, `call.input` into the skill's input schema,
 * `human.customFields` into the task type's fields — and each data field an expression reads is written
 * somewhere.
 */
import {
  celGeneralType, checkExpression, createEnvironment, type CelEnvironment, type CheckResult, type JsonSchema, type Profile,
} from '../../cel/index.js';
import {
  celTypeFits, dataWrites, expressionProfile, jsonTypesOf, processExpressions, processModel, processProfile, stepResultOf, typingDataSchema, writeTarget, writtenPaths,
  type DataWrite, type ProcessExpression, type StepCatalog, type StepResult,
} from '../../process/index.js';
import type { SourceDocument } from '../../json/document.js';
import { childPointer, pointerSegments } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { defineObjectRule, type ObjectContext, type ObjectFacts } from '../rule.js';
import { EXPRESSION_CODES, reportDiagnostics } from '../expression-findings.js';
import { isRecord } from '../../json/guards.js';

/** What a written key lands in, and how a finding names it. */
type WriteKind = 'data' | 'skill' | 'customFields';

/** A key a process writes, with the expression it writes. */
interface Write {
  kind: WriteKind;
  /** `a.b.c` as written. */
  key: string;
  /** JSON Pointer of the written expression (its key is the path). */
  pointer: string;
}

const misfit = (d: { key: string; types: string; type: string }) => `${d.key} is ${d.types}, the expression gives ${d.type}`;

export const processExpressionRules = defineObjectRule({
  id: 'process/expressions',
  description: 'Every CEL expression of a process compiles in the cp/1 profile, and what the process writes fits its data, skill inputs and task fields.',
  codes: {
    ...EXPRESSION_CODES,
    unknown_data_field: {
      severity: 'error',
      core: true,
      summary: 'A key of start.set, correlate.set, set, output.as or export.as names a field spec.data does not declare.',
      message: (d: { owner: string; field: string }) => `${d.owner} has no field ${d.field}`,
    },
    data_type_mismatch: {
      severity: 'error',
      core: true,
      summary: 'A value written into data does not have the JSON type of its field (a double into an integer, null into a field that is not nullable, …).',
      message: misfit,
    },
    data_value_outside_enum: {
      severity: 'warning',
      summary: 'A text literal written into data is none of the values of the field\'s enum (the core does not check it; the write fails at run time).',
      message: (d: { key: string; value: string; allowed: string }) => `${d.key} takes one of ${d.allowed}, the expression writes '${d.value}'`,
    },
    unwritten_data_field: {
      severity: 'warning',
      core: true,
      summary: 'An expression reads a data field, not under has() or .?, that no start.set, correlate.set, set, output.as or export.as writes.',
      message: (d: { path: string }) => `${d.path} is read here, but no start.set, correlate.set, set, output.as or export.as writes it`,
    },
    unknown_skill_input: {
      severity: 'error',
      core: true,
      summary: 'A key of call.input names no field of the input schema of the skill the step calls.',
      message: (d: { owner: string; field: string }) => `the skill input${d.owner === '' ? '' : ` ${d.owner}`} has no field ${d.field}`,
    },
    skill_input_type_mismatch: {
      severity: 'error',
      core: true,
      summary: 'A value of call.input does not have the JSON type of its field in the skill input schema.',
      message: misfit,
    },
    skill_input_missing: {
      severity: 'error',
      core: true,
      summary: 'A call step gives the skill none of some inputs its input schema requires (and has no input.from).',
      message: (d: { skill: string; missing: string }) => `skill '${d.skill}' requires ${d.missing}`,
    },
    unknown_custom_field: {
      severity: 'error',
      core: true,
      summary: 'A key of human.customFields names no field of the fieldSchema of the task type.',
      message: (d: { owner: string; field: string }) => `the fieldSchema of the task type${d.owner === '' ? '' : ` at ${d.owner}`} has no field ${d.field}`,
    },
    custom_field_type_mismatch: {
      severity: 'error',
      core: true,
      summary: 'A value of human.customFields does not have the JSON type of its field in the fieldSchema of the task type.',
      message: misfit,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const pkg = context.package(process.package);
    const data = typingDataSchema(context.facts.dataSchema(process));
    const spec = { ...process.spec, data };
    const environments = environmentsOf(context.facts, processProfile(spec, context.facts.expressionSettings(pkg), pkg?.key));
    const catalog = stepCatalog(context, process);
    const results = stepResults(spec, catalog);
    const variables = context.facts.variables(pkg);
    const checked = new Map<string, CheckResult>();
    for (const expression of processExpressions(spec)) {
      const result = checkExpression(environments.of(expression, results), expression.source, { expected: expression.expected, variables });
      checked.set(expression.pointer, result);
      reportDiagnostics(context, process.document, expression.pointer, result);
    }
    new WriteCheck(context, process, checked).run(data);
    reportUnwritten(context, process, dataWrites(processModel(process.spec)), checked);
  },
});

type Context = ObjectContext<(typeof processExpressionRules)['codes']>;

/** By check (its facts), the environments of each profile: processes with the same profile share them, and so their checks. */
const environmentsByCheck = new WeakMap<ObjectFacts, Map<string, Environments>>();

function environmentsOf(facts: ObjectFacts, profile: Profile): Environments {
  let shared = environmentsByCheck.get(facts);
  if (shared === undefined) environmentsByCheck.set(facts, (shared = new Map()));
  const key = JSON.stringify(profile);
  let environments = shared.get(key);
  if (environments === undefined) shared.set(key, (environments = new Environments(profile)));
  return environments;
}

/** Environments of one profile: the base, narrowed per step result, catch names and compensation — each built once. */
class Environments {
  private readonly built = new Map<string, CelEnvironment>();
  private readonly ids = new WeakMap<object, number>();
  private next = 1;

  constructor(private readonly base: Profile) {}

  of(expression: ProcessExpression, results: (step: Record<string, unknown>) => StepResult): CelEnvironment {
    // Keyed by the schemas themselves: steps of one task type or skill share their environment.
    const step = expression.step === undefined ? undefined : results(expression.step);
    const compensated = expression.compensated === undefined ? undefined : results(expression.compensated);
    const parts = [expression.step === undefined ? -1 : this.id(step?.result), this.id(step?.customFields), expression.compensated === undefined ? -1 : this.id(compensated?.result)];
    const key = `${parts.join('|')}|${expression.catchNames.join('\u0000')}`;
    let env = this.built.get(key);
    if (env === undefined) this.built.set(key, (env = createEnvironment(expressionProfile(this.base, expression, results))));
    return env;
  }

  private id(value: unknown): number {
    if (typeof value !== 'object' || value === null) return 0;
    let id = this.ids.get(value);
    if (id === undefined) this.ids.set(value, (id = this.next++));
    return id;
  }
}

/** The skills and task types a process names, as the package sees them. */
function stepCatalog(context: Context, process: PackageObject): StepCatalog & { skillInput(skill: string): JsonSchema | undefined } {
  const skill = (name: string) => context.lookup(process.package, 'Skill', name)?.spec;
  const contract = (name: string) => { const spec = skill(name); return isRecord(spec?.contract) ? spec.contract : undefined; };
  return {
    skillOutput: (name) => (contract(name)?.outputs ?? skill(name)?.outputSchema) as JsonSchema | undefined,
    skillInput: (name) => (contract(name)?.inputs ?? skill(name)?.inputSchema) as JsonSchema | undefined,
    taskFields: (taskType) => context.lookup(process.package, 'TaskType', taskType)?.spec.fieldSchema as JsonSchema | undefined,
  };
}

/** `stepResultOf` once per step: environments are shared by the identity of what it returns. */
function stepResults(spec: Record<string, unknown>, catalog: StepCatalog): (step: Record<string, unknown>) => StepResult {
  const decisions = Array.isArray(spec.decisions) ? spec.decisions.filter(isRecord) : [];
  const known = new WeakMap<Record<string, unknown>, StepResult>();
  return (step) => {
    let result = known.get(step);
    if (result === undefined) known.set(step, (result = stepResultOf(step, decisions, catalog)));
    return result;
  };
}

/** Every key the process writes into data (see `dataWrites` of the process model). */
function dataWritesOf(process: PackageObject): Write[] {
  return dataWrites(processModel(process.spec)).map((write) => ({ kind: 'data', ...write }));
}

/** Writes into data, skill inputs and task fields: each key names a field, and each value fits it. */
class WriteCheck {
  private readonly catalog: ReturnType<typeof stepCatalog>;

  constructor(
    private readonly context: Context,
    private readonly process: PackageObject,
    private readonly checked: ReadonlyMap<string, CheckResult>,
  ) {
    this.catalog = stepCatalog(context, process);
  }

  run(data: Record<string, unknown> | undefined): void {
    if (data !== undefined) for (const write of dataWritesOf(this.process)) this.write(write, data, '');
    for (const step of processModel(this.process.spec).steps) {
      if (step.kind === 'call' && isRecord(step.body) && typeof step.body.skill === 'string') this.callInput(step.body, step.pointer, step.node);
      if (step.kind === 'human' && isRecord(step.body) && typeof step.body.taskType === 'string' && isRecord(step.body.customFields)) {
        const fields = this.catalog.taskFields(step.body.taskType);
        if (isRecord(fields) && fields.type === 'object') {
          for (const key of Object.keys(step.body.customFields)) {
            this.write({ kind: 'customFields', key, pointer: childPointer(`${step.pointer}/human/customFields`, key) }, fields, '');
          }
        }
      }
    }
  }

  private callInput(call: Record<string, unknown>, stepPointer: string, step: Record<string, unknown>): void {
    const skill = call.skill as string;
    const schema = this.catalog.skillInput(skill);
    if (!isRecord(schema) || schema.type !== 'object') return;
    const input = isRecord(call.input) ? call.input : {};
    const at = `${stepPointer}/call`;
    for (const key of Object.keys(input)) this.write({ kind: 'skill', key, pointer: childPointer(`${at}/input`, key) }, schema, skill);
    const given = new Set(Object.keys(input).map((key) => key.split('.')[0]));
    const required = Array.isArray(schema.required) ? schema.required.filter((name): name is string => typeof name === 'string') : [];
    const missing = required.filter((name) => !given.has(name));
    const from = isRecord(step.input) && step.input.from !== undefined;
    if (missing.length > 0 && !from) {
      this.context.report('skill_input_missing', this.place(isRecord(call.input) ? `${at}/input` : at, 'key'), { skill, missing: missing.join(', ') }, {
        hint: `give ${missing.join(', ')} in call.input, or the whole input with input.from`,
      });
    }
  }

  private place(pointer: string, part?: 'key') {
    return part === undefined ? { document: this.process.document, pointer } : { document: this.process.document, pointer, part };
  }

  private write(write: Write, schema: Record<string, unknown>, skill: string): void {
    const path = write.key.split('.');
    const target = writeTarget(schema, path);
    if ('missing' in target) {
      const field = path[target.missing]!;
      const prefix = path.slice(0, target.missing).join('.');
      const hint = didYouMean(field, target.declared) ?? `declared: ${target.declared.join(', ')}`;
      const place = this.place(write.pointer, 'key');
      if (write.kind === 'data') this.context.report('unknown_data_field', place, { owner: prefix === '' ? 'data' : `data.${prefix}`, field }, { hint });
      else if (write.kind === 'skill') this.context.report('unknown_skill_input', place, { owner: prefix, field }, { hint: `${hint} (skill ${skill})` });
      else this.context.report('unknown_custom_field', place, { owner: prefix, field }, { hint });
      return;
    }
    const type = this.checked.get(write.pointer)?.type;
    const source = valueAt(this.process.document, write.pointer);
    if (target.field === undefined || type === undefined || source === undefined) return;
    const types = jsonTypesOf(target.field);
    const place = { document: this.process.document, pointer: write.pointer, offset: 0, length: source.length };
    if (!celTypeFits(celGeneralType(type), types)) {
      const code = write.kind === 'data' ? 'data_type_mismatch' : write.kind === 'skill' ? 'skill_input_type_mismatch' : 'custom_field_type_mismatch';
      const general = celGeneralType(type);
      this.context.report(code, place, { key: write.key, types: types.join(' or '), type: general === 'map' ? 'object' : general === 'list' ? type : general }, conversionHint(types));
      return;
    }
    if (write.kind === 'data') this.enumLiteral(write, source, target.field, place);
  }

  /** A text literal outside the field's enum: the core takes it, the instance then fails to store it. */
  private enumLiteral(write: Write, source: string, field: Record<string, unknown>, place: { document: SourceDocument; pointer: string; offset: number; length: number }): void {
    const literal = STRING_LITERAL.exec(source);
    const text = literal === null ? undefined : (literal[1] ?? literal[2] ?? '');
    if (text === undefined || !Array.isArray(field.enum) || field.enum.includes(text)) return;
    const allowed = field.enum.filter((value): value is string => typeof value === 'string');
    const hint = didYouMean(text, allowed);
    this.context.report('data_value_outside_enum', place, { key: write.key, value: text, allowed: allowed.map((v) => `'${v}'`).join(', ') }, hint ? { hint } : {});
  }
}

const CONVERSION: Readonly<Record<string, string>> = { string: 'string(…)', integer: 'int(…)', number: 'double(…)' };
const STRING_LITERAL = /^\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*$/;

function conversionHint(types: readonly string[]): { hint?: string } {
  const conversion = types.map((type) => CONVERSION[type]).find((c) => c !== undefined);
  return conversion === undefined ? {} : { hint: `convert the value with ${conversion}` };
}

function valueAt(document: SourceDocument, pointer: string): string | undefined {
  let node: unknown = document.value;
  for (const segment of pointerSegments(pointer)) node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  return typeof node === 'string' ? node : undefined;
}

/**
 * A data field read without a guard that no write covers — a write of the path, of a prefix of it, or of
 * something below it. One finding per expression and field, at the read.
 */
function reportUnwritten(context: Context, process: PackageObject, writes: readonly DataWrite[], checked: ReadonlyMap<string, CheckResult>): void {
  const isWritten = writtenPaths(writes);
  for (const [pointer, result] of checked) {
    if (result.diagnostics.length > 0) continue;
    const seen = new Set<string>();
    for (const read of result.reads) {
      if (read.guarded || isWritten(read.path)) continue;
      const path = read.path.length === 0 ? 'data' : `data.${read.path.join('.')}`;
      if (seen.has(path)) continue;
      seen.add(path);
      context.report('unwritten_data_field', { document: process.document, pointer, offset: read.offset, length: read.length }, { path }, {
        hint: `write it (start.set, set, output.as), or read it guarded: has(${path})${read.path.length > 0 ? ` or data.?${read.path.join('.?')}.orValue(…)` : ''}`,
      });
    }
  }
}
