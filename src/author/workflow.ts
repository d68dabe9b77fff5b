/**
 * `package-sdk workflow [DIR] [--check]`: the CI workflow of a repository of packages, written from what the
 * repository holds — its packages (`packages/*`, or DIR itself when it is a package) and its installations
 * (every `*.yaml` of kind Installation under DIR, outside the packages) — so that it stays true as packages and
 * installations are added. `--check` writes nothing and says whether the file is current (CI).
 */
import { existsSync, readFileSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, relative, resolve, sep } from 'node:path';
import { parse } from 'yaml';
import { replaceFile } from '../fs/write.js';
import { displayPath } from '../load/package.js';
import { githubWorkflow, packageWorkflowPath, repositoryWorkflow, WORKFLOW_PATH, type RepositoryLayout } from './ci.js';
import { repositoryRoot } from './repository.js';
import { isRecord } from '../json/guards.js';
import { Refusal } from '../fs/refusal.js';

export interface WorkflowOptions {
  dir?: string;
  /** Compare only; write nothing. */
  check?: boolean;
  cwd?: string;
}

/** What `workflow --json` prints. */
export interface WorkflowResult {
  file: string;
  /** True when the file already was what the layout asks for. */
  fresh: boolean;
  written: boolean;
  packages: string[];
  installations: string[];
}

export async function writeWorkflow(options: WorkflowOptions = {}): Promise<WorkflowResult> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.dir ?? '.');
  const layout = await layoutOf(dir);
  const home = layout.package !== undefined ? repositoryRoot(dir) : dir;
  const text = layout.package !== undefined ? githubWorkflow({ key: layout.package, path: relative(home, dir).split(sep).join('/') }) : repositoryWorkflow(layout);
  const path = join(home, layout.package !== undefined ? packageWorkflowPath(layout.package) : WORKFLOW_PATH);
  const fresh = existsSync(path) && readFileSync(path, 'utf8') === text;
  const result: WorkflowResult = { file: displayPath(cwd, path), fresh, written: false, packages: layout.packages, installations: layout.installations };
  if (!fresh && !options.check) {
    await replaceFile(path, text);
    result.written = true;
  }
  return result;
}

/** The packages and installations of the repository in `dir`. */
async function layoutOf(dir: string): Promise<RepositoryLayout & { package?: string }> {
  if (existsSync(join(dir, 'package.yaml'))) return { package: basename(dir), packages: [basename(dir)], installations: [] };
  const packagesDir = join(dir, 'packages');
  const packages = existsSync(packagesDir)
    ? (await readdir(packagesDir, { withFileTypes: true })).filter((entry) => entry.isDirectory() && existsSync(join(packagesDir, entry.name, 'package.yaml'))).map((entry) => entry.name).sort()
    : [];
  const installations: string[] = [];
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const path = join(entry.parentPath, entry.name);
    const inside = relative(dir, path).split(sep);
    if (!entry.isFile() || !/\.ya?ml$/.test(entry.name) || inside.some((part) => part.startsWith('.') || part === 'node_modules') || inside[0] === 'packages') continue;
    if (isInstallation(path)) installations.push(inside.join('/'));
  }
  installations.sort();
  if (packages.length === 0 && installations.length === 0) {
    throw new Refusal('nothing_to_build', `${dir} holds no package (packages/*/package.yaml) and no installation`, { hint: 'run workflow in the root of a repository of packages, or in a package' });
  }
  return { packages, installations };
}

function isInstallation(path: string): boolean {
  try {
    const value = parse(readFileSync(path, 'utf8')) as unknown;
    return isRecord(value) && value.kind === 'Installation' && value.apiVersion === 'taimen.ai/v1';
  } catch {
    return false; // not YAML: check reports it, the workflow does not install it
  }
}
