/**
 * Stage 1 of `check`, done as the last step of loading: every document that has a public schema is validated
 * against it, so the workspace handed to the rules already says which documents failed (to load, or their
 * schema) and what stage 1 found. The schema findings of a part that a rule reports in its own codes are held
 * back for that rule. The check's index remembers the documents that passed, and is written once all are in.
 */
import type { SourceDocument } from '../json/document.js';
import { matchesPointerPattern } from '../json/pointer.js';
import type { Finding } from '../model/finding.js';
import type { Installation } from '../model/installation.js';
import type { Package } from '../model/package.js';
import { documentsOf, type LooseFile, type StageOne } from '../model/workspace.js';
import type { SchemaName } from '../schema/names.js';
import { schemaFindings } from '../schema/findings.js';
import { activeParseCache } from './parse-cache.js';

/** The parts whose schema findings a rule reports in its own codes. */
export interface SchemaOwnership {
  /** Object kinds (View, Component): their objects' schema findings go to the owning rule. */
  kinds: ReadonlySet<string>;
  /** Manifest fields, as pointer patterns (settings, version ranges): a manifest failing only there still counts. */
  manifestFields: readonly string[];
}

/** What loading found, before stage 1. */
export interface Loaded {
  installation: Installation | undefined;
  packages: readonly Package[];
  files: readonly LooseFile[];
  /** The load's findings: an error marks the document it is about as failed. */
  findings: readonly Finding[];
}

/** Stage 1 over what was loaded. */
export async function stageOne(loaded: Loaded, ownership: SchemaOwnership): Promise<StageOne> {
  const manifests = new Set(loaded.packages.map((pkg) => pkg.manifest));
  const owned = ownedDocuments(loaded.packages, ownership.kinds);
  const verdicts = await schemaVerdicts(loaded);
  const findings: Finding[] = [];
  const invalid = new Set<SourceDocument>();
  const deferred = new Map<SourceDocument, readonly Finding[]>();
  for (const [document, problems] of verdicts) {
    if (manifests.has(document) && problems.every((f) => matchesPointerPattern(ownership.manifestFields, f.path))) {
      deferred.set(document, problems); // the owning rules report them, in their own codes; the manifest still counts
      continue;
    }
    invalid.add(document);
    if (owned.has(document)) deferred.set(document, problems); // the owning rule reports them, in its own codes
    else findings.push(...problems);
  }
  const errors = loaded.findings.filter((finding) => finding.severity === 'error');
  // Most loads have none: the documents by file (10,000 of them in a large package) are gathered only for one.
  const documents = errors.length > 0 ? documentsOf(loaded.installation, loaded.packages, loaded.files) : undefined;
  for (const finding of errors) {
    const document = documents?.get(finding.file);
    if (document) invalid.add(document);
  }
  return { findings, invalid, deferred };
}

/** Each document that failed its schema, with its findings (documents that passed are absent). */
async function schemaVerdicts(loaded: Loaded): Promise<Map<SourceDocument, Finding[]>> {
  const cache = activeParseCache();
  const verdicts = new Map<SourceDocument, Finding[]>();
  const targets = schemaTargets(loaded);
  // Indexed: 10,000 documents before V8 optimises this loop, where `for…of` allocates a result a step.
  for (let i = 0; i < targets.length; i++) {
    const document = targets[i]![0];
    const schema = targets[i]![1];
    if (cache?.isClean(document, schema)) continue; // validated clean by this build before (see `SchemaMemo`)
    const problems = await schemaFindings(document, schema, cache);
    if (problems.length > 0) verdicts.set(document, problems);
  }
  cache?.flush();
  return verdicts;
}

/** The documents of the packages' objects of the owned kinds (a loose file is reported by stage 1 itself). */
function ownedDocuments(packages: readonly Package[], kinds: ReadonlySet<string>): Set<SourceDocument> {
  return new Set(packages.flatMap((pkg) => pkg.objects.filter((object) => kinds.has(object.kind)).map((object) => object.document)));
}

/** Every document that has a public schema, with that schema (a list, not a generator: one resumption a document). */
function schemaTargets({ installation, packages, files }: Loaded): [SourceDocument, SchemaName][] {
  const targets: [SourceDocument, SchemaName][] = [];
  if (installation) targets.push([installation.document, 'object']);
  for (const pkg of packages) {
    targets.push([pkg.manifest, 'object']);
    for (let i = 0; i < pkg.objects.length; i++) targets.push([pkg.objects[i]!.document, 'object']);
    for (const test of pkg.tests) targets.push([test.document, 'test']);
    for (const template of pkg.templates) targets.push([template.document, 'knowledge-template']);
  }
  for (const file of files) {
    const schema = schemaOfLooseFile(file);
    if (schema) targets.push([file.document, schema]);
  }
  return targets;
}

/**
 * A file given on its own: an object, a test (by name, or by its `steps`), a lock or a plan (by its `format`);
 * anything else has no schema.
 */
function schemaOfLooseFile(file: LooseFile): SchemaName | undefined {
  if (file.role === 'object') return 'object';
  const value = file.document.value as { format?: unknown; steps?: unknown } | null;
  if (file.role === 'test' || Array.isArray(value?.steps)) return 'test';
  const format = value?.format;
  if (format === 'package-sdk.lock/v1') return 'lock';
  if (format === 'package-sdk.plan/v1') return 'plan';
  return undefined;
}
