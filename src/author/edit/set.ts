/**
 * `edit set --path <pointer> --value <yaml>`: one value of an object file, anywhere in it, by JSON Pointer.
 * The envelope's `apiVersion` and `kind` are not values to set, and a key is changed by `rename`, which
 * carries the references along.
 */
import { pointerSegments } from '../../json/pointer.js';
import { Refusal } from '../../fs/refusal.js';
import { fragmentValue } from './fragment.js';
import type { EditTarget } from './target.js';
import { pointerOf, type Path } from './yaml-edit.js';

export interface SetRequest {
  /** JSON Pointer (`/spec/displayName`); `-` as the last token appends to a list. */
  path: string;
  /** YAML text (or `@file`, or the value itself). */
  value: unknown;
  /** Take `value` as a string, as it is. */
  string?: boolean;
}

const FIXED: Record<string, string> = {
  '/apiVersion': 'the apiVersion of a package file is taimen.ai/v1',
  '/kind': 'the kind of an object is what it is: add a new object with package-sdk add instead',
  '/key': 'a key is changed with package-sdk edit rename, which updates every reference to it',
};

export function setValue(target: EditTarget, request: SetRequest, cwd: string): void {
  if (request.path === '' || !request.path.startsWith('/')) throw new Refusal('usage', `--path '${request.path}' is not a JSON Pointer below the document (/spec/…)`, { exitCode: 2 });
  const fixed = FIXED[request.path];
  if (fixed) throw new Refusal('edit_refused', `${target.shown}: ${request.path} is not set by edit set — ${fixed}`);
  const value = request.string ? String(request.value) : fragmentValue(request.value, '--value', cwd);
  const path = documentPath(target, pointerSegments(request.path));
  const last = path[path.length - 1];
  if (last === '-') target.edit.insert(path.slice(0, -1), (target.edit.get(path.slice(0, -1)) as unknown[] | undefined)?.length ?? 0, value);
  else target.edit.set(path, value);
}

/** The tokens of a pointer as a document path: indexes into lists are numbers (an index past the end is refused). */
function documentPath(target: EditTarget, tokens: readonly string[]): Path {
  const path: (string | number)[] = [];
  tokens.forEach((token, position) => {
    const here = target.edit.get(path);
    if (Array.isArray(here)) {
      if (token === '-' && position === tokens.length - 1) path.push('-');
      else if (/^(0|[1-9]\d*)$/.test(token) && Number(token) < here.length) path.push(Number(token));
      else throw new Refusal('usage', `--path: '${token}' is not an index of the list at ${pointerText(path)} (0..${here.length - 1}, or - to append)`, { exitCode: 2 });
    } else if (here !== undefined && (here === null || typeof here !== 'object') && position < tokens.length) {
      throw new Refusal('usage', `--path: ${pointerText(path)} is a ${here === null ? 'null' : typeof here}, not a mapping or a list`, { exitCode: 2 });
    } else {
      path.push(token);
    }
  });
  return path;
}

function pointerText(path: Path): string {
  return path.length === 0 ? '(the document)' : pointerOf(path);
}
