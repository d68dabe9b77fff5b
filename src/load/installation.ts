/**
 * Loading an `Installation` file and its packages (compat-package-sdk-install.md §1, check §1.4):
 * entries are a key, `{key, path}` or `{key, git, ref, path?}`; explicit entries are resolved first,
 * in file order (git ones through the resolver, against packages.lock), then every entry's requires
 * closure is walked in dependency order.
 *
 * | code                 | severity | when                                                                       |
 * |----------------------|----------|----------------------------------------------------------------------------|
 * | package_not_found    | error    | a `{key, path}` entry's directory has no package.yaml                      |
 * | installation_invalid | error    | the --install file is not `kind: Installation` (a malformed `spec` is a     |
 * |                      |          | schema violation, reported by check stage 1)                               |
 * | lock_required        | error    | a git entry has no entry in packages.lock (from the default resolver)      |
 * | lock_invalid         | error    | packages.lock cannot be read as package-sdk.lock/v1                        |
 * | (git source codes)   |          | whatever the git resolver reports (source-resolver.ts)                     |
 * | invalid_document, package_not_found, requires_cycle, package_key_mismatch … | | see package.ts, package-set.ts |
 */
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SourceDocument } from '../json/document.js';
import type { Finding } from '../model/finding.js';
import { hasGitSources, type Installation, type InstallationEntry, type SourcePlace } from '../model/installation.js';
import type { Package, PackageSource } from '../model/package.js';
import type { GitSourceResolver } from './source-resolver.js';
import type { LockEntry } from '../sources/lock-file.js';
import { loadError } from './load-finding.js';
import { displayPath, loadEnvelopeFile, MANIFEST } from './package.js';
import type { KnownDir, PackageSet } from './package-set.js';
import { childPointer } from '../json/pointer.js';
import { isFile } from './source.js';
import { isRecord } from '../json/guards.js';
import { LOCK_FILE_NAME, LockFileError, readLock } from '../sources/lock-file.js';
import { finding as sourceFinding, gitSourceResolver } from './source-resolver.js';

export interface InstallationLoadOptions {
  cwd: string;
  /**
   * Turns a git entry (and its packages.lock entry) into a package directory. Default: src/lock's
   * resolver, which reports `lock_required` for an unlocked source and uses the git cache otherwise.
   */
  resolveGitSource?: GitSourceResolver;
}

/** The installation's document and entries; findings when it cannot be used at all. */
export async function loadInstallationFile(
  path: string,
  options: InstallationLoadOptions,
): Promise<{ installation?: Installation; findings: Finding[] }> {
  const absolute = resolve(options.cwd, path);
  const file = displayPath(options.cwd, absolute);
  const findings: Finding[] = [];
  const loaded = await loadEnvelopeFile(absolute, file, findings);
  if (loaded === undefined) return { findings };
  const { document, envelope } = loaded;
  if (envelope.kind !== 'Installation') {
    findings.push(invalid(document, '/kind', `the file holds kind '${envelope.kind}'; --install takes a kind: Installation file`));
    return { findings };
  }
  const dir = dirname(absolute);
  const entries: InstallationEntry[] = [];
  // An entry of another shape is a schema violation, reported by stage 1 with the rest of the file.
  const packages = Array.isArray(envelope.spec.packages) ? envelope.spec.packages : [];
  packages.forEach((raw, index) => {
    const entry = entryOf(raw, childPointer('/spec/packages', index), document);
    if (entry !== undefined) entries.push(entry);
  });
  const packagesDir = typeof envelope.spec.packagesDir === 'string' ? resolve(dir, envelope.spec.packagesDir) : undefined;
  const searchDirs = unique([
    ...(packagesDir !== undefined ? [packagesDir] : []),
    join(dir, 'packages'),
    dir,
    join(options.cwd, 'packages'),
  ]);
  const installation: Installation = { key: envelope.key, file, dir, document, entries, searchDirs };
  if (packagesDir !== undefined) installation.packagesDir = packagesDir;
  return { installation, findings };
}

function entryOf(raw: unknown, pointer: string, document: SourceDocument): InstallationEntry | undefined {
  if (typeof raw === 'string') return { key: raw, pointer };
  if (!isRecord(raw) || typeof raw.key !== 'string') return undefined;
  if (raw.git === undefined) {
    if (typeof raw.path !== 'string' || raw.ref !== undefined) return undefined;
    return { key: raw.key, source: { path: raw.path }, pointer, place: sourcePlace(document, pointer) };
  }
  if (typeof raw.git !== 'string' || typeof raw.ref !== 'string') return undefined;
  if (raw.path !== undefined && typeof raw.path !== 'string') return undefined;
  const source: PackageSource = { git: raw.git, ref: raw.ref, ...(typeof raw.path === 'string' && raw.path !== '' ? { path: raw.path } : {}) };
  return { key: raw.key, source, pointer, place: sourcePlace(document, pointer) };
}

/** Where the source entry at `pointer` of `document` is written, with its fields, for the findings about it. */
function sourcePlace(document: SourceDocument, pointer: string): SourcePlace {
  const field = (name: string) => document.locate(childPointer(pointer, name));
  return { file: document.file, path: pointer, ...document.locate(pointer), fields: { git: field('git'), ref: field('ref'), path: field('path') } };
}

/**
 * The directories of the installation's explicit entries, in file order: `{key, path}` relative to
 * the installation file, git entries through the resolver (undefined when it could not give one).
 */
export async function explicitPackageDirs(
  installation: Installation,
  options: InstallationLoadOptions,
  findings: Finding[],
): Promise<Map<string, KnownDir | undefined>> {
  const known = new Map<string, KnownDir | undefined>();
  const git = hasGitSources(installation) ? await gitContext(installation, options, findings) : undefined;
  for (const entry of installation.entries) {
    const source = entry.source;
    if (source === undefined || known.has(entry.key)) continue;
    if ('git' in source) {
      const resolution = await git!.resolve({ key: entry.key, ...source }, git!.lock.get(entry.key), entry.place);
      findings.push(...resolution.findings);
      known.set(entry.key, 'dir' in resolution ? { dir: resolution.dir, source } : undefined);
      continue;
    }
    const dir = resolve(installation.dir, source.path);
    if (await isFile(join(dir, MANIFEST))) known.set(entry.key, { dir, source: { path: sourcePath(installation.dir, dir) } });
    else {
      known.set(entry.key, undefined);
      findings.push(sourceFinding(entry.place, 'package_not_found', 'error',
        `package '${entry.key}': no ${MANIFEST} in ${displayPath(options.cwd, dir) || '.'}`, 'the path is relative to the installation file', 'path'));
    }
  }
  return known;
}

/** The source a local package gets in packages.lock: its path from the installation file's directory. */
export function sourcePath(installDir: string, dir: string): string {
  return relative(installDir, dir).split(sep).join('/') || '.';
}

/**
 * Where loading `installation` looked beyond the files it read: each place a package key is looked for
 * (`<folder>/<key>/package.yaml` in every search folder, for the entries' keys and every requirement of the
 * `packages` loaded) and the folders its `{key, path}` entries name. A package that appears at one of them
 * changes what the installation loads; a file written beside them (a plan, a lock) does not.
 */
export function installationProbes(installation: Installation, packages: readonly Package[]): string[] {
  const keys = new Set([...installation.entries.map((entry) => entry.key), ...packages.flatMap((pkg) => [pkg.key, ...pkg.requires.map((requirement) => requirement.package)])]);
  const probes = [...keys].flatMap((key) => installation.searchDirs.map((dir) => join(dir, key, MANIFEST)));
  const named = installation.entries.flatMap(({ source }) => (source === undefined || 'git' in source ? [] : [resolve(installation.dir, source.path)]));
  return [...probes, ...named];
}

/** Loads every package of `installation` into `set`, in dependency order. */
export async function addInstallationPackages(installation: Installation, set: PackageSet): Promise<void> {
  for (const entry of installation.entries) {
    await set.addKey(entry.key, installation.searchDirs, { document: installation.document, pointer: entry.pointer });
  }
  for (const pkg of set.ordered) pkg.source ??= { path: sourcePath(installation.dir, pkg.dir) };
}

async function gitContext(
  installation: Installation,
  options: InstallationLoadOptions,
  findings: Finding[],
): Promise<{ resolve: GitSourceResolver; lock: ReadonlyMap<string, LockEntry> }> {
  const lockFile = join(installation.dir, LOCK_FILE_NAME);
  let lock = new Map<string, LockEntry>();
  try {
    const document = await readLock(lockFile);
    lock = new Map((document?.packages ?? []).map((entry) => [entry.key, entry]));
  } catch (error) {
    if (!(error instanceof LockFileError)) throw error;
    findings.push(loadError(error.code, displayPath(options.cwd, lockFile), { line: 1, column: 1 }, '', error.message,
      'packages.lock is written by package-sdk lock only: lock again'));
  }
  const resolveGitSource = options.resolveGitSource ?? gitSourceResolver({ installFile: installation.file });
  return { resolve: resolveGitSource, lock };
}

function invalid(document: SourceDocument, pointer: string, message: string): Finding {
  return loadError('installation_invalid', document.file, document.locate(pointer), pointer, message);
}

function unique(dirs: string[]): string[] {
  return [...new Set(dirs)];
}
