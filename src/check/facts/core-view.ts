/**
 * An object as the core's static checks see it (compat-core-packages.md §3, compat-core-validators.md §0.1):
 * `${NAME}` replaced by the default the manifest gives it, and a whole-`${…}` `workspaceId` of a work rule or a
 * process taken for the workspace of the request. An object that still holds a `${NAME}` after that is skipped
 * by the core — its form depends on the installation's value — and so by `check`'s domain rules.
 */
import { isRecord } from '../../json/guards.js';
import { childPointer } from '../../json/pointer.js';
import type { PackageObject } from '../../model/package.js';
import { VARIABLE_PATTERN } from '../../model/variables.js';
import { VARIABLE_MARK } from '../../model/text-marks.js';
import type { InstallVariable } from '../../cel/index.js';

export type CoreView =
  | { spec: Record<string, unknown> }
  | { unresolved: { name: string; pointer: string } };

const WHOLE_VARIABLE = /^\$\{[^}]*\}$/;

/** The spec of `object` with the defaults of `variables` in place of their `${NAME}`, or the first `${NAME}` left. */
export function coreView(object: PackageObject, variables: Readonly<Record<string, InstallVariable>>): CoreView {
  if (!object.document.includes(VARIABLE_MARK)) return { spec: object.spec }; // most objects: nothing to put in
  let unresolved: { name: string; pointer: string } | undefined;
  const substitute = (value: unknown, pointer: string): unknown => {
    if (typeof value === 'string') {
      if (!value.includes('${')) return value;
      return value.replace(VARIABLE_PATTERN, (written, name: string) => {
        const fallback = variables[name]?.default;
        if (typeof fallback === 'string') return fallback;
        unresolved ??= { name, pointer };
        return written;
      });
    }
    if (Array.isArray(value)) return value.map((item, index) => substitute(item, childPointer(pointer, index)));
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substitute(item, childPointer(pointer, key))]));
    return value;
  };
  const spec = { ...object.spec };
  if ((object.kind === 'WorkRule' || object.kind === 'Process') && typeof spec.workspaceId === 'string' && WHOLE_VARIABLE.test(spec.workspaceId)) {
    delete spec.workspaceId; // the install variable of the workspace: the request's workspace stands for it
  }
  const substituted = substitute(spec, '/spec') as Record<string, unknown>;
  return unresolved ? { unresolved } : { spec: substituted };
}
