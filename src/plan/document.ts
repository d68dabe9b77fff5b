/**
 * The plan document `package-sdk.plan/v1` (compat-package-sdk-install §4.6): its shape, its seal
 * (`planHash` = digest of the document without that key) and its file form; and reading a plan file back
 * with every check that needs no core (§5.2 step 1).
 */
import { readFile } from 'node:fs/promises';
import { replaceFileSync } from '../fs/write.js';
import { prettyJson } from '../json/canonical.js';
import { digest } from '../json/digest.js';
import { Refusal } from '../fs/refusal.js';
import { parseJson } from '../load/json.js';
import { reduceSchemaErrors } from '../schema/errors.js';
import { validatorFor } from '../schema/validators.js';

export const PLAN_FORMAT = 'package-sdk.plan/v1';

export type Operation = 'create' | 'version' | 'patch' | 'deprecate' | 'enable' | 'disable' | 'register' | 'retire' | 'unchanged';

/** One change of an installer section: what happens to `kind/key`, and what the core held when planned. */
export interface Change {
  kind: string;
  key: string;
  operation: Operation;
  package?: string;
  /** Names of the fields that change (only when there are some). */
  fields?: string[];
  /** What the plan saw on the core; apply compares it again before writing. */
  expected?: unknown;
  version?: string | number;
  openInstances?: number;
  byVersion?: unknown[];
  after?: string[];
  detail: string;
}

/** Informative keys: not compared when apply rebuilds a section (§4.5 INFO_KEYS). */
export const INFO_KEYS = ['detail', 'openInstances', 'byVersion', 'current', 'after'] as const;

export interface EnableItem {
  workspace: string;
  packs: string[];
  strict: boolean;
  current: string[];
  expected: { configured: boolean; packs: string[]; strict: boolean };
}

export interface CorePlanField { path: string; before?: unknown; after?: unknown; owner?: 'package' | 'console'; applies?: boolean }
export interface CorePlanChange { kind: string; key: string; action: string; fields?: CorePlanField[]; deprecates?: number[]; renamedFrom?: string | null }
export interface CorePlanProcess { key: string; fromVersion: number | null; toVersion: number; instances?: { version: number; open: number; fate: string; migrationRequired?: boolean }[] }
export interface CorePlanProblem { code: string; severity?: string; message: string; file?: string | null; line?: number | null; path?: string; hint?: string | null }

/** The core's `/packages:plan` answer; kept verbatim in the plan. */
export interface CorePlan {
  planHash: string;
  changes?: CorePlanChange[];
  processes?: CorePlanProcess[];
  problems?: CorePlanProblem[];
  [field: string]: unknown;
}

export type Section =
  | { kind: 'catalog'; changes: Change[] }
  | { kind: 'core'; package: string; planHash: string; plan: CorePlan; replayLimit: number; workspaceId?: string }
  | { kind: 'knowledge'; register: Change[]; enable: EnableItem[] }
  | { kind: 'notification-rules'; changes: Change[] }
  | { kind: 'retire'; items: Change[] };

export type CoreSection = Extract<Section, { kind: 'core' }>;

export interface PlanDocument {
  format: typeof PLAN_FORMAT;
  server: string;
  engines: Record<string, string>;
  createdAt: string;
  installation?: string;
  install: string;
  lockHash: string;
  variablesHash: string;
  overwriteConsole: boolean;
  sections: Section[];
  planHash: string;
}

/** A document with the pointers of its integral floats (from core answers), which its hash keeps. */
export interface SealedPlan {
  document: PlanDocument;
  floats: ReadonlySet<string>;
}

/** `planHash` over everything else, in the reference's key order. */
export function seal(unsealed: Omit<PlanDocument, 'planHash'>, floats: ReadonlySet<string>): SealedPlan {
  return { document: { ...unsealed, planHash: planHashOf(unsealed, floats) }, floats };
}

export function planHashOf(document: object, floats: ReadonlySet<string>): string {
  const { planHash: _ignored, ...rest } = document as { planHash?: unknown };
  return digest(rest, floats);
}

/** UTC now as the reference writes it: `2026-09-30T10:00:00+00:00`. */
export function createdAtNow(date = new Date()): string {
  return `${date.toISOString().slice(0, 19)}+00:00`;
}

/**
 * Writes through a temporary file and a rename: a plan file is whole or absent. In one synchronous step: each
 * step of an asynchronous write queued on the thread pool cost more than writing the plan of a large package.
 */
export async function writePlanFile(path: string, plan: SealedPlan): Promise<void> {
  try {
    replaceFileSync(path, prettyJson(plan.document, plan.floats), { makeDirs: false });
  } catch (error) {
    throw new Refusal('plan_not_written', `${path}: the plan cannot be written: ${(error as Error).message}`, { hint: 'check --out', exitCode: 2 });
  }
}

const SECTION_ORDER = /^catalog(,core)*,knowledge,notification-rules,retire$/;

/**
 * Reads a plan file and verifies what it can alone: JSON, format, schema, section order, and that its
 * `planHash` is still the hash of the rest (any edit → `plan_modified`).
 */
export async function readPlanFile(path: string): Promise<SealedPlan> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new Refusal('plan_invalid', `${path}: cannot be read: ${(error as Error).message}`, { exitCode: 2 });
  }
  const { document, findings } = parseJson(text, path);
  if (!document) throw new Refusal('plan_invalid', `${path}: not a plan file: ${findings[0]?.message ?? 'not JSON'} (line ${findings[0]?.line ?? 1})`);
  const value = document.value as Partial<PlanDocument> | null;
  if (value === null || typeof value !== 'object' || Array.isArray(value) || value.format !== PLAN_FORMAT) {
    throw new Refusal('plan_invalid', `${path}: not a ${PLAN_FORMAT} plan`);
  }
  const problem = await planSchemaProblem(value);
  if (problem) throw new Refusal('plan_invalid', `${path}: not a ${PLAN_FORMAT} plan: ${problem}`);
  const kinds = (value.sections ?? []).map((section) => section.kind);
  if (!SECTION_ORDER.test(kinds.join(','))) {
    throw new Refusal('plan_invalid', `${path}: plan sections [${kinds.join(', ')}] — expected catalog, core, knowledge, ` +
      'notification-rules, retire in this order (core — one per package with processes)');
  }
  if (planHashOf(value, document.floats) !== value.planHash) {
    throw new Refusal('plan_modified', `${path}: the plan was edited after it was built (planHash does not match)`, { hint: 'build the plan again: package-sdk plan … --out' });
  }
  return { document: { overwriteConsole: false, ...value } as PlanDocument, floats: document.floats };
}

/** The first problem of a document against `schema/v1/plan.schema.json`, or undefined. */
export async function planSchemaProblem(document: unknown): Promise<string | undefined> {
  const validate = await validatorFor('plan');
  if (validate(document)) return undefined;
  const [first] = reduceSchemaErrors(validate.errors ?? []);
  return first ? `${first.pointer || '(root)'}: ${first.message}` : 'does not match the schema';
}
