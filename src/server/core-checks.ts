/**
 * The core's own checks of a package's objects — its validators of each kind and its process checks — as
 * `check` implements them: `check` runs over the request's files and only the findings whose code a rule marks
 * `core: true` are kept (src/check/rule.ts); the SDK-level rules (variables, knowledge, the object schemas,
 * engines, requires) are `check`'s alone and the core never reports them.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { check } from '../check/index.js';
import { RULES } from '../check/rules/index.js';
import type { Rule } from '../check/rule.js';
import { pythonStr } from '../json/canonical.js';
import { isRecord } from '../json/guards.js';
import type { Finding } from '../model/finding.js';
import { VARIABLE_PATTERN } from '../model/variables.js';
import type { PackageFile } from '../contract/packages.js';
import { coreDigest } from '../json/digest.js';
import { BoundedCache } from '../json/bounded-cache.js';
import type { PackageSource } from './package-source.js';
import type { Problem } from './problems.js';

/** The codes the core reports too: those the rules mark `core: true`. */
export function coreCodes(rules: readonly Rule[] = RULES): ReadonlySet<string> {
  return new Set(rules.flatMap((rule) => Object.entries(rule.codes).filter(([, meta]) => meta.core === true).map(([code]) => code)));
}

export interface CoreCheckOptions {
  /**
   * `/packages:test` checks objects after the manifest's variable defaults are put in, and skips a TaskType,
   * WorkRule or Agent that still holds a `${…}` (its form depends on the value); plan and apply check the
   * files as sent.
   */
  defaults: boolean;
  /** The codes kept (default: the core-marked ones). */
  codes?: ReadonlySet<string>;
}

/** Kinds whose static check the core skips while a `${…}` is left in them. */
const SKIPPED_WITH_VARIABLES = new Set(['TaskType', 'WorkRule', 'Agent']);
/** Answers kept for file sets seen lately: a plan, the apply's re-plan and the next plan read the same files. */
const CACHE_SIZE = 16;
const cache = new BoundedCache<string, Promise<Problem[]>>(CACHE_SIZE);

/** The core-coded findings of `check` on the package's files, in the core's problem shape. */
export function coreFindings(files: readonly PackageFile[], source: PackageSource, options: CoreCheckOptions): Promise<Problem[]> {
  const codes = options.codes ?? coreCodes();
  if (codes.size === 0) return Promise.resolve([]);
  const sent = options.defaults ? withDefaults(files, source) : files;
  const key = coreDigest({ files: sent, codes: [...codes].sort(), defaults: options.defaults });
  let found = cache.get(key);
  if (!found) {
    found = checkFiles(sent, source, codes, options.defaults ? filesKeepingVariables(sent, source) : new Set());
    found.catch(() => cache.delete(key));
    cache.set(key, found);
  }
  return found;
}

async function checkFiles(files: readonly PackageFile[], source: PackageSource, codes: ReadonlySet<string>, skipped: ReadonlySet<string>): Promise<Problem[]> {
  const root = await mkdtemp(join(tmpdir(), 'package-sdk-core-'));
  // The directory is named by the package key, as a package checked out of git would be.
  const dir = join(root, source.key !== null && /^[a-z0-9][a-z0-9._-]*$/.test(source.key) ? source.key : 'package');
  try {
    for (const file of files) {
      const target = resolve(dir, file.path);
      if (!target.startsWith(dir + sep)) continue; // the request's paths are checked before: nothing leaves the package
      // A path that is also a directory of another file (`a.yaml` and `a.yaml/b.yaml`) cannot be written: only
      // the first is checked.
      await mkdir(dirname(target), { recursive: true }).then(() => writeFile(target, file.content)).catch(() => undefined);
    }
    const { report } = await check({ cwd: dir, paths: ['.'] });
    return [...report.errors, ...report.warnings, ...report.suppressed]
      .map((finding) => ({ finding, file: relative(dir, resolve(dir, finding.file)).split(sep).join('/') }))
      .filter(({ finding, file }) => codes.has(finding.code) && !skipped.has(file))
      .flatMap(({ finding, file }) => problemOf(finding, file));
  } finally {
    await rm(root, { recursive: true, force: true });
  }
}

/** A finding as the core's problem; a note says what was not checked, and the core has no such problems. */
function problemOf(finding: Finding, file: string): Problem[] {
  if (finding.severity === 'note') return [];
  return [{ code: finding.code, severity: finding.severity, path: finding.path, file, line: finding.line, message: finding.message, hint: finding.hint ?? null }];
}

/** The files with each `${NAME}` that has a default in the manifest replaced by it. */
function withDefaults(files: readonly PackageFile[], source: PackageSource): PackageFile[] {
  const values = variableDefaults(source);
  if (values.size === 0) return [...files];
  return files.map((file) => ({ path: file.path, content: file.content.replace(VARIABLE_PATTERN, (whole, name: string) => values.get(name) ?? whole) }));
}

/** `spec.variables.<NAME>.default` of the manifest, as text (the way the reference turns a value into text). */
function variableDefaults(source: PackageSource): Map<string, string> {
  const declared = source.manifest?.spec.variables;
  const values = new Map<string, string>();
  if (!isRecord(declared)) return values;
  for (const [name, declaration] of Object.entries(declared)) {
    if (!isRecord(declaration) || declaration.default === undefined || declaration.default === null) continue;
    values.set(name, pythonStr(declaration.default, source.manifest!.document.floats.has(`/spec/variables/${name}/default`)));
  }
  return values;
}

/** Files of TaskType, WorkRule and Agent objects that still hold a `${…}` once the defaults are in. */
function filesKeepingVariables(files: readonly PackageFile[], source: PackageSource): Set<string> {
  const kinds = new Map(source.objects.map((object) => [object.file, object.kind]));
  return new Set(files.filter((file) => SKIPPED_WITH_VARIABLES.has(kinds.get(file.path) ?? '') && /\$\{/.test(file.content)).map((file) => file.path));
}
