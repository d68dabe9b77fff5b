/**
 * Decision tables of processes (issue 7; the format is the reference's `decisionTable`): rules name only the
 * table's inputs and give every output, each cell can match a value of its input's type, and — for the hit
 * policies that pick one rule — every input combination is matched (`first`, `unique`), by one rule only
 * (`unique`), and no rule hides behind the rules above it (`first`). docs/analysis.md states the exact rules.
 */
import { childPointer } from '../../json/pointer.js';
import { closestName, didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { lookupDataField, processDataSchema, processModel } from '../../process/index.js';
import { defineRule, type RuleContext } from '../rule.js';
import { atomsOf, parseCell, uncoveredPoint, type Domain, type InputType, type Point } from '../../model/decision-table.js';
import { isRecord } from '../../json/guards.js';

export const decisionTables = defineRule({
  id: 'process/decision-tables',
  description: 'Decision tables are complete and consistent: known inputs and outputs, typed cells, no gaps, no overlaps, no shadowed rules, used by a step.',
  codes: {
    unknown_table_input: {
      severity: 'error',
      summary: "A rule's when (or a decide step's input) names an input the decision table does not declare.",
      message: (d: { table: string; input: string }) => `decision table '${d.table}' has no input '${d.input}'`,
    },
    unknown_table_output: {
      severity: 'error',
      summary: "A rule's then names an output the decision table does not declare.",
      message: (d: { table: string; output: string }) => `decision table '${d.table}' has no output '${d.output}'`,
    },
    table_output_missing: {
      severity: 'error',
      summary: "A rule's then does not give every output of the decision table.",
      message: (d: { rule: number; missing: string }) => `rule ${d.rule} gives no value for ${d.missing}`,
    },
    invalid_table_cell: {
      severity: 'error',
      summary: "A cell of a rule cannot match a value of its input's type (a range over text, a value outside the field's enum, an empty range, …).",
      message: (d: { input: string; problem: string }) => `cell of input '${d.input}': ${d.problem}`,
    },
    decision_table_gap: {
      severity: 'warning',
      summary: 'An input combination matches no rule of a first or unique decision table: the decide step fails on it.',
      message: (d: { table: string; point: string }) => `no rule of decision table '${d.table}' matches ${d.point}`,
    },
    decision_table_overlap: {
      severity: 'error',
      summary: 'Two rules of a decision table with hitPolicy unique match the same input.',
      message: (d: { first: number; second: number; point: string }) => `rules ${d.first} and ${d.second} both match ${d.point}, but the hit policy is unique`,
    },
    decision_table_shadowed_rule: {
      severity: 'warning',
      summary: 'A rule of a first decision table never applies: the rules above it match every input it matches.',
      message: (d: { rule: number; above: string }) => `rule ${d.rule} never applies: ${d.above} every input it matches`,
    },
    unused_decision_table: {
      severity: 'warning',
      summary: 'A decision table of spec.decisions that no decide step uses.',
      message: (d: { table: string }) => `decision table '${d.table}' is used by no decide step`,
    },
  },
  check(context) {
    for (const process of context.objects('Process')) {
      const decisions = process.spec.decisions;
      if (!Array.isArray(decisions)) continue;
      const used = usedTables(process);
      decisions.forEach((table, index) => {
        if (!isRecord(table) || typeof table.id !== 'string') return;
        const pointer = childPointer('/spec/decisions', index);
        new TableCheck(context, process, table, table.id, pointer).run(used.get(table.id) ?? []);
      });
    }
  },
});

type Context = RuleContext<(typeof decisionTables)['codes']>;

interface TableInput {
  id: string;
  type: InputType | undefined;
  /** The values a text input can take: the enum of the data field it reads. */
  enum?: readonly string[];
}

/** The `decide` steps of a process by the table they name, with their pointers. */
function usedTables(process: PackageObject): Map<string, { pointer: string; input: unknown }[]> {
  const used = new Map<string, { pointer: string; input: unknown }[]>();
  const model = processModel(process.spec);
  for (const element of model.elements) {
    const step = model.stepAt(element.pointer);
    if (step?.kind !== 'decide' || !isRecord(step.body) || typeof step.body.table !== 'string') continue;
    const list = used.get(step.body.table) ?? [];
    list.push({ pointer: `${step.pointer}/decide`, input: step.body.input });
    used.set(step.body.table, list);
  }
  return used;
}

class TableCheck {
  private readonly inputs: TableInput[];
  private readonly outputs: string[];
  private readonly rules: { when: Record<string, unknown>; then: unknown; pointer: string }[];

  constructor(
    private readonly context: Context,
    private readonly process: PackageObject,
    private readonly table: Record<string, unknown>,
    private readonly id: string,
    private readonly pointer: string,
  ) {
    const data = processDataSchema(process);
    this.inputs = mappings(table.inputs).filter((input) => typeof input.id === 'string').map((input) => inputOf(input, data));
    this.outputs = mappings(table.outputs).map((output) => output.id).filter((id): id is string => typeof id === 'string');
    this.rules = [];
    if (Array.isArray(table.rules)) {
      table.rules.forEach((rule, i) => {
        if (isRecord(rule)) this.rules.push({ when: isRecord(rule.when) ? rule.when : {}, then: rule.then, pointer: childPointer(`${pointer}/rules`, i) });
      });
    }
  }

  private place(pointer: string, part?: 'key') {
    return part === undefined ? { document: this.process.document, pointer } : { document: this.process.document, pointer, part };
  }

  run(uses: readonly { pointer: string; input: unknown }[]): void {
    if (uses.length === 0) {
      this.context.report('unused_decision_table', this.place(`${this.pointer}/id`), { table: this.id }, {
        hint: `decide it in a step (decide: {table: ${this.id}}), or remove it`,
      });
    }
    for (const use of uses) this.checkInputNames(use.input, `${use.pointer}/input`);
    let sound = true;
    for (const rule of this.rules) {
      if (!this.checkInputNames(rule.when, `${rule.pointer}/when`)) sound = false;
      this.checkOutputs(rule);
      if (!this.checkCells(rule)) sound = false;
    }
    if (sound) this.analyse();
  }

  /** False when the mapping names an input the table does not have. */
  private checkInputNames(map: unknown, pointer: string): boolean {
    if (!isRecord(map)) return true;
    const known = this.inputs.map((input) => input.id);
    const unknown = Object.keys(map).filter((name) => !known.includes(name));
    for (const name of unknown) {
      this.context.report('unknown_table_input', this.place(childPointer(pointer, name), 'key'), { table: this.id, input: name }, {
        hint: didYouMean(name, known) ?? `the inputs are ${known.join(', ') || 'none'}`,
      });
    }
    return unknown.length === 0;
  }

  private checkOutputs(rule: TableCheck['rules'][number]): void {
    if (!isRecord(rule.then)) return;
    const meant = new Set<string>(); // a misspelt output is one mistake: not also a missing one
    for (const name of Object.keys(rule.then)) {
      if (this.outputs.includes(name)) continue;
      const close = closestName(name, this.outputs);
      if (close !== undefined) meant.add(close);
      this.context.report('unknown_table_output', this.place(childPointer(`${rule.pointer}/then`, name), 'key'), { table: this.id, output: name }, {
        hint: didYouMean(name, this.outputs) ?? `the outputs are ${this.outputs.join(', ') || 'none'}`,
      });
    }
    const missing = this.outputs.filter((output) => !Object.hasOwn(rule.then as object, output) && !meant.has(output));
    if (missing.length > 0) {
      this.context.report('table_output_missing', this.place(`${rule.pointer}/then`), { rule: this.ruleNumber(rule.pointer), missing: missing.join(', ') }, {
        hint: `give ${missing.join(', ')} in then, as every rule gives every output`,
      });
    }
  }

  /** False when a cell is wrong: the analysis of the whole table then waits for the fix. */
  private checkCells(rule: TableCheck['rules'][number]): boolean {
    let ok = true;
    for (const input of this.inputs) {
      if (!Object.hasOwn(rule.when, input.id) || input.type === undefined) continue;
      const parsed = parseCell(rule.when[input.id], input.type, input.enum);
      if ('problem' in parsed) {
        ok = false;
        this.context.report('invalid_table_cell', this.place(childPointer(`${rule.pointer}/when`, input.id)), { input: input.id, problem: parsed.problem },
          parsed.hint === undefined ? {} : { hint: parsed.hint });
      }
    }
    return ok;
  }

  private ruleNumber(pointer: string): number {
    return Number(pointer.slice(pointer.lastIndexOf('/') + 1)) + 1;
  }

  /** Gaps, overlaps and shadowed rules over the atoms of each input's domain (see decision-cells.ts). */
  private analyse(): void {
    const policy = this.table.hitPolicy;
    if (policy !== 'first' && policy !== 'unique') return;
    if (this.rules.length === 0 || this.inputs.some((input) => input.type === undefined && this.rules.some((rule) => !isAny(rule.when[input.id])))) return;
    const domains: Domain[] = this.inputs.map((input) => atomsOf(input.type ?? 'string', input.enum, this.rules.map((rule) => rule.when[input.id])));
    const boxes = this.rules.map((rule) => domains.map((domain, d) => domain.matching(rule.when[this.inputs[d]!.id])));
    const all = domains.map((domain) => domain.atoms.map((_, i) => i));
    const gap = uncoveredPoint(boxes, all);
    if (gap === 'undecided') return;
    if (gap !== undefined) {
      this.context.report('decision_table_gap', this.place(`${this.pointer}/rules`, 'key'), { table: this.id, point: this.describe(domains, gap) }, {
        hint: policy === 'first' ? `add a rule for it, or close the table with a last rule of "-" cells` : 'add a rule for it',
      });
    }
    if (policy === 'unique') this.overlaps(domains, boxes);
    else this.shadowed(boxes);
  }

  private overlaps(domains: readonly Domain[], boxes: readonly (readonly number[])[][]): void {
    for (let j = 1; j < boxes.length; j++) {
      for (let i = 0; i < j; i++) {
        const common = boxes[i]!.map((atoms, d) => atoms.find((atom) => boxes[j]![d]!.includes(atom)));
        if (common.some((atom) => atom === undefined)) continue;
        this.context.report('decision_table_overlap', this.place(`${this.rules[j]!.pointer}/when`, 'key'), {
          first: i + 1, second: j + 1, point: this.describe(domains, common as number[]),
        }, { hint: 'narrow one of the two rules, or use hitPolicy: first if the order decides' });
        break;
      }
    }
  }

  private shadowed(boxes: readonly (readonly number[])[][]): void {
    for (let j = 1; j < boxes.length; j++) {
      const above = boxes.slice(0, j);
      if (uncoveredPoint(above, boxes[j]!) !== undefined) continue;
      const overlapping = above.map((box, i) => (box.every((atoms, d) => atoms.some((atom) => boxes[j]![d]!.includes(atom))) ? i + 1 : 0)).filter((n) => n > 0);
      this.context.report('decision_table_shadowed_rule', this.place(`${this.rules[j]!.pointer}/when`, 'key'), {
        rule: j + 1, above: overlapping.length === 1 ? `rule ${overlapping[0]} above it matches` : `rules ${overlapping.join(', ')} above it match`,
      }, { hint: 'move it above the rules that hide it, or remove it' });
    }
  }

  /** The inputs that tell the point apart: an input whose column is all "-" is left out. */
  private describe(domains: readonly Domain[], point: Point): string {
    const parts = point.flatMap((atom, d) => {
      const input = this.inputs[d]!;
      return this.rules.every((rule) => isAny(rule.when[input.id])) ? [] : [`${input.id} ${domains[d]!.describe(atom)}`];
    });
    return parts.length > 0 ? parts.join(', ') : 'any input';
  }
}

function mappings(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}

function isAny(cell: unknown): boolean {
  return cell === undefined || cell === '-';
}

const INPUT_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'date', 'timestamp']);
const DATA_PATH = /^\s*data((?:\.[A-Za-z_][A-Za-z0-9_]*)+)\s*$/;

/**
 * An input's type (its `type`, else the type of the data field its expression reads) and, for text read
 * straight from a data field with an enum, the values it can take; integers count as numbers.
 */
function inputOf(input: Record<string, unknown>, data: Record<string, unknown> | undefined): TableInput {
  const path = typeof input.expr === 'string' ? DATA_PATH.exec(input.expr)?.[1]?.slice(1).split('.') : undefined;
  const lookup = path !== undefined && data !== undefined ? lookupDataField(data, path) : undefined;
  const field = lookup !== undefined && 'schema' in lookup ? lookup.schema : {};
  const declared = typeof input.type === 'string' && INPUT_TYPES.has(input.type) ? (input.type as InputType) : fieldType(field);
  const values = Array.isArray(field.enum) && field.enum.every((v) => typeof v === 'string') ? (field.enum as string[]) : undefined;
  const result: TableInput = { id: input.id as string, type: declared };
  if (declared === 'string' && values !== undefined && fieldType(field) === 'string') result.enum = values;
  if (declared === 'number' && field.type === 'integer') result.type = 'integer';
  return result;
}

function fieldType(field: Record<string, unknown>): InputType | undefined {
  switch (field.type) {
    case 'string':
      return field.format === 'date-time' ? 'timestamp' : field.format === 'date' ? 'date' : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    default:
      return undefined;
  }
}
