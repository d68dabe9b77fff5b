/**
 * What one run loads (like the reference `check`, compat-package-sdk-check.md §1.4): an installation
 * (`--install`), packages by directory or key (`--package`, requires found next to them), single files,
 * or — with no target — every `./packages/*\/package.yaml`, or the current directory when it is a package.
 *
 * | code              | severity | when                                                                     |
 * |-------------------|----------|--------------------------------------------------------------------------|
 * | package_not_found | error    | no target given and no package here; a `--package` key found nowhere     |
 * | (all load codes)  |          | see yaml.ts, json.ts, source.ts, package.ts, package-set.ts, installation.ts |
 */
import { readdir, realpath, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import type { GitSourceResolver } from './source-resolver.js';
import type { Finding } from '../model/finding.js';
import type { Installation } from '../model/installation.js';
import { Workspace, type LooseFile } from '../model/workspace.js';
import { addInstallationPackages, explicitPackageDirs, loadInstallationFile } from './installation.js';
import { loadError } from './load-finding.js';
import { displayPath, MANIFEST } from './package.js';
import { PackageSet } from './package-set.js';
import { stageOne, type SchemaOwnership } from './stage-one.js';
import { isFile, loadSourceFile } from './source.js';
import { isRecord } from '../json/guards.js';

export interface TargetOptions {
  /** Directory the targets are relative to (default: the process's cwd). */
  cwd?: string;
  /** An Installation file. */
  install?: string;
  /** Package directories (holding package.yaml) or package keys, found in ./packages. */
  packages?: readonly string[];
  /** Single files (objects, tests, any JSON or YAML document), or package directories. */
  paths?: readonly string[];
  /** How git entries of the installation become directories (default: src/lock's resolver). */
  resolveGitSource?: GitSourceResolver;
}

/**
 * Loads the targets into a package graph; every problem is a finding in `workspace.findings`. With `validate`,
 * stage 1 of `check` too (`workspace.stageOne`).
 */
export async function loadTargets(options: TargetOptions = {}, validate?: SchemaOwnership): Promise<Workspace> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const findings: Finding[] = [];
  const files: LooseFile[] = [];
  let installation: Installation | undefined;
  let set = new PackageSet(cwd);
  if (options.install !== undefined) {
    const installOptions = { cwd, ...(options.resolveGitSource ? { resolveGitSource: options.resolveGitSource } : {}) };
    const loaded = await loadInstallationFile(options.install, installOptions);
    findings.push(...loaded.findings);
    installation = loaded.installation;
    if (installation !== undefined) {
      set = new PackageSet(cwd, await explicitPackageDirs(installation, installOptions, findings));
      await addInstallationPackages(installation, set);
    }
  }
  for (const target of options.packages ?? []) await addPackageTarget(set, cwd, target);
  for (const target of options.paths ?? []) {
    const absolute = resolve(cwd, target);
    const info = await stat(absolute).catch(() => undefined);
    if (info?.isDirectory()) await addPackageDir(set, cwd, absolute);
    else files.push(...(await loadLooseFile(cwd, absolute, findings)));
  }
  if (options.install === undefined && (options.packages ?? []).length === 0 && (options.paths ?? []).length === 0) {
    await addDefaultPackages(set, cwd, findings);
  }
  const loaded = { installation, packages: set.ordered, files, findings: [...findings, ...set.findings] };
  const verdicts = validate === undefined ? undefined : await stageOne(loaded, validate);
  return new Workspace(loaded.packages, loaded.findings, files, installation, verdicts);
}

/** `--package DIR|KEY`: a directory holding package.yaml, else a key looked up in ./packages. */
async function addPackageTarget(set: PackageSet, cwd: string, target: string): Promise<void> {
  const absolute = resolve(cwd, target);
  const info = await stat(absolute).catch(() => undefined);
  if (info?.isDirectory() || target.includes('/')) await addPackageDir(set, cwd, absolute);
  else await set.addKey(target, [join(cwd, 'packages')], { pointer: '', file: target });
}

/** A package by path: its requires are looked for next to it (in its parent directory), then in ./packages. */
async function addPackageDir(set: PackageSet, cwd: string, dir: string): Promise<void> {
  const real = await realpath(dir).catch(() => dir);
  await set.addDir(dir, [...new Set([dirname(real), join(cwd, 'packages')])]);
}

async function addDefaultPackages(set: PackageSet, cwd: string, findings: Finding[]): Promise<void> {
  if (await isFile(join(cwd, MANIFEST))) return void (await addPackageDir(set, cwd, cwd));
  const packagesDir = join(cwd, 'packages');
  const names = await readdir(packagesDir).catch(() => [] as string[]);
  const dirs: string[] = [];
  for (const name of names.sort()) if (await isFile(join(packagesDir, name, MANIFEST))) dirs.push(join(packagesDir, name));
  if (dirs.length === 0) {
    findings.push(loadError('package_not_found', '.', { line: 1, column: 1 }, '', `no package here: neither ./${MANIFEST} nor ./packages/*/${MANIFEST}`,
      'run in a package or in a repository with packages/, or name the targets (--package, --install, files)'));
  }
  for (const dir of dirs) await set.addDir(dir, [packagesDir]);
}

function describeValue(value: unknown): string {
  if (value === null) return 'no document (it is empty or null)';
  if (Array.isArray(value)) return 'a sequence';
  return `a ${typeof value === 'string' ? 'string' : 'scalar'}`;
}

async function loadLooseFile(cwd: string, path: string, findings: Finding[]): Promise<LooseFile[]> {
  const file = displayPath(cwd, path);
  const result = await loadSourceFile(path, file);
  findings.push(...result.findings);
  const document = result.document;
  if (document === undefined) return [];
  const value = document.value;
  if (!isRecord(value)) {
    findings.push(loadError('invalid_document', file, document.locate(''), '', `the file holds ${describeValue(value)}; a package file is a mapping`,
      'an object file is {apiVersion: taimen.ai/v1, kind, key, spec}; a test file is a mapping too'));
    return [];
  }
  const role = /\.test\.ya?ml$/.test(file) ? 'test' : isRecord(value) && 'apiVersion' in value && 'kind' in value ? 'object' : 'document';
  return [{ role, file, document }];
}
