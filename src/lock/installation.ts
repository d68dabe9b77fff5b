import { access, readFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import type { SourceDocument } from '../load/document.js';
import { parseYaml } from '../load/yaml.js';
import type { Finding } from '../model/finding.js';
import type { LockEntry, LockSource } from './lock-file.js';
import { finding, type GitSourceResolver, type SourcePlace } from './resolver.js';
import type { GitSource } from './source.js';

/**
 * The packages of an installation as `lock` needs them: every package in dependency order with its directory,
 * version and source (compat §1). Kept small and apart: the installation loader of `src/load/` replaces it.
 *
 * | code                  | severity | when                                                         |
 * |-----------------------|----------|--------------------------------------------------------------|
 * | installation_invalid  | error    | not an Installation, or `spec.packages` is not a list of sources |
 * | package_not_found     | error    | no directory holds `<key>/package.yaml`                      |
 * | package_key_mismatch  | error    | the manifest's key differs from the entry's                  |
 * | requires_cycle        | error    | packages require each other                                   |
 */

export interface InstallationPackage {
  key: string;
  dir: string;
  manifestFile: string;
  /** `spec.version` of the manifest, stringified; undefined when missing. */
  version?: string;
  source: LockSource;
}

export interface ResolvedInstallation {
  file: string;
  key?: string;
  document?: SourceDocument;
  /** Dependency order: a package's requirements come before it. */
  packages: InstallationPackage[];
  findings: Finding[];
}

export interface InstallationOptions {
  resolveGitSource: GitSourceResolver;
  /** The lock's entries by key, handed to the resolver. */
  lockEntries?: ReadonlyMap<string, LockEntry>;
  cwd?: string;
}

interface Entry {
  key: string;
  dir?: string;
  source?: LockSource;
  place: SourcePlace;
}

export async function resolveInstallation(file: string, options: InstallationOptions): Promise<ResolvedInstallation> {
  const result: ResolvedInstallation = { file, packages: [], findings: [] };
  const loaded = await loadYaml(file);
  result.findings.push(...loaded.findings);
  const document = loaded.document;
  if (!document) return result;
  result.document = document;
  const spec = (document.value as { kind?: unknown; key?: unknown; spec?: { packages?: unknown; packagesDir?: unknown } });
  if (typeof spec?.key === 'string') result.key = spec.key;
  const packages = spec?.spec?.packages;
  if (spec?.kind !== 'Installation' || !Array.isArray(packages)) {
    result.findings.push(placed(document, '', 'installation_invalid', 'expected kind: Installation with spec.packages: a list of package sources'));
    return result;
  }
  const installDir = dirname(file);
  const entries: Entry[] = [];
  for (const [index, raw] of packages.entries()) {
    const pointer = `/spec/packages/${index}`;
    const place = placeOf(document, pointer);
    if (typeof raw === 'string') entries.push({ key: raw, place });
    else if (isPathEntry(raw)) {
      entries.push({ key: raw.key, dir: resolve(installDir, raw.path), place });
    } else if (isGitEntry(raw)) {
      const source: GitSource = { key: raw.key, git: raw.git, ref: raw.ref, ...(raw.path ? { path: raw.path } : {}) };
      const resolution = await options.resolveGitSource(source, options.lockEntries?.get(raw.key), place);
      result.findings.push(...resolution.findings);
      if ('dir' in resolution) entries.push({ key: raw.key, dir: resolution.dir, source: { git: raw.git, ref: raw.ref, ...(raw.path ? { path: raw.path } : {}) }, place });
    } else {
      result.findings.push(placed(document, pointer, 'installation_invalid', 'expected a package key, {key, path} or {key, git, ref, path?}'));
    }
  }
  const searchDirs = [
    ...(typeof spec.spec?.packagesDir === 'string' ? [resolve(installDir, spec.spec.packagesDir)] : []),
    join(installDir, 'packages'), installDir, join(options.cwd ?? process.cwd(), 'packages'),
  ];
  const walk = new DependencyWalk(installDir, entries, searchDirs, result);
  for (const entry of entries) await walk.visit(entry.key, entry.place, []);
  return result;
}

function isPathEntry(raw: unknown): raw is { key: string; path: string } {
  const entry = raw as Record<string, unknown>;
  return typeof entry?.key === 'string' && typeof entry.path === 'string' && entry.git === undefined;
}

function isGitEntry(raw: unknown): raw is { key: string; git: string; ref: string; path?: string } {
  const entry = raw as Record<string, unknown>;
  return typeof entry?.key === 'string' && typeof entry.git === 'string' && typeof entry.ref === 'string' &&
    (entry.path === undefined || typeof entry.path === 'string');
}

class DependencyWalk {
  private readonly done = new Set<string>();
  private readonly byKey: Map<string, Entry>;

  constructor(
    private readonly installDir: string, entries: readonly Entry[], private readonly searchDirs: readonly string[],
    private readonly result: ResolvedInstallation,
  ) {
    this.byKey = new Map(entries.filter((e) => e.dir !== undefined).map((e) => [e.key, e]));
  }

  async visit(key: string, place: SourcePlace, chain: readonly string[]): Promise<void> {
    if (this.done.has(key)) return;
    if (chain.includes(key)) {
      this.result.findings.push(finding(place, 'requires_cycle', 'error', `requires_cycle: ${[...chain, key].join(' → ')}`));
      return;
    }
    const entry = this.byKey.get(key);
    const dir = entry?.dir ?? (await this.search(key));
    if (dir === undefined) {
      const by = chain.length > 0 ? ` (required by ${chain[chain.length - 1]})` : '';
      this.result.findings.push(finding(place, 'package_not_found', 'error',
        `package '${key}' not found in ${this.searchDirs.join(', ')}${by}`));
      return;
    }
    const manifestFile = join(dir, 'package.yaml');
    const manifest = await loadYaml(manifestFile);
    this.result.findings.push(...manifest.findings);
    const value = manifest.document?.value as { key?: unknown; spec?: { version?: unknown; requires?: unknown } } | undefined;
    if (!value) return;
    if (value.key !== key) {
      this.result.findings.push(placed(manifest.document!, '/key', 'package_key_mismatch', `the manifest's key is '${String(value.key)}', the installation names '${key}'`));
      return;
    }
    this.done.add(key);
    for (const required of requiresOf(value.spec?.requires)) await this.visit(required, place, [...chain, key]);
    const version = value.spec?.version;
    this.result.packages.push({
      key, dir, manifestFile,
      ...(version !== undefined && version !== null ? { version: String(version) } : {}),
      source: entry?.source ?? { path: relativePath(this.installDir, dir) },
    });
  }

  private async search(key: string): Promise<string | undefined> {
    for (const base of this.searchDirs) {
      const dir = join(base, key);
      if (await access(join(dir, 'package.yaml')).then(() => true, () => false)) return dir;
    }
    return undefined;
  }
}

function requiresOf(requires: unknown): string[] {
  if (!Array.isArray(requires)) return [];
  return requires.flatMap((r) => (typeof r === 'string' ? [r] : typeof r?.package === 'string' ? [r.package] : []));
}

/** As the reference writes it: `/` separators, `.` for the installation's own directory. */
function relativePath(from: string, to: string): string {
  return relative(from, to).split(sep).join('/') || '.';
}

async function loadYaml(file: string): Promise<{ document?: SourceDocument; findings: Finding[] }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return { findings: [finding({ file, path: '', line: 1, column: 1 }, 'file_unreadable', 'error', `cannot read ${file}: ${(error as Error).message}`)] };
  }
  return parseYaml(text, file);
}

function placeOf(document: SourceDocument, pointer: string): SourcePlace {
  const field = (name: string) => document.locate(`${pointer}/${name}`);
  return { file: document.file, path: pointer, ...document.locate(pointer), fields: { git: field('git'), ref: field('ref'), path: field('path') } };
}

function placed(document: SourceDocument, pointer: string, code: string, message: string): Finding {
  return finding({ file: document.file, path: pointer, ...document.locate(pointer) }, code, 'error', message);
}
