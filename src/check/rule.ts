/**
 * Stage-2 rules, ESLint style (STYLE.md §1): a rule declares its codes first — severity, a one-line summary
 * and a typed message — then one `check(context)` that reads the package graph and reports by code, or, for a
 * rule about one object at a time, the kinds it checks and one `checkObject(context, object)`.
 */
import type { SourceDocument } from '../json/document.js';
import { matchesPointerPattern } from '../json/pointer.js';
import { didYouMean } from '../model/did-you-mean.js';
import type { Finding, Severity } from '../model/finding.js';
import type { Installation } from '../model/installation.js';
import type { ObjectKind } from '../model/kinds.js';
import type { Package, PackageObject, PackageTest } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';
import { createFacts, type Facts } from './facts/index.js';
import { Asked, type Recall } from './rule-memo.js';

export interface CodeMeta<Data = never> {
  severity: Severity;
  /** One line for `check --list-rules` and docs/findings.md. */
  summary: string;
  /** The finding's message from its data: what is wrong, one sentence, no file or line. */
  message: (data: Data) => string;
  /**
   * The core reports this mistake too, under this code and severity, when it checks a package
   * (`POST /packages:test`, compat-core-validators.md): the local core runs the rules for these codes, and
   * only these, as the real core runs its checks. Codes without it are `check`'s own (SDK-level rules).
   */
  core?: true;
}

// eslint-style registries need a map of heterogeneous message functions.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Codes = Record<string, CodeMeta<any>>;

interface RuleBase<C extends Codes> {
  /** `family/name`, e.g. `references/task-types`. */
  id: string;
  description: string;
  codes: C;
  /**
   * Manifest fields (JSON Pointers, `*` for any one segment) whose schema errors this rule reports with its own
   * codes, as the reference does for `spec.settings`: stage-1 errors there do not keep the manifest from the
   * rules, and they reach this rule through `context.schemaFindings` instead of the report.
   */
  ownsManifestFields?: readonly string[];
  /**
   * Object kinds whose stage-1 findings this rule reports with its own codes, as the reference reports the
   * view.schema.json violations of screens as invalid_view, unknown_block, …: they reach this rule through
   * `context.schemaFindings` instead of the report. The document still counts as failing stage 1.
   */
  ownsSchemaOf?: readonly ObjectKind[];
}

/** A rule that reads the package graph as a whole (duplicates, manifests, cycles, what nothing refers to). */
export interface GraphRule<C extends Codes = Codes> extends RuleBase<C> {
  check(context: RuleContext<C>): void;
}

/**
 * A rule that checks one object at a time: what it finds of an object depends only on that object, the
 * documents that are not objects (manifests, tests, dictionaries, data schemas, the installation) and what it
 * asks the context for — which the context records, so that after an edit the rule runs again only for the
 * objects the edit can change (src/check/rule-memo.ts).
 */
export interface ObjectRule<C extends Codes = Codes> extends RuleBase<C> {
  /** The kinds it checks, in this order (objects of a kind in package then file order). */
  subjects: readonly ObjectKind[];
  checkObject(context: ObjectContext<C>, object: PackageObject): void;
}

export type Rule<C extends Codes = Codes> = GraphRule<C> | ObjectRule<C>;

/** Where a finding points: a node (its key or its value), or characters inside a string value. */
export type Place =
  | { document: SourceDocument; pointer: string; part?: 'key' | 'value' }
  | { document: SourceDocument; pointer: string; offset: number; length: number };

export interface ReportOptions {
  hint?: string;
}

/** What every rule may ask. */
export interface SharedContext<C extends Codes> {
  /** The object `kind`/`id` as package `from` sees it (own package, then its requires closure). */
  lookup(from: string, kind: ObjectKind, id: string): PackageObject | undefined;
  /** "did you mean …?" among the objects of `kind` that package `from` sees. */
  suggest(from: string, kind: ObjectKind, id: string): string | undefined;
  report<K extends keyof C & string>(code: K, place: Place, data: Parameters<C[K]['message']>[0], options?: ReportOptions): void;
  /** The stage-1 findings of `document` that this rule owns (`ownsManifestFields`, `ownsSchemaOf`). */
  schemaFindings(document: SourceDocument): Finding[];
  /** Packages whose manifest passed stage 1. */
  packages(): Package[];
}

export interface RuleContext<C extends Codes> extends SharedContext<C> {
  readonly workspace: Workspace;
  /** What several rules read, computed once per check (settings reviews, locales, process models, …). */
  readonly facts: Facts;
  /** Objects that passed stage 1, of `kind` when given. */
  objects(kind?: ObjectKind): PackageObject[];
  /** Tests that passed stage 1. */
  tests(): PackageTest[];
}

/** The facts an object rule may ask (see `ObjectContext.facts`). */
export type ObjectFacts = Omit<Facts, 'schemaRef'>;

/** What an object rule may read besides its object; every answer about other objects is recorded as a dependency. */
export interface ObjectContext<C extends Codes> extends SharedContext<C> {
  /**
   * The facts of an object and its package. Not the schemas a component's `$ref` names: they are read from files
   * that are neither objects nor loaded documents, which the runs kept in the index do not watch.
   */
  readonly facts: ObjectFacts;
  /** The package `key` (its manifest). */
  package(key: string): Package | undefined;
  readonly installation: Installation | undefined;
  /**
   * Every object of `kind` in every package, passed stage 1 or not, for where a name is declared: the object is
   * checked again when any object of `kind` changes.
   */
  declared(kind: ObjectKind): PackageObject[];
  /** The packages whose objects package `from` sees: itself first, then its requires closure (from the manifests). */
  visiblePackages(from: string): readonly string[];
  /** The identities of objects of `kind` that package `from` sees: checked again when the identities of `kind` change. */
  visibleIds(from: string, kind: ObjectKind): string[];
}

export function defineRule<C extends Codes>(rule: GraphRule<C>): GraphRule<C> {
  return rule;
}

export function defineObjectRule<C extends Codes>(rule: ObjectRule<C>): ObjectRule<C> {
  return rule;
}


/** True when `rule` reports the stage-1 findings of `document` (see `Rule.ownsSchemaOf`). */
function ownsSchemaOfDocument(rule: Rule, document: SourceDocument): boolean {
  const kind = (document.value as { kind?: unknown } | null)?.kind;
  return (rule.ownsSchemaOf ?? []).some((owned) => owned === kind);
}

/**
 * Runs the rules over the documents that passed stage 1 (`invalid` holds those that did not); `deferred` holds
 * the stage-1 findings held back for the rules that own their fields. With `recall`, an object rule's earlier
 * run over an object is taken where it stands, and every run is recorded for the next check.
 */
export function runRules(
  workspace: Workspace,
  rules: readonly Rule[],
  invalid: ReadonlySet<SourceDocument>,
  deferred: ReadonlyMap<SourceDocument, readonly Finding[]> = new Map(),
  recall?: Recall,
): Finding[] {
  const findings: Finding[] = [];
  const facts = createFacts(workspace);
  const valid = <T extends { document: SourceDocument }>(items: readonly T[]) => items.filter((item) => !invalid.has(item.document));
  // Every rule asks for objects by kind, some once per object: the lists are made once per check.
  const objectsByKind = new Map<ObjectKind | undefined, PackageObject[]>();
  const objectsOf = (kind: ObjectKind | undefined): PackageObject[] => {
    let objects = objectsByKind.get(kind);
    if (objects === undefined) objectsByKind.set(kind, (objects = valid(workspace.objects(kind))));
    return objects.slice();
  };
  const validPackages = workspace.packages.filter((pkg) => !invalid.has(pkg.manifest));
  const packages = () => validPackages.slice();
  for (const rule of rules) {
    const schemaFindingsOf = (document: SourceDocument) =>
      (deferred.get(document) ?? []).filter((f) => ownsSchemaOfDocument(rule, document) || matchesPointerPattern(rule.ownsManifestFields ?? [], f.path));
    if ('subjects' in rule) {
      runObjectRule(rule, { workspace, facts, packages, objectsOf, schemaFindingsOf }, findings, recall);
      continue;
    }
    rule.check({
      workspace,
      facts,
      packages,
      objects: objectsOf,
      tests: () => valid(workspace.packages.flatMap((pkg) => pkg.tests)),
      lookup: (from, kind, id) => workspace.lookup(from, kind, id),
      suggest: (from, kind, id) => didYouMean(id, workspace.visibleIds(from, kind)),
      report: (code, place, data, options) => findings.push(findingOf(rule, code, place, data, options)),
      schemaFindings: schemaFindingsOf,
    });
  }
  return findings;
}

/** What the runs of every rule share. */
interface Shared {
  workspace: Workspace;
  facts: Facts;
  packages(): Package[];
  objectsOf(kind: ObjectKind): PackageObject[];
  schemaFindingsOf(document: SourceDocument): Finding[];
}

/**
 * Runs an object rule over each object of its kinds that passed stage 1 — or takes its earlier run where that
 * stands (found from the memo alone while the kinds hold the same objects, else asked object by object) —
 * keeping the findings in the order a run over every object gives.
 */
function runObjectRule(rule: ObjectRule, { workspace, facts, packages, objectsOf, schemaFindingsOf }: Shared, findings: Finding[], recall: Recall | undefined): void {
  let found: Finding[] = [];
  // What the current run asked; only recorded when the runs are kept.
  let asked: Asked | undefined;
  const depends = (kind: string) => asked?.kinds.add(kind);
  const context: ObjectContext<Codes> = {
    facts,
    packages,
    installation: workspace.installation,
    package: (key) => workspace.package(key),
    visiblePackages: (from) => workspace.visiblePackages(from),
    lookup(from, kind, id) {
      const object = workspace.lookup(from, kind, id);
      asked?.lookedUp(from, kind, id, object);
      return object;
    },
    suggest(from, kind, id) {
      depends(`ids:${kind}`);
      return didYouMean(id, workspace.visibleIds(from, kind));
    },
    visibleIds(from, kind) {
      depends(`ids:${kind}`);
      return workspace.visibleIds(from, kind);
    },
    declared(kind) {
      depends(`files:${kind}`);
      return workspace.objects(kind);
    },
    report: (code, place, data, options) => found.push(findingOf(rule, code, place, data, options)),
    schemaFindings: schemaFindingsOf,
  };
  const objectsByKind = rule.subjects.map((kind) => [kind, objectsOf(kind)] as const);
  const standing = recall?.standing(rule.id, objectsByKind);
  if (standing?.again.size === 0 && standing.found.size === 0) return; // every earlier run stands, and found nothing
  for (const [kind, objects] of objectsByKind) {
    // Indexed: unoptimised code (a loop this short ends before V8 optimises it) allocates a result a step of `for…of`.
    for (let i = 0; i < objects.length; i++) {
      const object = objects[i]!;
      if (standing && !standing.again.has(object)) {
        const earlier = standing.found.get(object);
        if (earlier) findings.push(...earlier);
        continue;
      }
      const earlier = standing ? undefined : recall?.recalled(rule.id, kind, i, object);
      if (recall && earlier) {
        if (earlier.findings) findings.push(...earlier.findings);
        recall.keep(rule.id, kind, i, earlier, true);
        continue;
      }
      found = [];
      asked = recall && new Asked();
      rule.checkObject(context, object);
      findings.push(...found);
      if (recall && asked) recall.keep(rule.id, kind, i, asked.run(found), false);
    }
  }
}

function findingOf(rule: Rule, code: string, place: Place, data: unknown, options: ReportOptions = {}): Finding {
  const meta = rule.codes[code];
  if (!meta) throw new Error(`rule ${rule.id} reported '${code}', which it does not declare`);
  const span =
    'offset' in place ? spanInScalar(place.document, place.pointer, place.offset, place.length) : place.document.locate(place.pointer, place.part);
  return {
    code,
    severity: meta.severity,
    message: meta.message(data as never),
    file: place.document.file,
    path: place.pointer,
    ...span,
    ...(options.hint ? { hint: options.hint } : {}),
  };
}

function spanInScalar(document: SourceDocument, pointer: string, offset: number, length: number) {
  const first = document.locateInScalar(pointer, offset);
  const last = document.locateInScalar(pointer, offset + Math.max(0, length - 1));
  return { line: first.line, column: first.column, endLine: last.line, endColumn: last.column + 1 };
}
