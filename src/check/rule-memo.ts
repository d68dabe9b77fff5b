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
 *
 * The memo is read and written whole at each check, so it is kept in few values: a run is named by its object's
 * place (the kind and the place among the kind's objects) and holds its lookups as one text; a 10,000-object
 * memo is then a few thousand strings rather than 50,000.
 */
import type { SourceDocument } from '../json/document.js';
import type { Finding } from '../model/finding.js';
import { OBJECT_KINDS, type ObjectKind } from '../model/kinds.js';
import type { PackageObject } from '../model/package.js';
import type { Workspace } from '../model/workspace.js';

/** What a check keeps of its object rules' runs for the next check of the same targets. */
export interface RuleMemo {
  /** See `groundOf`. */
  ground: string;
  /** By kind, the `subjectKey`s of the objects the runs were made over, in order, a line each. */
  subjects: Map<string, string>;
  /**
   * By rule id, by object (`placeOf`: its kind and its place among the kind's `subjects`): what a run found and
   * asked; runs that found and asked nothing are left out.
   */
  runs: Record<string, Map<number, Run>>;
  /**
   * What each kind some run listed was when the memo was made (see `Asked.kinds`), by `ids:<kind>` or
   * `files:<kind>`; the kinds some run looked up in are kept the same way (see above).
   */
  kinds: Map<string, string>;
}

/** One run of an object rule over one object. */
export interface Run {
  /** What it found; absent for nothing. */
  findings?: Finding[];
  /**
   * Four fields a lookup — the package asking, the kind, the identity, and the file of the object found ('' for
   * none) — all joined by NUL; '' for no lookup, `UNREADABLE` when a field holds a NUL.
   */
  lookups: string;
  /** `ids:<kind>` for the identities of a kind, `files:<kind>` for its objects' documents; absent for none. */
  kinds?: string[];
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

const NOTHING: Run = { lookups: '' };

/** The lookups of a run one of whose fields holds a NUL (see `Asked.run`): never read back, so never standing. */
const UNREADABLE = '\0';

/** What one run asked the context, as it runs. */
export class Asked {
  /** By what was asked (package, kind and identity: each lookup kept once), the four fields of a lookup. */
  private readonly lookups = new Map<string, string>();
  /** Whether a package or identity asked for holds a NUL (a YAML string may): the fields would shift. */
  private unreadable = false;
  readonly kinds = new Set<string>();

  lookedUp(from: string, kind: ObjectKind, id: string, found: PackageObject | undefined): void {
    const asked = `${from}\0${kind}\0${id}`;
    if (from.includes('\0') || id.includes('\0')) this.unreadable = true;
    this.lookups.set(asked, `${asked}\0${found?.file ?? ''}`);
  }

  run(findings: Finding[]): Run {
    return {
      lookups: this.unreadable ? UNREADABLE : [...this.lookups.values()].join('\0'),
      ...(findings.length > 0 ? { findings } : {}),
      ...(this.kinds.size > 0 ? { kinds: [...this.kinds] } : {}),
    };
  }
}

/** Changed files past which a run's lookups are read rather than searched for their names (`Recall.mayHaveChanged`). */
const TEXT_TESTS = 16;

/** An object's kind and place among the kind's objects, as one number (see `RuleMemo.runs`). */
const PLACES_A_KIND = 2 ** 24;

/** Of the objects a rule runs over, those whose earlier runs do not stand, and the findings of those that do. */
export interface Standing {
  again: ReadonlySet<PackageObject>;
  found: ReadonlyMap<PackageObject, readonly Finding[]>;
}

/**
 * The memo of this check as it is made, and the earlier one where it still speaks for an object: `standing` or
 * `recalled` answers whether a rule's earlier run over an object stands, `keep` records each run for the next
 * check. Objects are named by their kind and their place among the objects of the kind the rule is given.
 */
export class Recall {
  private readonly previous: RuleMemo | undefined;
  private readonly memo: RuleMemo;
  private readonly changed = new Map<SourceDocument, boolean>();
  private readonly kindsChanged = new Map<string, boolean>();
  /** `lookupsChanged` by kind. */
  private readonly kindsLookedUpChanged = new Map<string, boolean>();
  /** `kindNow` of each kind asked, made once (compared with the earlier memo, then kept in this one). */
  private readonly kindsNow = new Map<string, string>();
  /** By kind, the `subjectKey`s of its objects (`subjectsOf`), and the text kept of them (undefined: not kept). */
  private readonly subjectsNow = new Map<ObjectKind, { keys: string[]; text: string | undefined }>();
  /** By kind, the place in the earlier memo of each `subjectKey` it named once (`earlierPlaceOf`). */
  private readonly earlierPlaces = new Map<ObjectKind, Map<string, number>>();
  /** The objects whose documents changed since the earlier check (`changedObjects`), found in one pass. */
  private changedSinceEarlier: PackageObject[] | undefined;
  /** `changedLookupKinds`, found once. */
  private lookupKindsChanged: string[] | undefined;
  /** Whether this memo is known to differ from the earlier one (see `asBefore`). */
  private differs: boolean;
  /** Runs taken from the earlier memo, and runs in all (see `ObjectRuns`). */
  private readonly runs: ObjectRuns = { taken: 0, total: 0, asked: 0 };

  constructor(
    private readonly workspace: Workspace,
    private readonly invalid: ReadonlySet<SourceDocument>,
    private readonly memory: RuleMemory,
  ) {
    const { ground, documents } = groundOf(workspace, invalid);
    const standing = memory.previous?.ground === ground && !documents.some((document) => this.changedSince(document));
    this.previous = standing ? memory.previous : undefined;
    this.differs = this.previous === undefined;
    this.memo = { ground, runs: {}, subjects: new Map(), kinds: new Map() };
    // What the kinds looked up in are now: the runs taken keep their lookups as text, not read again.
    for (const kind of this.previous?.kinds.keys() ?? []) this.keepKind(kind);
  }

  /**
   * When the kinds rule `rule` runs over hold the objects they held in the earlier check: those objects (of
   * `objectsByKind`) whose earlier runs do not stand, and the findings of those that stand. Else undefined: each
   * object is asked in turn (`recalled`). Either way, what the rule runs again is then recorded with `keep`.
   */
  standing(rule: string, objectsByKind: readonly (readonly [ObjectKind, readonly PackageObject[]])[]): Standing | undefined {
    const previous = this.previous;
    // Every kind's objects are named, so that the memo holds them for the next check.
    const named = objectsByKind.map(([kind, objects]) => [kind, this.subjectsOf(kind, objects).text] as const);
    if (previous === undefined || !named.every(([kind, text]) => text !== undefined && text === previous.subjects.get(kind))) return undefined;
    const again = new Set(objectsByKind.flatMap(([kind]) => this.changedOf(kind)));
    const found = new Map<PackageObject, readonly Finding[]>();
    const objectsOfKind = new Map(objectsByKind.map(([kind, objects]) => [OBJECT_KINDS.indexOf(kind), objects]));
    const runs = previous.runs[rule] ?? new Map<number, Run>();
    // `forEach`, not `for…of`: this loop (thousands of runs) ends before V8 optimises it, and unoptimised code
    // allocates an iterator result and an entry a step.
    runs.forEach((run, place) => {
      const object = objectsOfKind.get(Math.floor(place / PLACES_A_KIND))?.[place % PLACES_A_KIND];
      if (object === undefined) {
        runs.delete(place);
        this.differs = true;
      } else if (again.has(object)) return;
      else if (this.askedChanged(run)) again.add(object);
      else if (run.findings) found.set(object, run.findings);
    });
    // The runs that stand are kept as they are; `keep` replaces or drops those run again.
    this.memo.runs[rule] = runs;
    const count = objectsByKind.reduce((sum, [, objects]) => sum + objects.length, 0);
    this.runs.total += count - again.size;
    this.runs.taken += count - again.size;
    return { again, found };
  }

  /**
   * The earlier run of rule `rule` over `object` (the `index`th of `kind`'s) when nothing it depends on changed
   * since, else undefined.
   */
  recalled(rule: string, kind: ObjectKind, index: number, object: PackageObject): Run | undefined {
    this.runs.asked++;
    this.differs = true; // its runs are named anew
    if (this.previous === undefined || this.changedSince(object.document)) return undefined;
    const place = this.earlierPlaceOf(kind, index);
    if (place === undefined) return undefined;
    const run = this.previous.runs[rule]?.get(place);
    if (run === undefined) return NOTHING; // it found and asked nothing, and its object is as it was
    return this.askedChanged(run) ? undefined : run;
  }

  /** Records `run` (rule `rule` over the `index`th object of `kind`) for the next check; `taken` when it is the earlier run. */
  keep(rule: string, kind: ObjectKind, index: number, run: Run, taken: boolean): void {
    this.runs.total++;
    if (taken) this.runs.taken++;
    const runs = (this.memo.runs[rule] ??= new Map());
    const place = placeOf(kind, index);
    if (!taken && !sameRun(runs.get(place) ?? NOTHING, run)) this.differs = true;
    if (run.lookups === '' && run.findings === undefined && run.kinds === undefined) {
      runs.delete(place); // an earlier run `standing` kept
      return;
    }
    runs.set(place, run);
    for (const listed of run.kinds ?? []) this.keepKind(listed);
    if (run.lookups !== '' && run.lookups !== UNREADABLE && !taken) for (const looked of lookupsOf(run)) for (const listed of lookedUpKinds(looked.kind)) this.keepKind(listed);
  }

  /** The memo of this check. */
  made(): RuleMemo {
    return this.memo;
  }

  /**
   * Whether the memo of this check holds what the earlier one held: every run made again found and asked what it
   * did, and the kinds and objects are as they were (a value edit, mostly). It need not be written again then.
   */
  asBefore(): boolean {
    const { previous, memo } = this;
    return !this.differs && previous !== undefined && sameEntries(previous.kinds, memo.kinds) && sameEntries(previous.subjects, memo.subjects);
  }

  /** How many runs of object rules this check took from the earlier one. */
  counted(): ObjectRuns {
    return { ...this.runs };
  }

  private keepKind(kind: string): void {
    if (!this.memo.kinds.has(kind)) this.memo.kinds.set(kind, this.kindNow(kind));
  }

  /**
   * The `subjectKey`s of `objects` (those of `kind`), and the text the memo keeps of them (a line each) — made once
   * a check; no text when two objects share a key (the runs over them then stand for neither in a later check).
   */
  private subjectsOf(kind: ObjectKind, objects: readonly PackageObject[]): { keys: string[]; text: string | undefined } {
    let subjects = this.subjectsNow.get(kind);
    if (subjects === undefined) {
      const keys = objects.map(subjectKey);
      const text = new Set(keys).size === keys.length ? keys.join('\n') : undefined;
      this.subjectsNow.set(kind, (subjects = { keys, text }));
      if (text !== undefined) this.memo.subjects.set(kind, text);
    }
    return subjects;
  }

  /** The place in the earlier memo of the object the `index`th of `kind` is now (by its `subjectKey`), if it was named there. */
  private earlierPlaceOf(kind: ObjectKind, index: number): number | undefined {
    let places = this.earlierPlaces.get(kind);
    if (places === undefined) {
      places = new Map();
      this.previous?.subjects.get(kind)?.split('\n').forEach((key, i) => places!.set(key, placeOf(kind, i)));
      this.earlierPlaces.set(kind, places);
    }
    const key = this.subjectsNow.get(kind)?.keys[index];
    return key === undefined ? undefined : places.get(key);
  }

  /** The objects of every kind whose documents changed since the earlier check, found once a check. */
  private changedObjects(): PackageObject[] {
    return (this.changedSinceEarlier ??= this.workspace.objects().filter((object) => this.changedSince(object.document)));
  }

  /** Those of `changedObjects` a rule over `kind` runs over (those that passed stage 1). */
  private changedOf(kind: ObjectKind): PackageObject[] {
    return this.changedObjects().filter((object) => object.kind === kind && !this.invalid.has(object.document));
  }

  /**
   * Whether what `run` asked may now be answered otherwise. Its lookups are read one by one only when their text
   * names a changed file, or a kind whose objects came or went: a test of the text alone clears the others.
   */
  private askedChanged(run: Run): boolean {
    const { lookups } = run;
    if (lookups === UNREADABLE) return true;
    if (lookups !== '' && this.mayHaveChanged(lookups)) {
      for (const { from, kind, id, file } of lookupsOf(run)) {
        if (this.lookupsChanged(kind)) {
          const found = this.workspace.lookup(from, kind as ObjectKind, id);
          if ((found?.file ?? '') !== file || (found !== undefined && this.changedSince(found.document))) return true;
        } else if (file !== '' && this.fileChanged(file)) {
          return true;
        }
      }
    }
    return run.kinds !== undefined && run.kinds.some((kind) => this.kindChanged(kind));
  }

  /**
   * Whether the text of a run's lookups names a changed file or a kind whose objects came or went (false: none of
   * its lookups can find otherwise now). Past a few changed files, every run's lookups are read.
   */
  private mayHaveChanged(lookups: string): boolean {
    const changed = this.changedObjects();
    if (changed.length > TEXT_TESTS) return true;
    for (let i = 0; i < changed.length; i++) if (lookups.includes(changed[i]!.file)) return true;
    const kinds = this.changedLookupKinds();
    for (let i = 0; i < kinds.length; i++) if (lookups.includes(`\0${kinds[i]!}\0`)) return true;
    return false;
  }

  /** The kinds the earlier memo kept whose lookups may find otherwise now (see `lookupsChanged`). */
  private changedLookupKinds(): string[] {
    return (this.lookupKindsChanged ??= [...new Set([...(this.previous?.kinds.keys() ?? [])].map((kept) => kept.slice(kept.indexOf(':') + 1)))].filter((kind) => this.lookupsChanged(kind)));
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
    const document = this.workspace.documents().get(file);
    return document === undefined || this.changedSince(document);
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

  private objectsOf(kind: string): PackageObject[] {
    return this.workspace.objects(kind.slice(kind.indexOf(':') + 1) as ObjectKind);
  }

  private changedSince(document: SourceDocument): boolean {
    let changed = this.changed.get(document);
    if (changed === undefined) this.changed.set(document, (changed = this.memory.changedSince(document)));
    return changed;
  }
}

/** Whether two runs found and asked the same. */
function sameRun(a: Run, b: Run): boolean {
  return a.lookups === b.lookups && (a.kinds ?? []).join('\n') === (b.kinds ?? []).join('\n') && JSON.stringify(a.findings ?? []) === JSON.stringify(b.findings ?? []);
}

/** Whether two maps hold the same keys with the same values. */
function sameEntries(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [key, value] of a) if (b.get(key) !== value) return false;
  return true;
}

/** The lookups of `run`, field by field. */
function lookupsOf(run: Run): { from: string; kind: string; id: string; file: string }[] {
  const fields = run.lookups.split('\0');
  const lookups = [];
  for (let at = 0; at + 3 < fields.length; at += 4) lookups.push({ from: fields[at]!, kind: fields[at + 1]!, id: fields[at + 2]!, file: fields[at + 3]! });
  return lookups;
}

/** Names the `index`th object of `kind` among the runs of a rule. */
function placeOf(kind: ObjectKind, index: number): number {
  return OBJECT_KINDS.indexOf(kind) * PLACES_A_KIND + index;
}

/** What the memo keeps of a kind looked up in: its identities and its files (see `Recall.lookupsChanged`). */
function lookedUpKinds(kind: string): [string, string] {
  return [`ids:${kind}`, `files:${kind}`];
}

/** Names an object among the objects of its kind, from one check to the next. */
function subjectKey(object: PackageObject): string {
  return `${object.file}\0${object.ref}`;
}

/**
 * What every run of an object rule may depend on besides objects, as text (the packages in order, the files of
 * the documents that are not objects, the files that failed stage 1), with those documents — an earlier memo
 * stands only when the text is the same and none of them changed.
 */
function groundOf(workspace: Workspace, invalid: ReadonlySet<SourceDocument>): { ground: string; documents: SourceDocument[] } {
  const documents = workspace.documentsBesideObjects();
  const failed = [...invalid].map((document) => document.file).sort();
  const ground = JSON.stringify([workspace.packages.map((pkg) => pkg.key), documents.map((document) => document.file), failed]);
  return { ground, documents };
}
