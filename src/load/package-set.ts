/**
 * The packages of one run and their `requires` closure: each directory loaded once, each key once,
 * in dependency order (a package's requirements before it), cycles and missing packages reported
 * where the requirement is written (compat-package-sdk-install.md §1).
 *
 * | code              | severity | when                                                                   |
 * |-------------------|----------|------------------------------------------------------------------------|
 * | package_not_found | error    | no search directory holds `<key>/package.yaml` (message names who requires it) |
 * | requires_cycle    | error    | packages require each other: `a → b → a`                               |
 * | duplicate_package | error    | two different directories hold packages with the same key              |
 */
import { access, realpath } from 'node:fs/promises';
import { join } from 'node:path';
import type { Span } from '../json/document.js';
import type { Finding } from '../model/finding.js';
import type { Package, PackageSource } from '../model/package.js';
import type { SourceDocument } from '../json/document.js';
import { loadError } from './load-finding.js';
import { displayPath, loadPackage, MANIFEST } from './package.js';

/** Where a package was asked for: findings about finding it point there. */
export interface Demand {
  document?: SourceDocument;
  /** The file to name when there is no document (a command-line argument). */
  file?: string;
  pointer: string;
  /** The package whose requires name it (for "required by"). */
  requiredBy?: string;
}

/** A package directory known up front, with the key and source the installation gives it. */
export interface KnownDir {
  dir: string;
  source?: PackageSource;
}

export class PackageSet {
  readonly findings: Finding[] = [];
  /** Dependency order. */
  readonly ordered: Package[] = [];
  private readonly loads = new Map<string, Promise<Package | undefined>>();
  private readonly byKey = new Map<string, Package>();
  private readonly visiting = new Set<string>();
  private readonly done = new Set<string>();

  constructor(
    private readonly cwd: string,
    /**
     * Directories of keys given explicitly (installation `{key, path}` and git entries); `undefined`
     * for a source that could not be had, already reported: it is not searched for elsewhere.
     */
    private readonly known: ReadonlyMap<string, KnownDir | undefined> = new Map(),
  ) {}

  /** Adds the package in `dir` and its requires closure, searching `searchDirs` for required keys. */
  async addDir(dir: string, searchDirs: readonly string[], expectedKey?: string, source?: PackageSource): Promise<Package | undefined> {
    const pkg = await this.load(dir, expectedKey, source);
    if (pkg !== undefined) await this.walk(pkg, [], searchDirs);
    return pkg;
  }

  /** Adds the package `key` (looked up like a requirement) and its requires closure. */
  async addKey(key: string, searchDirs: readonly string[], demand: Demand): Promise<Package | undefined> {
    const pkg = await this.find(key, searchDirs, demand);
    if (pkg !== undefined) await this.walk(pkg, [], searchDirs);
    return pkg;
  }

  private async walk(pkg: Package, chain: readonly string[], searchDirs: readonly string[], demand?: Demand): Promise<void> {
    if (this.done.has(pkg.key)) return;
    if (this.visiting.has(pkg.key)) {
      const cycle = [...chain.slice(chain.indexOf(pkg.key)), pkg.key].join(' → ');
      this.report('requires_cycle', demand, `requires cycle: ${cycle}`, 'a package cannot require itself, directly or through others');
      return;
    }
    this.visiting.add(pkg.key);
    const path = [...chain, pkg.key];
    for (const requirement of pkg.requires) {
      const required: Demand = { document: pkg.manifest, pointer: requirement.pointer, requiredBy: pkg.key };
      const dependency = await this.find(requirement.package, searchDirs, required);
      if (dependency !== undefined) await this.walk(dependency, path, searchDirs, required);
    }
    this.visiting.delete(pkg.key);
    this.done.add(pkg.key);
    this.ordered.push(pkg);
  }

  /** The package `key`: an explicit directory, one already loaded, or `<dir>/<key>` in the first search directory that has it. */
  private async find(key: string, searchDirs: readonly string[], demand: Demand): Promise<Package | undefined> {
    if (this.known.has(key)) {
      const known = this.known.get(key);
      return known === undefined ? undefined : this.load(known.dir, key, known.source);
    }
    const loaded = this.byKey.get(key);
    if (loaded !== undefined) return loaded;
    for (const base of searchDirs) {
      const dir = join(base, key);
      if (await access(join(dir, MANIFEST)).then(() => true, () => false)) return this.load(dir, undefined, undefined);
    }
    const where = searchDirs.map((dir) => displayPath(this.cwd, dir) || '.').join(', ');
    const by = demand.requiredBy === undefined ? '' : ` (required by ${demand.requiredBy})`;
    this.report('package_not_found', demand, `package '${key}' not found in ${where}${by}`, `expected ${key}/${MANIFEST} in one of these directories`);
    return undefined;
  }

  private load(dir: string, expectedKey: string | undefined, source: PackageSource | undefined): Promise<Package | undefined> {
    const pending = realpath(dir)
      .catch(() => dir)
      .then((real) => {
        let load = this.loads.get(real);
        if (load === undefined) {
          load = this.loadOnce(dir, expectedKey, source);
          this.loads.set(real, load);
        }
        return load;
      });
    return pending;
  }

  private async loadOnce(dir: string, expectedKey: string | undefined, source: PackageSource | undefined): Promise<Package | undefined> {
    const options = { cwd: this.cwd, ...(expectedKey !== undefined ? { expectedKey } : {}), ...(source !== undefined ? { source } : {}) };
    const result = await loadPackage(dir, options);
    this.findings.push(...result.findings);
    const pkg = result.package;
    if (pkg === undefined) return undefined;
    const other = this.byKey.get(pkg.key);
    if (other !== undefined) {
      this.findings.push(
        loadError('duplicate_package', pkg.manifest.file, pkg.manifest.locate('/key'), '/key',
          `package '${pkg.key}' is also loaded from ${displayPath(this.cwd, other.dir) || '.'}`, 'load each package once'),
      );
      return other;
    }
    this.byKey.set(pkg.key, pkg);
    return pkg;
  }

  private report(code: string, demand: Demand | undefined, message: string, hint: string): void {
    const document = demand?.document;
    const span: Span = document?.locate(demand!.pointer) ?? { line: 1, column: 1 };
    this.findings.push(loadError(code, document?.file ?? demand?.file ?? '', span, demand?.pointer ?? '', message, hint));
  }
}
