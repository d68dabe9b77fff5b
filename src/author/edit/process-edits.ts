/**
 * Edits of a process file: a step into a stage (or into the block of a `do` / `try` step), a stage, a row of
 * a decision table, an event handler, a field of a human step's form. Each finds its place through the
 * process model (src/process), so the grammar of a process is read in one place only.
 */
import { isRecord } from '../../json/guards.js';
import { Refusal } from '../../fs/refusal.js';
import type { Block, ProcessModel } from '../../process/index.js';
import { mappingFragment, fragmentValue } from './fragment.js';
import { pathOf, processOf, refuseTakenId, type EditTarget } from './target.js';
import { pointerOf, type Path } from './yaml-edit.js';

/** Where a new item goes relative to the item with this id; at most one of the two. */
export interface Placement {
  after?: string;
  before?: string;
}

export interface AddStepRequest extends Placement {
  /** A stage id, or the id of a `do` or `try` step (its block). */
  in: string;
  /** A step (YAML text, `@file`, or the value); with `block`, a list of steps. */
  step: unknown;
  block?: boolean;
}

export function addStep(target: EditTarget, request: AddStepRequest, cwd: string): void {
  const model = processOf(target);
  const block = blockNamed(model, request.in, target.shown);
  const value = fragmentValue(request.step, '--step', cwd);
  const steps = request.block ? value : [value];
  if (!Array.isArray(steps) || steps.length === 0 || !steps.every(isRecord)) {
    throw new Refusal('invalid_fragment', request.block ? '--step with --block must be a list of steps' : '--step must be a mapping (id: …, human: …)', { exitCode: 2 });
  }
  const ids = new Set<string>();
  for (const step of steps) {
    const id = refuseTakenId(model, step.id, 'a step', target.shown);
    if (ids.has(id)) throw new Refusal('element_exists', `--step: id '${id}' is given twice`, { exitCode: 2 });
    ids.add(id);
  }
  // A block that ends by completing the case keeps its `complete` last: a step after it would never run.
  const ending = block.items.length > 0 && isCompleteStep(block.items[block.items.length - 1]) && !steps.some(isCompleteStep) ? 1 : 0;
  const index = placeIn(block.items, request, block.items.length - ending, 'step', target.shown);
  steps.forEach((step, offset) => target.edit.insert(pathOf(block.pointer), index + offset, step));
}

export interface AddStageRequest extends Placement {
  stage: unknown;
}

export function addStage(target: EditTarget, request: AddStageRequest, cwd: string): void {
  const model = processOf(target);
  const stage = mappingFragment(request.stage, '--stage', cwd);
  refuseTakenId(model, stage.id, 'a stage', target.shown);
  const stages = model.stages.map((s) => s.node);
  const index = placeIn(stages, request, stages.length, 'stage', target.shown);
  target.edit.insert(['spec', 'stages'], index, stage);
}

export interface AddRowRequest {
  table: string;
  row: unknown;
  /** 0-based; default: the end, before a closing catch-all row of a `first` table. */
  index?: number;
}

export function addDecisionRow(target: EditTarget, request: AddRowRequest, cwd: string): void {
  const model = processOf(target);
  const table = model.decisions.find((decision) => decision.id === request.table);
  if (!table) {
    const known = model.decisions.flatMap((decision) => (decision.id ? [decision.id] : []));
    throw new Refusal('unknown_decision_table', `${target.shown}: no decision table '${request.table}' in spec.decisions`, { hint: known.length > 0 ? `tables: ${known.join(', ')}` : 'the process has no decision tables' });
  }
  const row = mappingFragment(request.row, '--row', cwd);
  const rows = Array.isArray(table.node.rules) ? table.node.rules : [];
  // In a `first` table a row after the catch-all would never match: new rows go before it.
  const closing = table.node.hitPolicy === 'first' && rows.length > 0 && isCatchAll(rows[rows.length - 1]) && !isCatchAll(row) ? 1 : 0;
  const index = indexIn(rows.length, request.index, rows.length - closing);
  target.edit.insert([...pathOf(table.pointer), 'rules'], index, row);
}

export interface AddHandlerRequest {
  onEvent: unknown;
  index?: number;
}

/** An `onEvent` handler (`{on, do}`) of the process. */
export function addEventHandler(target: EditTarget, request: AddHandlerRequest, cwd: string): void {
  const model = processOf(target);
  const handler = mappingFragment(request.onEvent, '--on-event', cwd);
  if (!isRecord(handler.on) || !Array.isArray(handler.do)) throw new Refusal('invalid_fragment', '--on-event must be a handler: on: {observation: …} (or a core event), do: [steps]', { exitCode: 2 });
  for (const step of handler.do) if (isRecord(step)) refuseTakenId(model, step.id, 'a step', target.shown);
  target.edit.insert(['spec', 'onEvent'], indexIn(model.onEvent.length, request.index, model.onEvent.length), handler);
}

export interface AddFormFieldRequest {
  /** The id of a human step. */
  step: string;
  name: string;
  /** The field's JSON Schema. */
  schema: unknown;
  required?: boolean;
  label?: string;
}

export function addFormField(target: EditTarget, request: AddFormFieldRequest, cwd: string): void {
  const model = processOf(target);
  const step = model.step(request.step);
  if (!step) throw unknownStep(model, request.step, target.shown);
  if (step.kind !== 'human') throw new Refusal('not_a_human_step', `${target.shown}: step '${request.step}' is a ${step.kind} step; forms belong to human steps`);
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(request.name)) throw new Refusal('invalid_fragment', `--name '${request.name}' is not a field name (letters, digits, _)`, { exitCode: 2 });
  const schema = mappingFragment(request.schema, '--schema', cwd);
  const formPath: Path = [...pathOf(step.pointer), 'human', 'form'];
  const edit = target.edit;
  const form = edit.get(formPath);
  const uischema = isRecord(form) && isRecord(form.uischema) && Array.isArray(form.uischema.elements) ? form.uischema : undefined;
  const field = request.label !== undefined && !uischema ? { ...schema, title: request.label } : schema;
  if (!isRecord(form) || !isRecord(form.schema)) {
    edit.set(formPath, { ...(isRecord(form) ? form : {}), schema: { type: 'object', properties: { [request.name]: field }, ...(request.required ? { required: [request.name] } : {}) } });
    return;
  }
  const schemaPath = [...formPath, 'schema'];
  const properties = form.schema.properties;
  if (isRecord(properties) && request.name in properties) {
    throw new Refusal('field_exists', `${target.shown}: the form of step '${request.step}' already has a field '${request.name}'`, { hint: `change it with package-sdk edit set --path ${pointerOf(schemaPath)}/properties/${request.name}` });
  }
  edit.set([...schemaPath, 'properties', request.name], field);
  if (request.required) {
    const required = form.schema.required;
    if (Array.isArray(required)) edit.insert([...schemaPath, 'required'], required.length, request.name);
    else edit.set([...schemaPath, 'required'], [request.name]);
  }
  if (uischema && request.label !== undefined) {
    edit.insert([...formPath, 'uischema', 'elements'], (uischema.elements as unknown[]).length, { type: 'Control', scope: `#/properties/${request.name}`, label: request.label });
  }
}

/** The block `--in` names: a stage's steps, or the block a `do` or `try` step holds. */
function blockNamed(model: ProcessModel, name: string, shown: string): Block {
  const stage = model.stages.find((s) => s.id === name);
  if (stage) return stage.steps;
  const step = model.step(name);
  if (step && (step.kind === 'do' || step.kind === 'try') && step.blocks[0]) return step.blocks[0];
  const stages = model.stages.map((s) => s.id).filter(Boolean);
  throw new Refusal('unknown_stage', `${shown}: no stage '${name}'${step ? ` (step '${name}' is a ${step.kind} step, which holds no single block)` : ''}`, { hint: stages.length > 0 ? `stages: ${stages.join(', ')}` : 'the process has no stages' });
}

/** The index for a new item among `items` (mappings with `id`), by `--after` / `--before`, else `fallback`. */
function placeIn(items: readonly unknown[], placement: Placement, fallback: number, what: string, shown: string): number {
  if (placement.after !== undefined && placement.before !== undefined) throw new Refusal('usage', '--after and --before exclude each other', { exitCode: 2 });
  const anchor = placement.after ?? placement.before;
  if (anchor === undefined) return fallback;
  const index = items.findIndex((item) => isRecord(item) && item.id === anchor);
  if (index < 0) {
    const ids = items.flatMap((item) => (isRecord(item) && typeof item.id === 'string' ? [item.id] : []));
    throw new Refusal(`unknown_${what}`, `${shown}: no ${what} '${anchor}' here`, { hint: ids.length > 0 ? `${what}s here: ${ids.join(', ')}` : `there is no ${what} here yet` });
  }
  return placement.after !== undefined ? index + 1 : index;
}

function indexIn(length: number, index: number | undefined, fallback: number): number {
  if (index === undefined) return fallback;
  if (!Number.isInteger(index) || index < 0 || index > length) throw new Refusal('usage', `--index ${index} is outside 0..${length}`, { exitCode: 2 });
  return index;
}

function unknownStep(model: ProcessModel, id: string, shown: string): Refusal {
  return new Refusal('unknown_step', `${shown}: no step '${id}' in the process`, { hint: `steps: ${model.steps.map((s) => s.id).filter(Boolean).join(', ')}` });
}

function isCompleteStep(item: unknown): boolean {
  return isRecord(item) && 'complete' in item;
}

/** A row whose every condition is `-` (any value). */
function isCatchAll(row: unknown): boolean {
  return isRecord(row) && isRecord(row.when) && Object.values(row.when).every((cell) => cell === '-');
}
