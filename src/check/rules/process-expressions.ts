/**
 * The expressions of processes (issue 7): every CEL field of a Process is checked in the taimen/1 profile —
 * syntax, size, types, the data and settings fields it reads — and the data a process writes is checked against
 * its `spec.data`: each `start.set` / `set` / `output.as` key names a declared field and gives a value of the
 * field's type, and each field an expression reads is written somewhere or required from the start.
 */
import { checkExpression, createEnvironment, type CelEnvironment, type CheckResult, type PathRead, type JsonSchema, type Profile } from '../../cel/index.js';
import { expressionProfile, processExpressions, processProfile, type ProcessExpression } from '../../process/index.js';
import type { SourceDocument } from '../../json/document.js';
import { childPointer, pointerSegments } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { lookupDataField, processModel } from '../../process/index.js';
import { defineRule, type RuleContext } from '../rule.js';
import { EXPRESSION_CODES, reportDiagnostics } from '../expression-findings.js';
import { isRecord } from '../../json/guards.js';

/** A data path a process writes: a key of `start.set`, `correlate[].set`, a step's `set` or `output.as`. */
interface DataWrite {
  path: string[];
  /** JSON Pointer of the written expression (its key is the path). */
  pointer: string;
}

export const processExpressionRules = defineRule({
  id: 'process/expressions',
  description: 'Every CEL expression of a process type-checks in the taimen/1 profile, and the data it reads and writes fits spec.data.',
  codes: {
    ...EXPRESSION_CODES,
    unwritten_data_field: {
      severity: 'warning',
      summary: 'An expression reads a data field that nothing writes (start.set, set, output.as) and spec.data does not require.',
      message: (d: { path: string }) => `${d.path} is read here, but no start.set, set or output.as writes it and spec.data does not require it`,
    },
    data_type_mismatch: {
      severity: 'error',
      summary: 'A value written into data (start.set, set, output.as) has a type or value that the field of spec.data does not accept.',
      message: (d: { path: string; problem: string }) => `${d.path} ${d.problem}`,
    },
  },
  check(context) {
    const processes = context.objects('Process');
    const calledWith = callInputs(processes);
    // Processes with the same data, stages and settings share their environments (and so their checks).
    const shared = new Map<string, Environments>();
    for (const process of processes) {
      const pkg = context.workspace.package(process.package);
      const data = context.facts.dataSchema(process);
      const spec = data === undefined ? process.spec : { ...process.spec, data };
      const settings = context.facts.expressionSettings(pkg);
      const profile = processProfile(spec, settings);
      const key = JSON.stringify(profile);
      let environments = shared.get(key);
      if (environments === undefined) shared.set(key, (environments = new Environments(profile)));
      const variables = context.facts.variables(pkg);
      const results = new Map<string, CheckResult>();
      for (const expression of processExpressions(spec)) {
        const result = checkExpression(environments.of(expression), expression.source, { expected: expression.expected, variables });
        results.set(expression.pointer, result);
        reportDiagnostics(context, process.document, expression.pointer, result);
      }
      if (data === undefined) continue;
      const writes = dataWrites(process);
      checkWrites(context, process, data, writes, results);
      checkReads(context, process, data, [...writes, ...(calledWith.get(process.key) ?? [])], results);
    }
  },
});

/** Environments of one process: the base profile, narrowed per step result and catch names — each built once. */
class Environments {
  private readonly built = new Map<JsonSchema | undefined, Map<string, CelEnvironment>>();

  constructor(private readonly base: Profile) {}

  of(expression: ProcessExpression): CelEnvironment {
    let byNames = this.built.get(expression.stepResult);
    if (byNames === undefined) this.built.set(expression.stepResult, (byNames = new Map()));
    const names = expression.catchNames.join('\u0000');
    let env = byNames.get(names);
    if (env === undefined) byNames.set(names, (env = createEnvironment(expressionProfile(this.base, expression))));
    return env;
  }
}

/** Every data path the process writes, with the expression it writes. */
function dataWrites(process: PackageObject): DataWrite[] {
  const writes: DataWrite[] = [];
  const fromMap = (map: unknown, pointer: string): void => {
    if (!isRecord(map)) return;
    for (const key of Object.keys(map)) writes.push({ path: key.split('.'), pointer: childPointer(pointer, key) });
  };
  const start = process.spec.start;
  if (isRecord(start)) fromMap(start.set, '/spec/start/set');
  const correlate = process.spec.correlate;
  if (Array.isArray(correlate)) correlate.forEach((entry, i) => isRecord(entry) && fromMap(entry.set, `/spec/correlate/${i}/set`));
  const model = processModel(process.spec);
  for (const element of model.elements) {
    const step = model.stepAt(element.pointer);
    if (step === undefined) continue;
    if (step.kind === 'set') fromMap(step.body, `${step.pointer}/set`);
    const output = step.node.output;
    if (isRecord(output)) fromMap(output.as, `${step.pointer}/output/as`);
  }
  return writes;
}

/** The data a process gets from the processes that call it (`call: {process, input}`), by the callee's key. */
function callInputs(processes: readonly PackageObject[]): Map<string, DataWrite[]> {
  const inputs = new Map<string, DataWrite[]>();
  for (const caller of processes) {
    const model = processModel(caller.spec);
    for (const element of model.elements) {
      const step = model.stepAt(element.pointer);
      if (step?.kind !== 'call' || !isRecord(step.body)) continue;
      const { process, input } = step.body;
      if (typeof process !== 'string' || !isRecord(input)) continue;
      const list = inputs.get(process) ?? [];
      for (const key of Object.keys(input)) list.push({ path: key.split('.'), pointer: '' });
      inputs.set(process, list);
    }
  }
  return inputs;
}

type Context = RuleContext<(typeof processExpressionRules)['codes']>;

/** Each written path is a declared field, and the value's type fits it. */
function checkWrites(context: Context, process: PackageObject, data: Record<string, unknown>, writes: readonly DataWrite[], results: ReadonlyMap<string, CheckResult>): void {
  for (const write of writes) {
    const path = `data.${write.path.join('.')}`;
    const field = lookupDataField(data, write.path);
    if ('missing' in field) {
      const name = write.path[field.missing]!;
      context.report('unknown_data_field', { document: process.document, pointer: write.pointer, part: 'key' }, {
        message: `${path} is written here, but spec.data of the process does not declare it`,
      }, {
        hint: didYouMean(name, field.declared) ?? `declare '${name}' in spec.data`,
      });
      continue;
    }
    const result = results.get(write.pointer);
    const source = valueAt(process.document, write.pointer);
    if (result === undefined || result.type === undefined || source === undefined) continue;
    const problem = misfit(result.type, source, field.schema);
    if (problem !== undefined) {
      context.report('data_type_mismatch', { document: process.document, pointer: write.pointer, offset: 0, length: source.length }, { path, problem: problem.text },
        problem.hint === undefined ? {} : { hint: problem.hint });
    }
  }
}

function valueAt(document: SourceDocument, pointer: string): string | undefined {
  let node: unknown = document.value;
  for (const segment of pointerSegments(pointer)) node = isRecord(node) || Array.isArray(node) ? (node as Record<string, unknown>)[segment] : undefined;
  return typeof node === 'string' ? node : undefined;
}

const JSON_TYPE_OF_CEL: Readonly<Record<string, readonly string[]>> = {
  // Instants and durations travel as text; a number field takes integers too.
  string: ['string', 'timestamp', 'duration'],
  integer: ['int', 'uint'],
  number: ['int', 'uint', 'double'],
  boolean: ['bool'],
  array: ['list'],
};
const SCALAR_CEL_TYPES = new Set(['bool', 'int', 'uint', 'double', 'string', 'bytes', 'timestamp', 'duration', 'list']);
const CONVERSION: Readonly<Record<string, string>> = { string: 'string(…)', integer: 'int(…)', number: 'double(…)' };
const STRING_LITERAL = /^\s*(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\s*$/;

/** Why a value of CEL type `type` (written as `source`) does not fit the field `schema`, if it does not. */
function misfit(type: string, source: string, schema: Record<string, unknown>): { text: string; hint?: string } | undefined {
  const general = type.includes('<') ? type.slice(0, type.indexOf('<')) : type;
  if (general === 'dyn' || general === 'null' || typeof schema.type !== 'string') return undefined;
  const accepted = JSON_TYPE_OF_CEL[schema.type];
  const fits = accepted !== undefined ? accepted.includes(general) : schema.type !== 'object' || !SCALAR_CEL_TYPES.has(general);
  if (!fits) {
    const conversion = CONVERSION[schema.type];
    return { text: `is ${schema.type} in spec.data, but the value written here is ${type}`, ...(conversion ? { hint: `convert the value with ${conversion}` } : {}) };
  }
  const literal = STRING_LITERAL.exec(source);
  const text = literal === null ? undefined : (literal[1] ?? literal[2] ?? '');
  if (text !== undefined && Array.isArray(schema.enum) && !schema.enum.includes(text)) {
    const allowed = schema.enum.filter((value): value is string => typeof value === 'string');
    const hint = didYouMean(text, allowed);
    return { text: `takes one of ${allowed.map((v) => `'${v}'`).join(', ')}, but the value written here is '${text}'`, ...(hint ? { hint } : {}) };
  }
  return undefined;
}

/** Every field an expression reads unguarded is written, given by a caller, or required. */
function checkReads(context: Context, process: PackageObject, data: Record<string, unknown>, writes: readonly DataWrite[], results: ReadonlyMap<string, CheckResult>): void {
  const required = new Set(Array.isArray(data.required) ? data.required : []);
  const written = new Set(writes.map((write) => write.path.join('.')));
  const writtenParents = new Set(writes.flatMap((write) => write.path.map((_, i) => write.path.slice(0, i + 1).join('.'))));
  // Reading a.b is covered by a write of a, of a.b, or of a.b.c.
  const covered = (path: readonly string[]) => writtenParents.has(path.join('.')) || path.some((_, i) => written.has(path.slice(0, i + 1).join('.')));
  const unwritten = new Map<string, { pointer: string; read: PathRead }[]>();
  for (const [pointer, result] of results) {
    for (const read of result.reads) {
      if (read.guarded || read.path.length === 0 || required.has(read.path[0]) || covered(read.path)) continue;
      if ('missing' in lookupDataField(data, read.path)) continue; // unknown_data_field says it
      const path = `data.${read.path.join('.')}`;
      const reads = unwritten.get(path);
      if (reads === undefined) unwritten.set(path, [{ pointer, read }]);
      else reads.push({ pointer, read });
    }
  }
  // One finding per field, at its first read in the file.
  const first = new Map([...unwritten].map(([path, reads]) => [path, firstInDocument(process.document, reads)] as const));
  for (const [path, { pointer, read }] of first) {
    context.report('unwritten_data_field', { document: process.document, pointer, offset: read.offset, length: read.length }, { path }, {
      hint: `write it (start.set, set, output.as), add '${read.path[0]}' to spec.data required, or read it guarded: has(${path}) or data.?${read.path.join('.?')}`,
    });
  }
}

function firstInDocument<T extends { pointer: string; read: PathRead }>(document: SourceDocument, reads: readonly T[]): T {
  if (reads.length === 1) return reads[0]!;
  const key = (item: T) => {
    const span = document.locate(item.pointer);
    return [span.line, span.column, item.read.offset] as const;
  };
  return reads.map((item) => ({ item, at: key(item) })).reduce((a, b) => (b.at[0] < a.at[0] || (b.at[0] === a.at[0] && (b.at[1] < a.at[1] || (b.at[1] === a.at[1] && b.at[2] < a.at[2]))) ? b : a)).item;
}
