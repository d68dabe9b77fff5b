/**
 * What every section builder shares: the core, the packages with their variable values, and the way a
 * planned change carries the write that apply performs for it. Plan keeps the changes; apply rebuilds the
 * same steps, compares their changes with the plan, then runs their writes.
 */
import type { CoreClient } from '../client/client.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import { pythonStr, sameJson } from '../json/canonical.js';
import type { Change } from './document.js';
import { substituteValue, type Variables } from './variables.js';

export interface SectionContext {
  client: CoreClient;
  workspace: Workspace;
  variables: Variables;
  /** Keys of the packages planned by the core (they hold a Process, Calendar, View or Component). */
  corePackages: ReadonlySet<string>;
  /** Notification service, when the installation has notification rules. */
  notifications?: CoreClient;
  warn(message: string): void;
  /** Progress of apply: one line per write done. */
  log(message: string): void;
}

/** A change and, for apply, the write that makes it happen. */
export interface Step {
  change: Change;
  write?: () => Promise<void>;
}

/** `spec` with the package's `${VAR}` values in place. */
export function specOf(ctx: SectionContext, object: PackageObject): Record<string, unknown> {
  return substituteValue(object.spec, ctx.variables.valuesOf.get(object.package) ?? {}, object.file);
}

/** `spec.version` as the reference turns it into text (`str(...)`): `1` → "1", `1.0` → "1.0". */
export function versionText(object: PackageObject, spec: Record<string, unknown>, fallback?: string): string {
  if (spec.version === undefined && fallback !== undefined) return fallback;
  return pythonStr(spec.version, object.document.floats.has('/spec/version'));
}

/** Field names whose desired value differs from the core's. */
export function changedFields(desired: Record<string, unknown>, actual: Record<string, unknown>): string[] {
  return Object.keys(desired).filter((field) => !sameJson(desired[field], actual[field]));
}

export function pick(source: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(fields.filter((field) => field in source).map((field) => [field, source[field]]));
}

/** Every key of `wanted` is in `actual` with an equal value, recursively (objects only). */
export function isSubset(wanted: unknown, actual: unknown): boolean {
  if (wanted === null || typeof wanted !== 'object' || Array.isArray(wanted)) return sameJson(wanted, actual);
  if (actual === null || typeof actual !== 'object' || Array.isArray(actual)) return false;
  return Object.entries(wanted).every(([key, value]) => isSubset(value, (actual as Record<string, unknown>)[key]));
}
