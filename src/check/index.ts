import type { SourceDocument } from '../json/document.js';
import { valueAt } from '../json/pointer.js';
import { activeParseCache } from '../load/parse-cache.js';
import { withOverlay, type Overlay } from '../load/overlay.js';
import { loadTargets, type TargetOptions } from '../load/targets.js';
import { isError, type Finding } from '../model/finding.js';
import type { LooseFile, Workspace } from '../model/workspace.js';
import type { SchemaName } from '../schema/names.js';
import { RULES } from './rules/index.js';
import { isOwnedField, runRules } from './rule.js';
import { schemaFindings } from './schema-stage.js';

export interface CheckOptions extends TargetOptions {
  /** Texts checked in place of the files they name (absolute paths): an editor's unsaved buffers. */
  overlay?: Overlay;
}

/** Manifest fields whose schema errors a rule reports with its own codes (settings, version ranges). */
const OWNED_MANIFEST_FIELDS = RULES.flatMap((rule) => rule.ownsManifestFields ?? []);
/** Object kinds whose schema errors a rule reports with its own codes (View, Component). */
const OWNED_KINDS: ReadonlySet<string> = new Set(RULES.flatMap((rule) => rule.ownsSchemaOf ?? []));

/** What `check` returns, and what `check --json` prints. */
export interface CheckReport {
  ok: boolean;
  errors: Finding[];
  warnings: Finding[];
  /** What was not checked, and why (an object the core's checks skip): never counted, never silenced. */
  notes: Finding[];
  /** Findings silenced by `# package-sdk-disable-next-line <code>`: reported, never silent. */
  suppressed: Finding[];
  packages: number;
  objects: number;
  tests: number;
}

/** The result of a check with the loaded workspace, for renderers that draw code frames. */
export interface CheckResult {
  report: CheckReport;
  workspace: Workspace;
}

/**
 * Loads the targets, validates every document against its schema (stage 1), runs the rules over the
 * documents that passed (stage 2), and reports.
 */
export async function check(options: CheckOptions = {}): Promise<CheckResult> {
  const workspace = await withOverlay(options.overlay, () => loadTargets(options));
  const findings = [...workspace.findings];
  const invalid = new Set<SourceDocument>();
  const deferred = new Map<SourceDocument, Finding[]>();
  const manifests = new Set(workspace.packages.map((pkg) => pkg.manifest));
  const owned = new Set(workspace.objects().filter((object) => OWNED_KINDS.has(object.kind)).map((object) => object.document));
  const cache = activeParseCache();
  for (const [document, schema] of schemaTargets(workspace)) {
    if (cache?.isClean(document, schema)) continue;
    const problems = (await schemaFindings(document, schema)).filter((finding) => !isGitSourceUrl(workspace, document, finding));
    if (problems.length === 0) cache?.markClean(document, schema);
    if (problems.length > 0 && owned.has(document)) {
      deferred.set(document, problems); // the owning rule reports them, in its own codes
      invalid.add(document);
      continue;
    }
    if (problems.length > 0 && manifests.has(document) && problems.every((f) => isOwnedField(OWNED_MANIFEST_FIELDS, f.path))) {
      deferred.set(document, problems); // the owning rules report them, in their own codes
      continue;
    }
    if (problems.length > 0) invalid.add(document);
    findings.push(...problems);
  }
  const documents = workspace.documents();
  cache?.flush();
  for (const finding of workspace.findings) {
    const document = documents.get(finding.file);
    if (document && finding.severity === 'error') invalid.add(document);
  }
  findings.push(...runRules(workspace, RULES, invalid, deferred));
  const marked = findings.map((finding) => markSuppressed(finding, documents.get(finding.file)));
  marked.sort(byPlace);
  const errors = marked.filter(isError);
  return {
    workspace,
    report: {
      ok: errors.length === 0,
      errors,
      warnings: marked.filter((f) => f.severity === 'warning' && !f.suppressed),
      notes: marked.filter((f) => f.severity === 'note' && !f.suppressed),
      suppressed: marked.filter((f) => f.suppressed),
      packages: workspace.packages.length,
      objects: workspace.packages.reduce((n, pkg) => n + pkg.objects.length, 0) + workspace.files.filter((f) => f.role === 'object').length,
      tests: workspace.packages.reduce((n, pkg) => n + pkg.tests.length, 0) + workspace.files.filter((f) => f.role === 'test').length,
    },
  };
}

/**
 * The URL of an installation's git source is judged by the one source policy of every command (git_url_invalid,
 * which also admits the loopback and file URLs lock and plan use on one machine), not by the published pattern.
 */
function isGitSourceUrl(workspace: Workspace, document: SourceDocument, finding: Finding): boolean {
  return document === workspace.installation?.document && /^\/spec\/packages\/\d+\/git$/.test(finding.path) &&
    typeof valueAt(document.value, finding.path) === 'string';
}

/** Every document that has a public schema, with that schema. */
function* schemaTargets(workspace: Workspace): Generator<[SourceDocument, SchemaName]> {
  if (workspace.installation) yield [workspace.installation.document, 'object'];
  for (const pkg of workspace.packages) {
    yield [pkg.manifest, 'object'];
    for (const object of pkg.objects) yield [object.document, 'object'];
    for (const test of pkg.tests) yield [test.document, 'test'];
    for (const template of pkg.templates) yield [template.document, 'knowledge-template'];
  }
  for (const file of workspace.files) {
    const schema = schemaOfLooseFile(file);
    if (schema) yield [file.document, schema];
  }
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

function markSuppressed(finding: Finding, document: SourceDocument | undefined): Finding {
  const codes = document?.suppressions.get(finding.line);
  return codes?.includes(finding.code) ? { ...finding, suppressed: true } : finding;
}

function byPlace(a: Finding, b: Finding): number {
  return a.file.localeCompare(b.file) || a.line - b.line || a.column - b.column || a.code.localeCompare(b.code);
}
