/**
 * The package graph that every check reads: packages in dependency order, their objects indexed by kind
 * and identity, and visibility — an object sees its own package and the transitive closure of its
 * `requires`, never the other packages of the installation (compat-package-sdk-check.md §1.4).
 */
import type { SourceDocument } from '../json/document.js';
import type { Finding } from './finding.js';
import type { Installation } from './installation.js';
import type { ObjectKind } from './kinds.js';
import type { Package, PackageObject } from './package.js';

/** A file given on its own as a target (a single object, a test, any JSON or YAML document). */
export interface LooseFile {
  /** `test` for `*.test.yaml`; `object` for a document with `apiVersion` and `kind`; else `document`. */
  role: 'object' | 'test' | 'document';
  file: string;
  document: SourceDocument;
}

/**
 * Stage 1 of `check`, as loading leaves it: the findings it reports, every document that failed (to load, or its
 * schema), and the schema findings held back for the rules that report them in their own codes.
 */
export interface StageOne {
  findings: readonly Finding[];
  invalid: ReadonlySet<SourceDocument>;
  deferred: ReadonlyMap<SourceDocument, readonly Finding[]>;
}

const NO_STAGE_ONE: StageOne = { findings: [], invalid: new Set(), deferred: new Map() };

/**
 * Every loaded document (manifests, objects, tests, dictionaries, data schemas, upload templates, loose files) by
 * file; without the objects' documents when `objects` is false.
 */
export function documentsOf(installation: Installation | undefined, packages: readonly Package[], files: readonly LooseFile[], objects = true): Map<string, SourceDocument> {
  const out = new Map<string, SourceDocument>();
  const add = (document: SourceDocument): void => void out.set(document.file, document);
  if (installation !== undefined) add(installation.document);
  for (const pkg of packages) {
    add(pkg.manifest);
    for (const part of [objects ? pkg.objects : [], pkg.tests, pkg.dictionaries, pkg.dataSchemas, pkg.templates]) for (const item of part) add(item.document);
  }
  for (const loose of files) add(loose.document);
  return out;
}

export class Workspace {
  private readonly byKey: ReadonlyMap<string, Package>;
  private readonly index = new Map<string, Map<string, PackageObject>>();
  private readonly visible = new Map<string, readonly string[]>();
  private byFile?: ReadonlyMap<string, SourceDocument>;
  private byKind?: ReadonlyMap<ObjectKind, PackageObject[]>;
  private all?: PackageObject[];

  constructor(
    /** Dependency order: a package comes after everything it requires. */
    readonly packages: readonly Package[],
    /** Every load problem, in the order found. */
    readonly findings: readonly Finding[],
    readonly files: readonly LooseFile[] = [],
    readonly installation?: Installation,
    /** Stage 1 of `check`, when loaded for a check (else empty). */
    readonly stageOne: StageOne = NO_STAGE_ONE,
  ) {
    this.byKey = new Map(packages.map((pkg) => [pkg.key, pkg]));
    for (const pkg of packages) {
      const own = new Map<string, PackageObject>();
      for (const object of pkg.objects) if (!own.has(object.ref)) own.set(object.ref, object);
      this.index.set(pkg.key, own);
    }
  }

  package(key: string): Package | undefined {
    return this.byKey.get(key);
  }

  /** Every object of every package, in dependency then file order; only those of `kind` when given. */
  objects(kind?: ObjectKind): PackageObject[] {
    // Asked for every object by several rules and the check's memo: gathered once.
    if (kind === undefined) return (this.all ??= this.packages.flatMap((pkg) => pkg.objects)).slice();
    // Asked for every kind by the rules, and again by the check's memo: grouped once.
    if (this.byKind === undefined) {
      const byKind = new Map<ObjectKind, PackageObject[]>();
      for (const pkg of this.packages) for (const object of pkg.objects) byKind.get(object.kind)?.push(object) ?? byKind.set(object.kind, [object]);
      this.byKind = byKind;
    }
    return this.byKind.get(kind)?.slice() ?? [];
  }

  /** Keys of the packages `key` requires, directly or not, in dependency order (without `key` itself). */
  private requiresClosure(key: string): string[] {
    const closure: string[] = [];
    const seen = new Set<string>([key]);
    const visit = (current: string): void => {
      for (const requirement of this.byKey.get(current)?.requires ?? []) {
        if (seen.has(requirement.package) || !this.byKey.has(requirement.package)) continue;
        seen.add(requirement.package);
        visit(requirement.package);
        closure.push(requirement.package);
      }
    };
    visit(key);
    return closure;
  }

  /** The packages whose objects package `key` sees: itself first, then its requires closure. */
  visiblePackages(key: string): readonly string[] {
    // Asked by every lookup of every rule: made once per package.
    let visible = this.visible.get(key);
    if (visible === undefined) this.visible.set(key, (visible = [key, ...this.requiresClosure(key)]));
    return visible;
  }

  /**
   * The object `kind`/`id` as package `from` sees it (its own first), or undefined. `id` is the key, or
   * `key@version` for Skill and ConnectionType.
   */
  lookup(from: string, kind: ObjectKind, id: string): PackageObject | undefined {
    const ref = `${kind}/${id}`;
    for (const key of this.visiblePackages(from)) {
      const found = this.index.get(key)?.get(ref);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** The identities of objects of `kind` that package `from` sees (for "did you mean"). */
  visibleIds(from: string, kind: ObjectKind): string[] {
    return this.visiblePackages(from).flatMap((key) =>
      (this.byKey.get(key)?.objects ?? []).filter((object) => object.kind === kind).map((object) => object.id),
    );
  }

  /** Every loaded document that is not an object's (manifests, tests, dictionaries, data schemas, upload templates, loose files). */
  documentsBesideObjects(): SourceDocument[] {
    return [...documentsOf(this.installation, this.packages, this.files, false).values()];
  }

  /** Every loaded document (manifests, objects, tests, dictionaries, data schemas, upload templates, loose files) by file. */
  documents(): ReadonlyMap<string, SourceDocument> {
    // Asked by the rules, the report and the renderers of one check: made once.
    return (this.byFile ??= documentsOf(this.installation, this.packages, this.files));
  }
}
