/**
 * The `core` sections (compat-package-sdk-install §4.5 "core", §5.3): a package with processes, calendars
 * or screens is planned by the core itself — its YAML and JSON files go to `POST /packages:plan`, and the
 * answer, sealed by the core's own `planHash`, is kept verbatim in the plan. Apply sends the same files
 * with that hash to `/packages:apply`; the core refuses (409 `plan_stale`) when its state moved.
 */
import { readdirSync, readFileSync, statSync, type Stats } from 'node:fs';
import { join } from 'node:path';
import { activeParseCache } from '../load/parse-cache.js';
import { namesInOrder } from '../load/package.js';
import type { Package } from '../model/package.js';
import type { CoreClient, CoreAnswer } from '../client/client.js';
import type { CorePlan, CoreSection } from './document.js';
import { Refusal } from '../fs/refusal.js';
import { substitute } from './variables.js';
import type { PackageFile } from '../contract/packages.js';

const CORE_PACKAGE_KINDS = new Set(['Process', 'Calendar', 'View', 'Component']);

export function isCorePackage(pkg: Package): boolean {
  return pkg.objects.some((object) => CORE_PACKAGE_KINDS.has(object.kind));
}


/**
 * What the core reads of a package: `.yaml`, `.yml` and `.json` files, none under a dot path, none of a
 * KnowledgePack (the knowledge section registers those), `${VAR}` in place, ordered by path parts (each folder
 * walked in the order of its names, `namesInOrder`). Read synchronously: queueing each step of a thousand small
 * reads on the thread pool cost more than reading.
 */
export async function packageFiles(pkg: Package, values: Readonly<Record<string, string>>): Promise<PackageFile[]> {
  const packs = pkg.objects.filter((object) => object.kind === 'KnowledgePack').map((object) => object.file);
  const isPack = (inPackage: string): boolean => packs.some((file) => file === inPackage || file.endsWith(`/${inPackage}`));
  const found: { name: string; path: string }[] = [];
  const walk = (dir: string, prefix: string): void => {
    const { names, folders, odd } = namesInOrder(readdirSync(dir, { withFileTypes: true }));
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (name.startsWith('.')) continue;
      const path = join(dir, name);
      const inPackage = `${prefix}${name}`;
      // A symbolic link is read when it points at a file; a folder it points at is not walked.
      if (folders.has(i)) walk(path, `${inPackage}/`);
      else if ((!odd.has(name) || linkTarget(path)?.isFile()) && /\.(ya?ml|json)$/.test(name) && !isPack(inPackage)) found.push({ name: inPackage, path });
    }
  };
  walk(pkg.dir, '');
  return found.map(({ name, path }) => {
    // The check loaded these files a moment ago: the index holds their texts while their stats are the same.
    return { path: name, content: substitute(activeParseCache()?.writtenText(path) ?? readFileSync(path, 'utf8'), values, `${pkg.key}/${name}`) };
  });
}

/** What a symbolic link points at; undefined when it dangles or cannot be followed. */
function linkTarget(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

export interface CorePlanRequest {
  files: PackageFile[];
  replayLimit: number;
  workspaceId?: string;
  overwriteConsole: boolean;
}

/** `POST /packages:plan`; the flag is sent only when true, as the reference does (it is part of the core's hash). */
export async function requestCorePlan(client: CoreClient, pkg: Package, request: CorePlanRequest): Promise<CoreAnswer<CorePlan>> {
  const answer = await client.call<CorePlan>('POST', '/api/v1/packages:plan', { body: {
    package: { files: request.files }, replayLimit: request.replayLimit,
    ...(request.workspaceId !== undefined ? { workspaceId: request.workspaceId } : {}),
    ...(request.overwriteConsole ? { overwriteConsole: true } : {}),
  } });
  if (!answer.body.planHash) throw new Refusal('core_rejected', `the core returned no planHash for package ${pkg.key} — nothing to apply`);
  return answer;
}

/** The section as the plan keeps it (key order as the reference writes it). */
export function coreSection(pkg: Package, plan: CorePlan, request: CorePlanRequest): CoreSection {
  return { kind: 'core', package: pkg.key, planHash: plan.planHash, plan, replayLimit: request.replayLimit,
    ...(request.workspaceId !== undefined ? { workspaceId: request.workspaceId } : {}) };
}

/** Problems that forbid saving the plan: errors (or problems without a severity) and instances that need a migration. */
export function blockingProblems(section: CoreSection): string[] {
  const problems = (section.plan.problems ?? [])
    .filter((problem) => problem.severity === undefined || problem.severity === 'error')
    .map((problem) => `${section.package}: ${problem.file ? `${problem.file}${problem.line ? `:${problem.line}` : ''}: ` : ''}${problem.code}: ${problem.message}`);
  for (const process of section.plan.processes ?? []) {
    for (const instance of process.instances ?? []) {
      if (instance.migrationRequired) {
        problems.push(`${section.package}: migration_required: Process/${process.key} v${instance.version} has ${instance.open} open instances that need a migration`);
      }
    }
  }
  return problems;
}
