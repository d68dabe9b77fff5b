/**
 * Package settings as declared in `package.yaml` `spec.settings.schema` (compat-package-sdk-check.md §2.8): the
 * fields an administrator sets in the console and that processes, views and work rules read as
 * `settings.<path>`. The settings rules check the declaration; the CEL and rule checks resolve reads here.
 */
import { childPointer } from '../json/pointer.js';
import type { Package } from '../model/package.js';
import { isRecord } from '../json/guards.js';

export const SETTINGS_TYPES = ['object', 'string', 'integer', 'number', 'boolean', 'array'] as const;
export type SettingsType = (typeof SETTINGS_TYPES)[number];

/** One field of the declaration as written (the schema node may hold anything: read it defensively). */
export interface SettingsField {
  /** Its `type` when it is one of the settings types. */
  type?: SettingsType;
  schema: Record<string, unknown>;
}

/** A declared property with where it sits: the walk of every field a label, a default or a Control is owed to. */
export interface DeclaredField extends SettingsField {
  /** Property names from the root: `['intake', 'mailbox']`. */
  path: string[];
  /** JSON Pointer of the field's schema in package.yaml. */
  pointer: string;
}

export const SETTINGS_POINTER = '/spec/settings';
export const SETTINGS_SCHEMA_POINTER = '/spec/settings/schema';

/** `spec.settings` of the package's manifest, when it declares any. */
export function settingsOf(pkg: Package): unknown {
  const spec = (pkg.manifest.value as { spec?: unknown } | null)?.spec;
  return isRecord(spec) ? spec.settings : undefined;
}

/** The root schema of the package settings, when the declaration has one that is a mapping. */
export function settingsSchemaOf(pkg: Package): Record<string, unknown> | undefined {
  const settings = settingsOf(pkg);
  return isRecord(settings) && isRecord(settings.schema) ? settings.schema : undefined;
}

/**
 * The settings field a read `settings.<path…>` reaches, or undefined when the package declares no such field.
 * A numeric segment steps into the items of an array. The empty path is the root.
 */
export function settingsFieldAt(pkg: Package, path: readonly string[]): SettingsField | undefined {
  const root = settingsSchemaOf(pkg);
  return root === undefined ? undefined : fieldAt(root, path);
}

/** `settingsFieldAt` on a root schema. */
export function fieldAt(root: Record<string, unknown>, path: readonly string[]): SettingsField | undefined {
  let current: SettingsField = fieldOf(root);
  for (const segment of path) {
    const next = childField(current, segment);
    if (next === undefined) return undefined;
    current = next;
  }
  return current;
}

/** The names a read could have meant at the place where `path` stops resolving (for did-you-mean). */
export function siblingNames(root: Record<string, unknown>, path: readonly string[]): string[] {
  const parent = fieldAt(root, path.slice(0, -1));
  return parent !== undefined && isRecord(parent.schema.properties) ? Object.keys(parent.schema.properties) : [];
}

/** Every property of the declaration, parents before children (array items are not properties). */
export function declaredFields(root: Record<string, unknown>): DeclaredField[] {
  const fields: DeclaredField[] = [];
  const visit = (schema: Record<string, unknown>, pointer: string, path: string[]): void => {
    const properties = schema.properties;
    if (!isRecord(properties)) return;
    for (const [name, node] of Object.entries(properties)) {
      if (!isRecord(node)) continue;
      const field: DeclaredField = { ...fieldOf(node), path: [...path, name], pointer: childPointer(childPointer(pointer, 'properties'), name) };
      fields.push(field);
      visit(node, field.pointer, field.path);
    }
  };
  visit(root, SETTINGS_SCHEMA_POINTER, []);
  return fields;
}

export function fieldOf(schema: Record<string, unknown>): SettingsField {
  const type = schema.type;
  return typeof type === 'string' && (SETTINGS_TYPES as readonly string[]).includes(type) ? { type: type as SettingsType, schema } : { schema };
}

function childField(field: SettingsField, segment: string): SettingsField | undefined {
  if (field.type === 'array' && /^[0-9]+$/.test(segment)) return isRecord(field.schema.items) ? fieldOf(field.schema.items) : undefined;
  const properties = field.schema.properties;
  if (!isRecord(properties) || !Object.hasOwn(properties, segment)) return undefined;
  const node = properties[segment];
  return isRecord(node) ? fieldOf(node) : undefined;
}
