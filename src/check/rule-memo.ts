/**
 * What the object rules found in an earlier check of the same targets, with what each of their runs asked
 * about other objects — so that after an edit an object rule runs again only for the objects the edit can
 * change, and the findings of every other object are taken as they were. A value edited in a package of
 * 10,000 objects then re-runs those rules for the edited object and the few that look it up. The report is
 * the one a check from scratch gives (test/check/incremental.test.ts checks every fixture case both ways, and
 * a series of random edits).
 *
 * The run of an object rule over one object depends on:
 * - the object's own document;
 * - the ground: every document that is not an object (manifests, tests, dictionaries, data schemas, knowledge
 *   templates, the installation, files given alone), the packages in their order, and which documents failed
 *   stage 1 — when any of that changed, the object rules run for every object;
 * - what the run asked the context: each lookup (the object it resolved to, and that object's document), and
 *   the kinds it listed (their identities for `visibleIds` and `suggest`, their documents for `declared`).
 *
 * A lookup resolves to the same file while the ground and the objects of its kind (their packages, identities
 * and files, in order) are as they were: the memo keeps those for each kind looked up (`ids:<kind>` and
 * `files:<kind>`, as for the kinds listed), so that the 12,500 lookups of 10,000 unchanged objects are not made
 * again — only the documents they found are compared. Where a kind changed, each lookup of it is made again.
 *
 * While a rule's kinds hold the objects they held (the memo keeps each kind's objects), which of its runs stand
 * is found from the runs the memo kept and the objects whose documents changed (`standing`): an object neither
 * touches found and asked nothing before, and still does. Only when objects came or went is each object asked
 * in turn (`recalled`).
 */
import type { SourceDocument } from '../json/document.js';
import type { Finding } from '../model/finding.js';
import type { ObjectKind } from '../model/kinds.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';

/** What a check keeps of its object rules' runs for the next check of the same targets. */
export interface RuleMemo {
  /** See `groundOf`. */
  ground: string;
  /** By rule id, by object (`subjectKey`): what a run found and asked; runs that found and asked nothing are left out. */
  runs: Record<string, Map<string, Run>>;
  /** By kind, the `subjectKey`s of its objects the runs were made over, in order (a line each). */
  subjects: Map<string, string>;
  /**
   * What each kind some run listed was when the memo was made (see `Asked.kinds`), by `ids:<kind>` or
   * `files:<kind>`; the kinds some run looked up in are kept the same way (see above).
   */
  kinds: Map<string, string>;
}

/** One run of an object rule over one object. */
export interface Run {
  findings: Finding[];
  /** Four strings a lookup: the package asking, the kind, the identity, and the file of the object found ('' for none). */
  lookups: string[];
  /** `ids:<kind>` for the identities of a kind, `files:<kind>` for its objects' documents. */
  kinds: string[];
}

/** The memo of the last check of the same targets, and whether a document changed since that check read it. */
export interface RuleMemory {
  previous: RuleMemo | undefined;
  changedSince(document: SourceDocument): boolean;
}

/** Runs of object rules over objects in a check, and how many of them were taken from the last check. */
export interface ObjectRuns {
  taken: number;
  total: number;
  /** Runs whose earlier run was looked for object by object (`Recall.recalled`): no earlier memo stood, or objects of the rule's kinds came or went. */
  asked: number;
}

/** What one run asked the context, as it runs. */
export class Asked {
  /** By what was asked (package, kind and identity: each lookup kept once), the four strings of `Run.lookups`. */
  private readonly lookups = new Map<string, readonly string[]>();
  readonly kinds = new Set<string>();

  lookedUp(from: string, kind: ObjectKind, id: string, found: PackageObject | undefined): void {
    this.lookups.set(`${from}\0${kind}\0${id}`, [from, kind, id, found?.file ?? '']);
  }

  run(findings: Finding[]): Run {
    return { findings, lookups: [...this.lookups.values()].flat(), kinds: [...this.kinds] };
  }
}

const NOTHING: Run = { findings: [], lookups: [], kinds: [] };

/** Of the objects a rule runs over, those whose earlier runs do not stand, and the findings of those that do. */
export interface Standing {
  again: ReadonlySet<PackageObject>;
  found: ReadonlyMap<PackageObject, readonly Finding[]>;
}

/**
 * The memo of this check as it is made, and the earlier one where it still speaks for an object: `recalled`
 * answers whether a rule's earlier run over an object stands, `keep` records each run for the next check.
 */
export class Recall {
  private readonly previous: RuleMemo | undefined;
  private readonly memo: RuleMemo;
  private readonly changed = new Map<SourceDocument, boolean>();
  /** Each object's name among the runs (`subjectKey`), made once a check rather than once a rule. */
  private readonly subjects = new Map<PackageObject, string>();
  private readonly kindsChanged = new Map<string, boolean>();
  /** `fileChanged` by file (asked once a lookup). */
  private readonly filesChanged = new Map<string, boolean>();
  /** `lookupsChanged` by kind (asked once a lookup: 12,500 of them for 10,000 objects). */
  private readonly kindsLookedUpChanged = new Map<string, boolean>();
  /** `kindNow` of each kind asked, made once (compared with the earlier memo, then kept in this one). */
  private readonly kindsNow = new Map<string, string>();
  /** The kinds looked up in by the runs kept so far (their `lookedUpKinds` are in the memo). */
  private readonly lookedUpKept = new Set<string>();
  /** By kind, `subjectsOf` its objects (undefined where two share a key: such a kind is not kept). */
  private readonly subjectsNow = new Map<ObjectKind, string | undefined>();
  /** The objects of the kinds in `subjectsNow`, by `subjectKey`. */
  private readonly objectsBySubject = new Map<string, PackageObject>();
  /** By kind, those of its objects whose documents changed since the earlier check (`changedOf`). */
  private readonly changedOfKind = new Map<ObjectKind, PackageObject[]>();
  /** Runs taken from the earlier memo, and runs in all (see `ObjectRuns`). */
  private readonly runs: ObjectRuns = { taken: 0, total: 0, asked: 0 };

  constructor(
    private readonly workspace: Workspace,
    invalid: ReadonlySet<SourceDocument>,
    private readonly memory: RuleMemory,
  ) {
    const { ground, documents } = groundOf(workspace, invalid);
    const standing = memory.previous?.ground === ground && !documents.some((document) => this.changedSince(document));
    this.previous = standing ? memory.previous : undefined;
    this.memo = { ground, runs: {}, subjects: new Map(), kinds: new Map() };
  }

  /**
   * When the kinds rule `rule` runs over hold the objects they held in the earlier check: those objects (of
   * `objectsByKind`) whose earlier runs do not stand, and the findings of those that stand. Else undefined: each
   * object is asked in turn (`recalled`). Either way, what the rule runs again is then recorded with `keep`.
   */
  standing(rule: string, objectsByKind: readonly (readonly [ObjectKind, readonly PackageObject[]])[]): Standing | undefined {
    const previous = this.previous;
    // Every kind's objects are named, so that the memo holds them for the next check.
    const named = objectsByKind.map(([kind, objects]) => [kind, this.subjectsOf(kind, objects)] as const);
    if (previous === undefined || !named.every(([kind, subjects]) => subjects !== undefined && subjects === previous.subjects.get(kind))) return undefined;
    const again = new Set(objectsByKind.flatMap(([kind, objects]) => this.changedOf(kind, objects)));
    const found = new Map<PackageObject, readonly Finding[]>();
    const runs = previous.runs[rule] ?? new Map<string, Run>();
    // `forEach`, not `for…of`: this loop (~15,000 runs) ends before V8 optimises it, and unoptimised code
    // allocates an iterator result and an entry a step.
    runs.forEach((run, subject) => {
      const object = this.objectsBySubject.get(subject);
      if (object === undefined) runs.delete(subject);
      else if (again.has(object)) return;
      else if (this.askedChanged(run)) again.add(object);
      else {
        if (run.findings.length > 0) found.set(object, run.findings);
        this.keepKindsOf(run);
      }
    });
    // The runs that stand are kept as they are; `keep` replaces or drops those run again.
    this.memo.runs[rule] = runs;
    const count = objectsByKind.reduce((sum, [, objects]) => sum + objects.length, 0);
    this.runs.total += count - again.size;
    this.runs.taken += count - again.size;
    return { again, found };
  }

  /** The earlier run of rule `rule` over `object` when nothing it depends on changed since, else undefined. */
  recalled(rule: string, object: PackageObject): Run | undefined {
    this.runs.asked++;
    if (this.previous === undefined || this.changedSince(object.document)) return undefined;
    const run = this.previous.runs[rule]?.get(this.subjectOf(object));
    if (run === undefined) return NOTHING; // it found and asked nothing, and its object is as it was
    return this.askedChanged(run) ? undefined : run;
  }

  /** Records `run` (rule `rule` over `object`) for the next check; `taken` when it is the earlier run. */
  keep(rule: string, object: PackageObject, run: Run, taken: boolean): void {
    this.runs.total++;
    if (taken) this.runs.taken++;
    const runs = (this.memo.runs[rule] ??= new Map());
    if (run.findings.length === 0 && run.lookups.length === 0 && run.kinds.length === 0) {
      runs.delete(this.subjectOf(object)); // an earlier run `standing` kept
      return;
    }
    runs.set(this.subjectOf(object), run);
    this.keepKindsOf(run);
  }

  /** The memo of this check. */
  made(): RuleMemo {
    return this.memo;
  }

  /** How many runs of object rules this check took from the earlier one. */
  counted(): ObjectRuns {
    return { ...this.runs };
  }

  /** Keeps in the memo what each kind `run` listed or looked up in is now. */
  private keepKindsOf(run: Run): void {
    const { kinds, lookups } = run;
    for (let at = 0; at < kinds.length; at++) this.keepKind(kinds[at]!);
    for (let at = 1; at < lookups.length; at += 4) {
      const kind = lookups[at]!;
      if (this.lookedUpKept.has(kind)) continue;
      this.lookedUpKept.add(kind);
      for (const listed of lookedUpKinds(kind)) this.keepKind(listed);
    }
  }

  private keepKind(kind: string): void {
    if (!this.memo.kinds.has(kind)) this.memo.kinds.set(kind, this.kindNow(kind));
  }

  /**
   * The `subjectKey`s of `objects` (those of `kind`), a line each, kept in the memo — made once a check, with the
   * objects by key; undefined when two objects share a key.
   */
  private subjectsOf(kind: ObjectKind, objects: readonly PackageObject[]): string | undefined {
    if (this.subjectsNow.has(kind)) return this.subjectsNow.get(kind);
    const keys = objects.map(subjectKey);
    let shared = false;
    for (let i = 0; i < keys.length; i++) {
      if (this.objectsBySubject.has(keys[i]!)) shared = true;
      this.objectsBySubject.set(keys[i]!, objects[i]!);
    }
    const subjects = shared ? undefined : keys.join('\n');
    this.subjectsNow.set(kind, subjects);
    if (subjects !== undefined) this.memo.subjects.set(kind, subjects);
    return subjects;
  }

  /** The objects of `kind` (`objects`) whose documents changed since the earlier check, found once a check. */
  private changedOf(kind: ObjectKind, objects: readonly PackageObject[]): PackageObject[] {
    let changed = this.changedOfKind.get(kind);
    if (changed === undefined) this.changedOfKind.set(kind, (changed = objects.filter((object) => this.changedSince(object.document))));
    return changed;
  }

  private askedChanged(run: Run): boolean {
    const { lookups } = run;
    for (let at = 0; at < lookups.length; at += 4) {
      const kind = lookups[at + 1]!;
      const file = lookups[at + 3]!;
      if (this.lookupsChanged(kind)) {
        const found = this.workspace.lookup(lookups[at]!, kind as ObjectKind, lookups[at + 2]!);
        if ((found?.file ?? '') !== file || (found !== undefined && this.changedSince(found.document))) return true;
      } else if (file !== '' && this.fileChanged(file)) {
        return true;
      }
    }
    return run.kinds.length > 0 && run.kinds.some((kind) => this.kindChanged(kind));
  }

  /** Whether what a lookup of `kind` finds may differ from what it found in the earlier check: its objects differ. */
  private lookupsChanged(kind: string): boolean {
    let changed = this.kindsLookedUpChanged.get(kind);
    if (changed === undefined) {
      changed = lookedUpKinds(kind).some((listed) => this.previous?.kinds.get(listed) !== this.kindNow(listed));
      this.kindsLookedUpChanged.set(kind, changed);
    }
    return changed;
  }

  /** Whether the document of `file` (as a lookup found it) changed since the earlier check, or is gone. */
  private fileChanged(file: string): boolean {
    let changed = this.filesChanged.get(file);
    if (changed === undefined) {
      const document = this.workspace.documents().get(file);
      this.filesChanged.set(file, (changed = document === undefined || this.changedSince(document)));
    }
    return changed;
  }

  private kindChanged(kind: string): boolean {
    let changed = this.kindsChanged.get(kind);
    if (changed === undefined) {
      changed = this.previous?.kinds.get(kind) !== this.kindNow(kind) || (kind.startsWith('files:') && this.objectsOf(kind).some((object) => this.changedSince(object.document)));
      this.kindsChanged.set(kind, changed);
    }
    return changed;
  }

  /** What `ids:<kind>` or `files:<kind>` is now: the identities (with their packages) or the files of the kind's objects. */
  private kindNow(kind: string): string {
    let now = this.kindsNow.get(kind);
    if (now === undefined) {
      const objects = this.objectsOf(kind);
      now = kind.startsWith('ids:') ? objects.map((object) => `${object.package}\0${object.id}`).join('\n') : objects.map((object) => object.file).join('\n');
      this.kindsNow.set(kind, now);
    }
    return now;
  }

  private subjectOf(object: PackageObject): string {
    let key = this.subjects.get(object);
    if (key === undefined) this.subjects.set(object, (key = subjectKey(object)));
    return key;
  }

  private objectsOf(kind: string): PackageObject[] {
    return this.workspace.objects(kind.slice(kind.indexOf(':') + 1) as ObjectKind);
  }

  private changedSince(document: SourceDocument): boolean {
    let changed = this.changed.get(document);
    if (changed === undefined) this.changed.set(document, (changed = this.memory.changedSince(document)));
    return changed;
  }
}

/** What the memo keeps of a kind looked up in: its identities and its files (see `Recall.lookupsChanged`). */
function lookedUpKinds(kind: string): [string, string] {
  return [`ids:${kind}`, `files:${kind}`];
}

/** Names an object among the runs of a rule. */
function subjectKey(object: PackageObject): string {
  return `${object.file}\0${object.ref}`;
}

/**
 * What every run of an object rule may depend on besides objects, as text (the packages in order, the files of
 * the documents that are not objects, the files that failed stage 1), with those documents — an earlier memo
 * stands only when the text is the same and none of them changed.
 */
function groundOf(workspace: Workspace, invalid: ReadonlySet<SourceDocument>): { ground: string; documents: SourceDocument[] } {
  const objects = new Set(workspace.objects().map((object) => object.document));
  const documents = [...workspace.documents().values()].filter((document) => !objects.has(document));
  const failed = [...invalid].map((document) => document.file).sort();
  const ground = JSON.stringify([workspace.packages.map((pkg) => pkg.key), documents.map((document) => document.file), failed]);
  return { ground, documents };
}
