/**
 * The packages routes as both sides see them: which kinds the core plans itself from a package's files
 * (`/packages:plan`, `/packages:apply`), the file a package sends, and the answers (compat-core-packages §4.3,
 * §5.3, §6.3).
 */

/** Kinds the core plans and publishes from the package files, in the order apply publishes them; the installer applies the others. */
export const CORE_PLANNED_KINDS = ['TaskType', 'Agent', 'Calendar', 'Process', 'WorkRule', 'View'] as const;
export type CorePlannedKind = (typeof CORE_PLANNED_KINDS)[number];

/** One file of a package, as `/packages:plan`, `/packages:apply` and `/packages:test` receive it. */
export interface PackageFile {
  path: string;
  content: string;
}

export type PlanAction = 'create' | 'update' | 'rename' | 'restore' | 'retire' | 'unchanged';

/** A top-level member of an object's form that the plan changes (`path` is `/spec/<member>`). */
export interface PlanField {
  path: string;
  before: unknown;
  after: unknown;
  owner: 'package' | 'console';
  applies: boolean;
}

export interface PlanChange {
  kind: CorePlannedKind;
  key: string;
  action: PlanAction;
  renamedFrom: string | null;
  fields: PlanField[];
  /** TaskType: the active versions the apply deprecates. */
  deprecates: number[];
}

export interface PlanProcess {
  key: string;
  fromVersion: number | null;
  toVersion: number;
  behaviour: { replayed: number; diverged: number; instanceIds: string[] } | null;
  instances: { version: number; open: number; fate: 'pin' | 'migrate' | 'unaffected'; migrationRequired: boolean }[];
  deadlines: unknown[];
  deadlinesTotal: number;
}

export interface PlanOutside {
  kind: string;
  key: string;
  appliedBy: 'installer' | 'notification-service';
}

/** A finding of the core's checks of a package. */
export interface PackageProblem {
  code: string;
  severity: 'error' | 'warning';
  path: string;
  file: string | null;
  line: number | null;
  message: string;
  hint: string | null;
}

export interface PackagePlan {
  planHash: string;
  catalogEtag: string;
  package: { key: string | null; version: string | null };
  changes: PlanChange[];
  outside: PlanOutside[];
  processes: PlanProcess[];
  regulationCoverage: unknown[];
  problems: PackageProblem[];
  createdAt: string;
}

export interface PackageApplied {
  planHash: string;
  catalogEtag: string;
  applied: { kind: CorePlannedKind; key: string; action: PlanAction; version: number | null }[];
}

/** `status` of `/packages:test`: `invalid` when a problem is an error (then no test ran). */
export type PackageTestStatus = 'passed' | 'failed' | 'invalid';
