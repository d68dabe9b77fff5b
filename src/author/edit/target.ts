/**
 * The file an edit works on: found, read, its package located (the nearest directory above it that holds
 * package.yaml), and its envelope read — what every operation needs before it changes anything.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { displayPath, MANIFEST } from '../../load/package.js';
import { Refusal } from '../../fs/refusal.js';
import { isRecord } from '../../json/guards.js';
import { pointerSegments } from '../../json/pointer.js';
import { processModel, type ProcessModel } from '../../process/index.js';
import { YamlEdit, type Path } from './yaml-edit.js';

export interface EditTarget {
  /** Absolute path. */
  path: string;
  /** As shown to the user. */
  shown: string;
  packageDir: string;
  edit: YamlEdit;
}

export async function openTarget(file: string, cwd: string): Promise<EditTarget> {
  const path = resolve(cwd, file);
  const shown = displayPath(cwd, path);
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Refusal('file_unreadable', `${shown}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}`, { exitCode: 2 });
  }
  return { path, shown, packageDir: packageDirOf(path, shown), edit: new YamlEdit(shown, text) };
}

/** The package a file belongs to: the nearest directory above it with package.yaml. */
export function packageDirOf(path: string, shown: string): string {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if (existsSync(join(dir, MANIFEST))) return dir;
    if (dirname(dir) === dir) throw new Refusal('package_not_found', `${shown} is in no package (no package.yaml above it)`, { hint: 'edit works on the files of a package' });
  }
}

/** The process of a Process file, refused for any other kind. */
export function processOf(target: EditTarget): ProcessModel {
  const kind = target.edit.get(['kind']);
  const spec = target.edit.get(['spec']);
  if (kind !== 'Process' || !isRecord(spec)) {
    throw new Refusal('not_a_process', `${target.shown} is ${typeof kind === 'string' ? `a ${kind}` : 'not an object'}, not a Process`, { hint: 'this operation edits process files (processes/*.yaml)' });
  }
  return processModel(spec);
}

/** The path of a JSON Pointer of the process model (`/spec/stages/0/steps`) in the document. */
export function pathOf(pointer: string): Path {
  return pointerSegments(pointer).map((part) => (/^\d+$/.test(part) ? Number(part) : part));
}

/** Refuses a new element whose id the process already has. */
export function refuseTakenId(model: ProcessModel, id: unknown, what: string, shown: string): string {
  if (typeof id !== 'string' || id === '') throw new Refusal('invalid_fragment', `${what} needs an id`, { exitCode: 2 });
  if (model.elements.some((element) => element.id === id)) {
    throw new Refusal('element_exists', `${shown}: id '${id}' is already taken — an element id is unique in a process`, { hint: 'choose another id, or rename the existing element (package-sdk edit rename)' });
  }
  return id;
}
