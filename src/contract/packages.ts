/**
 * The packages routes as both sides see them: which kinds the core plans itself from a package's files
 * (`/packages:plan`, `/packages:apply`), and the file a package sends.
 */

/** Kinds the core plans and publishes from the package files; the installer plans the others as catalog changes. */
export const CORE_PLANNED_KINDS = ['TaskType', 'Agent', 'Calendar', 'Process', 'WorkRule', 'View'] as const;
export type CorePlannedKind = (typeof CORE_PLANNED_KINDS)[number];

/** One file of a package, as `/packages:plan`, `/packages:apply` and `/packages:test` receive it. */
export interface PackageFile {
  path: string;
  content: string;
}
