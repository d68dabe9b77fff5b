import { withOverlay, type Overlay } from '../load/overlay.js';
import type { SchemaOwnership } from '../load/stage-one.js';
import { loadTargets, type TargetOptions } from '../load/targets.js';
import { checkReport, type CheckReport } from '../model/check-report.js';
import type { Workspace } from '../model/workspace.js';
import { RULES } from './rules/index.js';
import { runRules } from './rule.js';
import { Recall, type ObjectRuns, type RuleMemo, type RuleMemory } from './rule-memo.js';

export type { CheckReport } from '../model/check-report.js';

export interface CheckOptions extends TargetOptions {
  /** Texts checked in place of the files they name (absolute paths): an editor's unsaved buffers. */
  overlay?: Overlay;
  /** The object rules' runs of the last check of the same targets: those that still stand are not run again. */
  memory?: RuleMemory;
}

/** The parts whose schema findings a rule reports in its own codes (View, Component; settings, version ranges). */
const OWNERSHIP: SchemaOwnership = {
  kinds: new Set(RULES.flatMap((rule) => rule.ownsSchemaOf ?? [])),
  manifestFields: RULES.flatMap((rule) => rule.ownsManifestFields ?? []),
};

/** The result of a check with the loaded workspace, for renderers that draw code frames. */
export interface CheckResult {
  report: CheckReport;
  workspace: Workspace;
  /** The object rules' runs, for the next check of the same targets (when `memory` was given). */
  memo?: RuleMemo;
  /** Whether `memo` holds what the memo given in `memory` held: the one stored stands for it. */
  memoAsBefore?: boolean;
  /** The runs of object rules, and how many were taken from `memory` (when it was given). */
  objectRuns?: ObjectRuns;
}

/**
 * One pass down the floors: loading ends with every document validated against its schema (stage 1), the rules
 * run over the documents that passed (stage 2), and the report orders and counts what both found.
 */
export async function check(options: CheckOptions = {}): Promise<CheckResult> {
  const workspace = await withOverlay(options.overlay, () => loadTargets(options, OWNERSHIP));
  const { findings, invalid, deferred } = workspace.stageOne;
  const recall = options.memory && new Recall(workspace, invalid, options.memory);
  const ruleFindings = runRules(workspace, RULES, invalid, deferred, recall);
  const report = checkReport(workspace, [...workspace.findings, ...findings, ...ruleFindings]);
  return { workspace, report, ...(recall ? { memo: recall.made(), memoAsBefore: recall.asBefore(), objectRuns: recall.counted() } : {}) };
}
