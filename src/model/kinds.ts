/**
 * The kinds a package may hold (compat-package-sdk-check.md §1.2). Discovery is by `kind`, not by folder.
 */

/** Catalog kinds in apply order: what is referenced comes first. */
export const CATALOG_KINDS = [
  'KnowledgePack',
  'WorkspaceType',
  'Capability',
  'ConnectionType',
  'Role',
  'Skill',
  'ArtifactType',
  'TaskType',
  'Agent',
  'ProjectTemplate',
  'Calendar',
  'Process',
  'WorkRule',
  'NotificationRule',
] as const;

/** Screen kinds, planned by the core. */
export const SCREEN_KINDS = ['View', 'Component'] as const;

export type CatalogKind = (typeof CATALOG_KINDS)[number];
export type ScreenKind = (typeof SCREEN_KINDS)[number];
/** A kind that an object file of a package may have. */
export type ObjectKind = CatalogKind | ScreenKind;

/** Every kind an object file of a package may have, in apply order. */
export const OBJECT_KINDS: readonly ObjectKind[] = [...CATALOG_KINDS, ...SCREEN_KINDS];

const OBJECT_KIND_SET: ReadonlySet<string> = new Set(OBJECT_KINDS);

export function isObjectKind(kind: unknown): kind is ObjectKind {
  return typeof kind === 'string' && OBJECT_KIND_SET.has(kind);
}

/** Kinds whose identity includes the version: several versions of one key may coexist. */
export const VERSIONED_KINDS: ReadonlySet<ObjectKind> = new Set<ObjectKind>(['Skill', 'ConnectionType']);

/** The identity of an object within its kind: `key`, or `key@version` for versioned kinds. */
export function objectId(kind: ObjectKind, key: string, version: string | undefined): string {
  return VERSIONED_KINDS.has(kind) && version !== undefined ? `${key}@${version}` : key;
}

/** `Kind/id`: how messages and duplicate detection name an object. */
export function objectRef(kind: ObjectKind, id: string): string {
  return `${kind}/${id}`;
}
