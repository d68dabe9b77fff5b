/**
 * Decision tables of processes as the core checks them (compat-core-validators.md §2.11): inputs and outputs
 * declared once, rules that name only declared inputs and outputs, cells that read as conditions of their
 * input's type, outputs of their declared JSON type — and, for a table without such an error, the analysis of
 * its rules: two rules of a `unique` table that match one input, a rule of a `first` table that earlier rules
 * hide, an input no rule of a `first` or `unique` table matches. docs/analysis.md states the exact rules.
 */
import { celGeneralType, checkExpression, createEnvironment, type CelEnvironment } from '../../cel/index.js';
import { childPointer } from '../../json/pointer.js';
import { closestName, didYouMean } from '../../model/did-you-mean.js';
import type { PackageObject } from '../../model/package.js';
import { processModel, processProfile, typingDataSchema } from '../../process/index.js';
import { defineObjectRule, type ObjectContext } from '../rule.js';
import { atomsOf, isAnyCell, parseCell, uncoveredPoint, type Domain, type InputType, type Point } from '../../model/decision-table.js';
import { isRecord } from '../../json/guards.js';

export const decisionTables = defineObjectRule({
  id: 'process/decision-tables',
  description: 'Decision tables are well formed and their rules consistent: declared inputs and outputs, cells of the input type, typed outputs, no overlap in a unique table, no hidden rule, no gap.',
  codes: {
    duplicate_table_input: {
      severity: 'error',
      core: true,
      summary: 'A decision table declares an input id twice.',
      message: (d: { table: string; input: string }) => `decision table '${d.table}' declares input '${d.input}' twice`,
    },
    duplicate_table_output: {
      severity: 'error',
      core: true,
      summary: 'A decision table declares an output id twice.',
      message: (d: { table: string; output: string }) => `decision table '${d.table}' declares output '${d.output}' twice`,
    },
    unknown_table_input: {
      severity: 'error',
      core: true,
      summary: "A rule's when (or a decide step's input) names an input the decision table does not declare.",
      message: (d: { table: string; input: string }) => `decision table '${d.table}' has no input '${d.input}'`,
    },
    unknown_table_output: {
      severity: 'error',
      core: true,
      summary: "A rule's then names an output the decision table does not declare.",
      message: (d: { table: string; output: string }) => `decision table '${d.table}' has no output '${d.output}'`,
    },
    table_output_missing: {
      severity: 'error',
      core: true,
      summary: "A rule's then does not give an output of the decision table.",
      message: (d: { output: string }) => `the rule does not give output '${d.output}'`,
    },
    table_output_type_mismatch: {
      severity: 'error',
      core: true,
      summary: 'A rule gives an output a value of another JSON type than the output declares.',
      message: (d: { output: string; type: string; value: string }) => `output '${d.output}' is ${d.type}, the rule gives '${d.value}'`,
    },
    invalid_table_cell: {
      severity: 'error',
      core: true,
      summary: "A cell of a rule is no condition of its input's type (a word over a number input, a date that is no date, an empty range, …).",
      message: (d: { problem: string }) => d.problem,
    },
    table_gap: {
      severity: 'warning',
      core: true,
      summary: 'An input combination matches no rule of a first or unique decision table: the decide step fails on it.',
      message: (d: { point: string }) => `no rule matches the input ${d.point}`,
    },
    table_overlap: {
      severity: 'error',
      core: true,
      summary: 'Two rules of a decision table with hitPolicy unique both match some input.',
      message: (d: { first: number; second: number }) => `rules ${d.first} and ${d.second} both match some input of a unique table`,
    },
    table_rule_unreachable: {
      severity: 'warning',
      core: true,
      summary: 'A rule of a first decision table never applies: the earlier rules match every input it matches.',
      message: (d: { rule: number }) => `rule ${d.rule} never applies: earlier rules match every input it matches`,
    },
    table_check_truncated: {
      severity: 'warning',
      core: true,
      summary: 'The analysis of a decision table ran out of its search budget (50,000 cells per question) and is incomplete.',
      message: (d: { table: string }) => `the rules of decision table '${d.table}' have too many combinations to be checked for gaps and overlaps`,
    },
    unused_decision_table: {
      severity: 'warning',
      core: true,
      summary: 'A decision table of spec.decisions that no decide step uses.',
      message: (d: { table: string }) => `decision table '${d.table}' is used by no decide step`,
    },
  },
  subjects: ['Process'],
  checkObject(context, process) {
    const decisions = process.spec.decisions;
    if (!Array.isArray(decisions)) return;
    const used = usedTables(process);
    const inputTypes = new InputTyper(context, process);
    decisions.forEach((table, index) => {
      if (!isRecord(table) || typeof table.id !== 'string') return;
      const pointer = childPointer('/spec/decisions', index);
      new TableCheck(context, process, table, table.id, pointer, inputTypes).run(used.get(table.id) ?? []);
    });
  },
});

type Context = ObjectContext<(typeof decisionTables)['codes']>;

interface TableInput {
  id: string;
  type: InputType;
}

/** The `decide` steps of a process by the table they name, with their pointers. */
function usedTables(process: PackageObject): Map<string, { pointer: string; input: unknown }[]> {
  const used = new Map<string, { pointer: string; input: unknown }[]>();
  for (const step of processModel(process.spec).steps) {
    if (step.kind !== 'decide' || !isRecord(step.body) || typeof step.body.table !== 'string') continue;
    const list = used.get(step.body.table) ?? [];
    list.push({ pointer: `${step.pointer}/decide`, input: step.body.input });
    used.set(step.body.table, list);
  }
  return used;
}

const INPUT_TYPES: ReadonlySet<string> = new Set(['string', 'number', 'boolean', 'date', 'timestamp']);
const CEL_INPUT_TYPES: Readonly<Record<string, InputType>> = { string: 'string', int: 'number', uint: 'number', double: 'number', bool: 'boolean', timestamp: 'timestamp' };

/** An input's type: its `type`, else the CEL type of its expression, else what its cells are. */
class InputTyper {
  private env: CelEnvironment | undefined;

  constructor(private readonly context: Context, private readonly process: PackageObject) {}

  typeOf(input: Record<string, unknown>, cells: readonly unknown[]): InputType {
    if (typeof input.type === 'string' && INPUT_TYPES.has(input.type)) return input.type as InputType;
    if (typeof input.expr === 'string') {
      const type = checkExpression(this.environment(), input.expr).type;
      const typed = type === undefined ? undefined : CEL_INPUT_TYPES[celGeneralType(type)];
      if (typed !== undefined) return typed;
    }
    const written = cells.filter((cell) => !isAnyCell(cell));
    if (written.length > 0 && written.every((cell) => typeof cell === 'boolean')) return 'boolean';
    if (written.length > 0 && written.every((cell) => typeof cell === 'number')) return 'number';
    return 'string';
  }

  private environment(): CelEnvironment {
    const data = typingDataSchema(this.context.facts.dataSchema(this.process));
    const pkg = this.context.package(this.process.package);
    this.env ??= createEnvironment(processProfile({ ...this.process.spec, data }, this.context.facts.expressionSettings(pkg), pkg?.key));
    return this.env;
  }
}

interface TableRule {
  when: Record<string, unknown>;
  then: unknown;
  pointer: string;
  index: number;
}

class TableCheck {
  private readonly inputs: TableInput[];
  private readonly outputs: Record<string, unknown>[];
  private readonly rules: TableRule[] = [];
  private errors = 0;

  constructor(
    private readonly context: Context,
    private readonly process: PackageObject,
    private readonly table: Record<string, unknown>,
    private readonly id: string,
    private readonly pointer: string,
    typer: InputTyper,
  ) {
    if (Array.isArray(table.rules)) {
      table.rules.forEach((rule, index) => {
        if (isRecord(rule)) this.rules.push({ when: isRecord(rule.when) ? rule.when : {}, then: rule.then, pointer: childPointer(`${pointer}/rules`, index), index });
      });
    }
    this.inputs = mappings(table.inputs).filter((input) => typeof input.id === 'string')
      .map((input) => ({ id: input.id as string, type: typer.typeOf(input, this.rules.map((rule) => rule.when[input.id as string])) }));
    this.outputs = mappings(table.outputs).filter((output) => typeof output.id === 'string');
  }

  private place(pointer: string, part?: 'key') {
    return part === undefined ? { document: this.process.document, pointer } : { document: this.process.document, pointer, part };
  }

  /** Reports, counting errors: the analysis runs only on a table without one. */
  private report(code: keyof (typeof decisionTables)['codes'], pointer: string, data: unknown, hint?: string, part?: 'key'): void {
    if (decisionTables.codes[code].severity === 'error') this.errors++;
    this.context.report(code, this.place(pointer, part), data as never, hint === undefined ? {} : { hint });
  }

  run(uses: readonly { pointer: string; input: unknown }[]): void {
    this.duplicates('inputs', 'duplicate_table_input');
    this.duplicates('outputs', 'duplicate_table_output');
    for (const rule of this.rules) {
      this.checkInputNames(rule.when, `${rule.pointer}/when`);
      this.checkCells(rule);
      this.checkOutputs(rule);
    }
    for (const use of uses) this.checkInputNames(use.input, `${use.pointer}/input`);
    if (this.errors === 0) this.analyse();
    if (uses.length === 0) this.report('unused_decision_table', this.pointer, { table: this.id }, `decide it in a step (decide: {table: ${this.id}}), or remove it`);
  }

  private duplicates(field: 'inputs' | 'outputs', code: 'duplicate_table_input' | 'duplicate_table_output'): void {
    const seen = new Set<string>();
    for (const item of mappings(this.table[field])) {
      if (typeof item.id !== 'string') continue;
      if (seen.has(item.id)) this.report(code, this.pointer, code === 'duplicate_table_input' ? { table: this.id, input: item.id } : { table: this.id, output: item.id }, 'give each its own id');
      seen.add(item.id);
    }
  }

  private checkInputNames(map: unknown, pointer: string): void {
    if (!isRecord(map)) return;
    const known = this.inputs.map((input) => input.id);
    for (const name of Object.keys(map).filter((name) => !known.includes(name))) {
      this.report('unknown_table_input', childPointer(pointer, name), { table: this.id, input: name }, didYouMean(name, known) ?? `declared: ${known.join(', ') || 'none'}`, 'key');
    }
  }

  /** A bad cell is reported and then read as `-`, so the rest of the table is still checked. */
  private checkCells(rule: TableRule): void {
    for (const input of this.inputs) {
      const parsed = parseCell(rule.when[input.id], input.type);
      if (!('problem' in parsed)) continue;
      this.report('invalid_table_cell', childPointer(`${rule.pointer}/when`, input.id), { problem: parsed.problem }, parsed.hint);
      rule.when = { ...rule.when, [input.id]: '-' };
    }
  }

  private checkOutputs(rule: TableRule): void {
    if (!isRecord(rule.then)) return;
    const names = this.outputs.map((output) => output.id as string);
    const meant = new Set<string>(); // a misspelt output is one mistake: not also a missing one
    for (const [name, value] of Object.entries(rule.then)) {
      const output = this.outputs.find((candidate) => candidate.id === name);
      if (output === undefined) {
        const close = closestName(name, names);
        if (close !== undefined) meant.add(close);
        this.report('unknown_table_output', childPointer(`${rule.pointer}/then`, name), { table: this.id, output: name }, didYouMean(name, names) ?? `declared: ${names.join(', ') || 'none'}`, 'key');
        continue;
      }
      const type = typeof output.type === 'string' ? output.type : undefined;
      if (type !== undefined && value !== null && !outputFits(type, value)) {
        this.report('table_output_type_mismatch', childPointer(`${rule.pointer}/then`, name), { output: name, type, value: typeof value === 'string' ? value : JSON.stringify(value) });
      }
    }
    for (const output of names.filter((name) => !Object.hasOwn(rule.then as object, name) && !meant.has(name))) {
      this.report('table_output_missing', `${rule.pointer}/then`, { output }, `give ${output} in then: every rule gives every output`);
    }
  }

  /** Overlaps, hidden rules and gaps over the atoms of each input's values. */
  private analyse(): void {
    const policy = this.table.hitPolicy;
    if ((policy !== 'first' && policy !== 'unique') || this.rules.length === 0) return;
    const domains: Domain[] = this.inputs.map((input) => atomsOf(input.type, this.rules.map((rule) => rule.when[input.id])));
    const boxes = this.rules.map((rule) => domains.map((domain, d) => domain.matching(rule.when[this.inputs[d]!.id])));
    const all = domains.map((domain) => domain.atoms.map((_, i) => i));
    let truncated = false;
    if (policy === 'unique') this.overlaps(boxes);
    else truncated = this.unreachable(boxes);
    const gap = uncoveredPoint(boxes, all);
    if (gap === 'truncated') truncated = true;
    else if (gap !== undefined) {
      this.report('table_gap', this.pointer, { point: this.describe(domains, gap) }, "add a rule for it or a last rule with '-' in every input");
    }
    if (truncated) this.report('table_check_truncated', this.pointer, { table: this.id }, 'split the table, or write fewer distinct values');
  }

  /** For each rule, the first earlier rule whose conditions intersect it on every input. */
  private overlaps(boxes: readonly (readonly number[])[][]): void {
    for (let j = 1; j < boxes.length; j++) {
      const i = boxes.slice(0, j).findIndex((box) => box.every((atoms, d) => atoms.some((atom) => boxes[j]![d]!.includes(atom))));
      if (i < 0) continue;
      this.report('table_overlap', this.rules[j]!.pointer, { first: this.rules[i]!.index, second: this.rules[j]!.index }, 'narrow one of them, or use hitPolicy first');
    }
  }

  /** Rules whose whole box the earlier rules cover; true when a search ran out of budget. */
  private unreachable(boxes: readonly (readonly number[])[][]): boolean {
    let truncated = false;
    for (let j = 1; j < boxes.length; j++) {
      const left = uncoveredPoint(boxes.slice(0, j), boxes[j]!);
      if (left === 'truncated') truncated = true;
      else if (left === undefined) this.report('table_rule_unreachable', this.rules[j]!.pointer, { rule: this.rules[j]!.index }, 'move it above the rules that hide it, or remove it');
    }
    return truncated;
  }

  private describe(domains: readonly Domain[], point: Point): string {
    return point.map((atom, d) => `${this.inputs[d]!.id} = ${domains[d]!.describe(atom)}`).join(', ');
  }
}

/** Whether a rule's value fits an output's declared type. */
function outputFits(type: string, value: unknown): boolean {
  switch (type) {
    case 'string':
    case 'date':
    case 'duration':
      return typeof value === 'string';
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'object':
      return isRecord(value);
    case 'array':
      return Array.isArray(value);
    default:
      return true;
  }
}

function mappings(value: unknown): Record<string, unknown>[] {
  return Array.isArray(value) ? value.filter(isRecord) : [];
}
