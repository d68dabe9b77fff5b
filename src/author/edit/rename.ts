/**
 * `edit rename`: a name changes and everything that names it follows.
 *
 * * `--file <process> --from <id> --to <id>` renames an element of a process (a step, a stage, a milestone,
 *   a decision table): its `id`, `decide.table`, `compensate`, `stage.<id>` / `milestone.<id>` in expressions,
 *   the steps the package's tests name (`complete.step`, `expect.tasks[].step`, `expect.sla` …) and its
 *   diagram coordinates in `.layout/<process>.json`. Instances running the published version keep their
 *   place through a `migrations` entry (`map: {old: new}`) to the next version — the entry of the version
 *   being prepared when there is one — unless `--no-migration`.
 * * `--package <dir> [--kind K] --from <key> --to <key>` renames an object: its `key`, its file when the file
 *   is named by the key, every reference in the package's objects, manifest and tests (by the fields that
 *   name an object of that kind), and for a Process or Calendar the manifest's `renames` entry, by which the
 *   core moves the published object to its new key — unless `--no-migration`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { isRecord } from '../../json/guards.js';
import { loadPackage, MANIFEST } from '../../load/package.js';
import { isObjectKind, type ObjectKind } from '../../model/kinds.js';
import type { Package } from '../../model/package.js';
import { Refusal } from '../../fs/refusal.js';
import type { FileChange } from './commit.js';
import { pathOf, processOf, type EditTarget } from './target.js';
import { YamlEdit, type Path } from './yaml-edit.js';

/** The files a rename changes: edits of YAML files, and whole-file changes (moves, diagram coordinates). */
export interface RenameChanges {
  edits: { path: string; edit: YamlEdit; to?: string }[];
  files: FileChange[];
}

export async function renameElement(target: EditTarget, from: string, to: string, migration: boolean): Promise<RenameChanges> {
  const model = processOf(target);
  const elements = model.elements.filter((element) => element.id === from);
  if (elements.length === 0) {
    throw new Refusal('unknown_element', `${target.shown}: no element '${from}' in the process`, { hint: `elements: ${[...new Set(model.elements.map((e) => e.id))].join(', ')}` });
  }
  if (model.elements.some((element) => element.id === to)) throw new Refusal('element_exists', `${target.shown}: id '${to}' is already taken — an element id is unique in a process`);
  const edit = target.edit;
  for (const element of elements) edit.replaceString([...pathOf(element.pointer), 'id'], to);
  const spec = edit.get(['spec']);
  walkStrings(spec, ['spec'], (value, path, context) => {
    if (path[1] === 'migrations') return;
    const named = (context.key === 'table' && context.enclosing === 'decide') || context.key === 'compensate';
    if (named && value === from) return edit.replaceString(path, to);
    const renamed = renameInExpression(value, from, to);
    if (renamed !== value) edit.replaceString(path, renamed);
  });
  if (migration && elements.some((element) => !element.table)) addMigration(edit, from, to);
  const processKey = String(edit.get(['key']));
  const pkg = await loadedPackage(target.packageDir);
  const changes: RenameChanges = { edits: [{ path: target.path, edit }], files: [] };
  for (const test of pkg.tests) {
    if (!isRecord(test.document.value) || test.document.value.process !== processKey) continue;
    const testEdit = new YamlEdit(test.file, readFileSync(join(pkg.dir, test.file), 'utf8'));
    walkStrings(testEdit.get([]), [], (value, path, context) => {
      if ((context.key === 'step' || context.key === 'task') && value === from) testEdit.replaceString(path, to);
    });
    renameSlaKeys(testEdit, from, to);
    changes.edits.push({ path: join(pkg.dir, test.file), edit: testEdit });
  }
  const layout = join(pkg.dir, '.layout', `${processKey}.json`);
  if (existsSync(layout)) {
    const layoutEdit = new YamlEdit(`.layout/${processKey}.json`, readFileSync(layout, 'utf8'));
    renameKeys(layoutEdit, layoutEdit.get([]), [], from, to);
    changes.edits.push({ path: layout, edit: layoutEdit });
  }
  return changes;
}

/**
 * Instances of the published version find the renamed element through `map`: the entry to the version being
 * prepared (its `to` is the file's version) takes the pair; without one the version goes up by one and a new
 * entry leads to it.
 */
function addMigration(edit: YamlEdit, from: string, to: string): void {
  const version = edit.get(['spec', 'version']);
  if (typeof version !== 'number') return; // never published under a version: nothing runs it
  const migrations = edit.get(['spec', 'migrations']);
  const list = Array.isArray(migrations) ? migrations : [];
  const index = list.findIndex((entry) => isRecord(entry) && entry.to === version);
  if (index < 0) {
    edit.set(['spec', 'version'], version + 1);
    edit.insert(['spec', 'migrations'], list.length, { from: version, to: version + 1, policy: 'migrate', map: { [from]: to } });
    return;
  }
  const map = (list[index] as Record<string, unknown>).map;
  const earlier = isRecord(map) ? Object.entries(map).filter(([, target]) => target === from) : [];
  // An element renamed twice before release: the old version's name now leads to the newest one.
  for (const [old] of earlier) edit.replaceString(['spec', 'migrations', index, 'map', old], to);
  if (earlier.length === 0) edit.set(['spec', 'migrations', index, 'map', from], to);
}

function renameSlaKeys(edit: YamlEdit, from: string, to: string): void {
  const steps = edit.get(['steps']);
  if (!Array.isArray(steps)) return;
  steps.forEach((step, index) => {
    const sla = isRecord(step) && isRecord(step.expect) ? step.expect.sla : undefined;
    if (isRecord(sla) && from in sla) edit.renameKey(['steps', index, 'expect', 'sla'], from, to);
  });
}

/** `stage.<id>` and `milestone.<id>` in a CEL expression (also `stage['<id>']`). */
function renameInExpression(text: string, from: string, to: string): string {
  const id = from.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&');
  return text
    .replace(new RegExp(`(?<![\\w.])(stage|milestone)\\.${id}(?![\\w-])`, 'g'), `$1.${to}`)
    .replace(new RegExp(`(?<![\\w.])(stage|milestone)\\[(['"])${id}\\2\\]`, 'g'), `$1[$2${to}$2]`);
}

/** Every mapping key `from` below `path` becomes `to` (the diagram coordinates of an element are under its id). */
function renameKeys(edit: YamlEdit, value: unknown, path: Path, from: string, to: string): void {
  if (Array.isArray(value)) value.forEach((item, index) => renameKeys(edit, item, [...path, index], from, to));
  if (!isRecord(value)) return;
  for (const [key, item] of Object.entries(value)) renameKeys(edit, item, [...path, key], from, to);
  if (from in value) edit.renameKey(path, from, to);
}

// --- objects -------------------------------------------------------------------------------------------------

/** How objects of a kind are named elsewhere: by fields (their values, or items of their lists). */
interface Naming {
  fields: readonly string[];
  /** `type` names the kind only inside these mappings (`ensureWork.type`, an artifact slot's `type`). */
  typeUnder?: readonly string[];
  /** `agent:<key>`, `role:<key>` in any string that is that whole text. */
  prefix?: string;
  /** Named as `key@version`. */
  versioned?: boolean;
  /** Mappings whose keys name objects of the kind (a test's `given.principals`: role → people). */
  keysOf?: readonly string[];
}

const NAMING: Partial<Record<ObjectKind, Naming>> = {
  TaskType: { fields: ['taskType', 'taskTypes'], typeUnder: ['ensureWork', 'tasks'] },
  Agent: { fields: ['agent'], prefix: 'agent:' },
  Role: { fields: ['role', 'roles', 'executorRoles', 'approverRole'], prefix: 'role:', keysOf: ['principals'] },
  Process: { fields: ['process'] },
  Calendar: { fields: ['calendar'] },
  Skill: { fields: ['skill'], versioned: true },
  WorkRule: { fields: ['rule'] },
  View: { fields: ['view'] },
  Component: { fields: ['component'] },
  ArtifactType: { fields: [], typeUnder: ['inputs', 'outputs'] },
  WorkspaceType: { fields: ['allowedChildTypes'] },
  KnowledgePack: { fields: ['knowledge', 'extends', 'packs'], versioned: true },
};

const ENVELOPE: ReadonlySet<string> = new Set(['apiVersion', 'kind', 'key']);

/** Kinds the core moves to a new key by the manifest's `renames` (other kinds are created anew). */
const MOVED_BY_RENAMES: ReadonlySet<ObjectKind> = new Set(['Process', 'Calendar']);

export async function renameObject(packageDir: string, kind: string | undefined, from: string, to: string, migration: boolean): Promise<RenameChanges> {
  if (kind !== undefined && !isObjectKind(kind)) throw new Refusal('unknown_kind', `--kind '${kind}' is not a kind of object`, { exitCode: 2 });
  const pkg = await loadedPackage(packageDir);
  const objects = pkg.objects.filter((object) => object.key === from && (kind === undefined || object.kind === kind));
  const kinds = [...new Set(objects.map((object) => object.kind))];
  if (kinds.length === 0) throw new Refusal('object_not_found', `no ${kind ?? 'object'} '${from}' in package ${pkg.key}`);
  if (kinds.length > 1) throw new Refusal('ambiguous_object', `'${from}' is the key of a ${kinds.join(' and a ')} in package ${pkg.key}`, { hint: `name the kind: --kind ${kinds[0]}`, exitCode: 2 });
  const renamed = kinds[0]!;
  if (pkg.objects.some((object) => object.kind === renamed && object.key === to)) throw new Refusal('object_exists', `${renamed} '${to}' already exists in package ${pkg.key}`);
  const changes: RenameChanges = { edits: [], files: [] };
  const naming = NAMING[renamed];
  const own = new Set(objects.map((object) => object.file));
  const files = [MANIFEST, ...pkg.objects.map((object) => object.file), ...pkg.tests.map((test) => test.file)];
  for (const file of files) {
    const path = join(pkg.dir, file);
    const edit = new YamlEdit(file, readFileSync(path, 'utf8'));
    if (own.has(file)) {
      edit.replaceString(['key'], to);
      if (renamed === 'KnowledgePack' && edit.get(['spec', 'name']) === from) edit.replaceString(['spec', 'name'], to);
    }
    if (naming) renameReferences(edit, naming, from, to);
    if (file === MANIFEST && migration && MOVED_BY_RENAMES.has(renamed)) {
      const renames = edit.get(['spec', 'renames']);
      edit.insert(['spec', 'renames'], Array.isArray(renames) ? renames.length : 0, { kind: renamed, from, to });
    }
    const moved = own.has(file) && basename(file) === `${from}.yaml` ? join(dirname(path), `${to}.yaml`) : undefined;
    changes.edits.push({ path, edit, ...(moved ? { to: moved } : {}) });
  }
  const layout = join(pkg.dir, '.layout', `${from}.json`);
  if (renamed === 'Process' && existsSync(layout)) {
    const text = readFileSync(layout, 'utf8');
    changes.files.push({ path: join(pkg.dir, '.layout', `${to}.json`), from: layout, before: text, text });
  }
  return changes;
}

/** Every string of the document (but its own envelope) that names the renamed object. */
function renameReferences(edit: YamlEdit, naming: Naming, from: string, to: string): void {
  walkStrings(edit.get([]), [], (value, path, context) => {
    if (path.length === 1 && ENVELOPE.has(String(path[0]))) return; // the file's own identity
    const renamed = renamedReference(value, context, naming, from, to);
    if (renamed !== undefined) edit.replaceString(path, renamed);
  });
  for (const field of naming.keysOf ?? []) renameKeysOf(edit, edit.get([]), [], field, from, to);
}

/** The key `from` of every mapping held by a key `field`. */
function renameKeysOf(edit: YamlEdit, value: unknown, path: Path, field: string, from: string, to: string): void {
  if (Array.isArray(value)) value.forEach((item, index) => renameKeysOf(edit, item, [...path, index], field, from, to));
  if (!isRecord(value)) return;
  for (const [key, item] of Object.entries(value)) {
    if (key === field && isRecord(item) && from in item) edit.renameKey([...path, key], from, to);
    else renameKeysOf(edit, item, [...path, key], field, from, to);
  }
}

/**
 * The object a string names by where it stands — `taskType: site-inspection`, `skill: fault.diagnose@1`,
 * `role:field-technician` — by the same table a rename follows; undefined for any other string.
 */
export function objectNamedBy(value: string, context: StringContext): { kind: ObjectKind; key: string } | undefined {
  for (const [kind, naming] of Object.entries(NAMING) as [ObjectKind, Naming][]) {
    if (naming.prefix && value.startsWith(naming.prefix) && value.length > naming.prefix.length) return { kind, key: value.slice(naming.prefix.length) };
    if (!namesByField(context, naming)) continue;
    const key = naming.versioned ? value.replace(/@[^@]*$/, '').replace(/^.*:/, '') : value;
    return { kind, key };
  }
  return undefined;
}

function namesByField(context: StringContext, naming: Naming): boolean {
  return (context.key !== undefined && naming.fields.includes(context.key)) ||
    (context.key === 'type' && context.enclosing !== undefined && (naming.typeUnder ?? []).includes(context.enclosing));
}

function renamedReference(value: string, context: StringContext, naming: Naming, from: string, to: string): string | undefined {
  if (naming.prefix && value === `${naming.prefix}${from}`) return `${naming.prefix}${to}`;
  if (!namesByField(context, naming)) return undefined;
  if (value === from) return to;
  if (naming.versioned && value.startsWith(`${from}@`)) return `${to}${value.slice(from.length)}`;
  if (naming.versioned && value.includes(':') && value.endsWith(`:${from}${value.slice(value.lastIndexOf('@'))}`)) {
    return value.replace(`:${from}@`, `:${to}@`); // tenant:name@N
  }
  return undefined;
}

/** Where a string stands: the key it is the value of (or the key of the list it is an item of), and the key of the mapping around. */
export interface StringContext {
  key?: string;
  enclosing?: string;
}

export function walkStrings(value: unknown, path: Path, visit: (value: string, path: Path, context: StringContext) => void, context: StringContext = {}): void {
  if (typeof value === 'string') return visit(value, path, context);
  if (Array.isArray(value)) {
    value.forEach((item, index) => walkStrings(item, [...path, index], visit, context));
    return;
  }
  if (!isRecord(value)) return;
  for (const [key, item] of Object.entries(value)) walkStrings(item, [...path, key], visit, { key, ...(context.key !== undefined ? { enclosing: context.key } : {}) });
}

/** The package, its files named relative to its directory. */
async function loadedPackage(dir: string): Promise<Package> {
  const { package: pkg, findings } = await loadPackage(dir, { cwd: dir });
  if (!pkg) throw new Refusal('package_not_found', `no package in ${dir}: ${findings[0]?.message ?? 'no package.yaml'}`);
  return pkg;
}
