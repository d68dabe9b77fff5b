/**
 * How the core reads the files of a package (compat-core-packages §2, §3) — the same for `/packages:test`,
 * `/packages:plan` and `/packages:apply`: files in sorted path order; `package.yaml` the manifest, `tests/**`
 * the tests, `i18n/*` the dictionaries, every other `.yaml`/`.yml` outside `schemas/`, `.layout/`, `tests/`,
 * `i18n/` a catalog object; strict single-document YAML 1.2; the envelope with the core's kinds; a Process's
 * `data: {$ref}` inlined; duplicates kept first in path order; tests validated and their subjects found; the
 * `${…}` workspaceId of a Process or WorkRule standing for the request's workspace.
 */
import { posix } from 'node:path';
import type { SourceDocument } from '../json/document.js';
import { isRecord } from '../json/guards.js';
import { parseSourceText, SOURCE_CHARACTER_LIMIT } from '../load/source.js';
import type { Finding } from '../model/finding.js';
import { reduceSchemaErrors } from '../schema/errors.js';
import { validatorFor } from '../schema/validators.js';
import type { PackageFile } from '../contract/packages.js';
import { byCodePoint } from '../json/canonical.js';
import { type Problem, problemAt, problemIn } from './problems.js';

/** The kinds the core knows; a file of any other kind (a KnowledgePack too) is `unknown_kind`. */
export const CORE_KINDS = [
  'Package', 'Installation', 'ArtifactType', 'TaskType', 'ProjectTemplate', 'WorkspaceType', 'Role', 'Capability', 'ConnectionType',
  'Skill', 'WorkRule', 'Agent', 'NotificationRule', 'Process', 'Calendar', 'View', 'Component',
] as const;

const SLUG_KEY_KINDS = new Set(['Process', 'Calendar', 'View', 'Component']);
const SLUG_KEY = /^[a-z0-9][a-z0-9_-]{0,62}$/;
const NOT_OBJECTS = new Set(['schemas', '.layout', 'tests', 'i18n']);
const MANIFEST = 'package.yaml';
/** The whole value is one `${…}`: the workspace the request names. */
const INSTALL_VARIABLE = /^\$\{[^}]*\}$/;
/** The core keeps at most this many `invalid_test` errors of one test file. */
const MAX_TEST_ERRORS = 20;

export interface SourceObject {
  kind: string;
  key: string;
  /** The spec as the core plans it: the data schema inlined, the install variable resolved. */
  spec: Record<string, unknown>;
  file: string;
  document: SourceDocument;
  /** A WorkRule whose `${…}` workspaceId the request does not resolve: it is in the package, but cannot be planned. */
  unresolved?: true;
}

export type TestSubject = 'process' | 'rule' | 'taskType';

export interface SourceTest {
  file: string;
  document: SourceDocument;
  subject: TestSubject;
  /** The key of its subject (`process`, `rule` or `taskType`). */
  target: string;
}

export interface PackageSource {
  /** The manifest's key and `spec.version`, null without a manifest. */
  key: string | null;
  version: string | null;
  manifest?: { document: SourceDocument; spec: Record<string, unknown> };
  /** Catalog objects in path order, the first of each Kind/key. */
  objects: SourceObject[];
  /** Tests that are valid and name a subject of the package. */
  tests: SourceTest[];
  /** Every path under `tests/` read as a test, valid or not. */
  testFiles: ReadonlySet<string>;
  problems: Problem[];
}

const SUBJECT_KIND: Readonly<Record<TestSubject, string>> = { process: 'Process', rule: 'WorkRule', taskType: 'TaskType' };
const UNKNOWN_SUBJECT: Readonly<Record<TestSubject, string>> = { process: 'unknown_test_process', rule: 'unknown_test_rule', taskType: 'unknown_test_task_type' };
/** Fields only a process test runs: a rule or task-type test that sets them has them ignored. */
const PROCESS_TEST_FIELDS = ['/version', '/mocks/agents', '/mocks/recall'];

/** Reads a package as the core does; `workspaceId` is the request's, which a `${…}` workspaceId stands for. */
export async function readPackageSource(files: readonly PackageFile[], workspaceId: string | null): Promise<PackageSource> {
  const sorted = byPath(files);
  const contents = new Map(sorted.map((file) => [file.path, file.content]));
  const source: PackageSource = { key: null, version: null, objects: [], tests: [], testFiles: new Set(), problems: [] };
  const testDocuments: SourceDocument[] = [];
  const seen = new Map<string, string>();
  const characters = sorted.reduce((sum, file) => sum + file.content.length, 0);
  if (characters > SOURCE_CHARACTER_LIMIT) {
    // Refused before any file is parsed, so one request cannot hold the core for long.
    source.problems.push(problemAt(MANIFEST, null, 'invalid_yaml', '', `the package has ${characters} characters of source, over the core's limit of ${SOURCE_CHARACTER_LIMIT}`));
    return source;
  }
  for (const file of sorted) {
    const role = roleOf(file.path);
    if (role === 'none') continue;
    const document = parseFile(file.path, file.content, source.problems);
    await otherRequestsFirst();
    if (role === 'test') (source.testFiles as Set<string>).add(file.path);
    if (!document) continue;
    if (role === 'manifest') readManifest(document, source);
    else if (role === 'test') testDocuments.push(document);
    else if (role === 'object') {
      const object = readObject(document, source.problems);
      if (object && inlineDataSchema(object, contents, source.problems)) {
        resolveInstallVariable(object, workspaceId, source.problems);
        keepFirst(object, seen, source);
      }
    }
  }
  if (!source.manifest) source.problems.push(problemAt(MANIFEST, null, 'package_manifest_missing', '', 'the package has no manifest: package.yaml with kind: Package'));
  for (const document of testDocuments) {
    const test = await readTest(document, source);
    if (test) source.tests.push(test);
  }
  return source;
}

/** Lets the requests that arrived meanwhile (a health check) be answered between two files of a large package. */
function otherRequestsFirst(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The files in the core's order: their paths sorted as plain strings, by code points (the core's `sorted`). */
export function byPath<T extends { path: string }>(files: readonly T[]): T[] {
  return [...files].sort((a, b) => byCodePoint(a.path, b.path));
}

type Role = 'manifest' | 'test' | 'dictionary' | 'object' | 'none';

/** What the core reads a path as; `none` is only a target of `$ref`. */
function roleOf(path: string): Role {
  const first = path.split('/')[0]!;
  if (path === MANIFEST) return 'manifest';
  if (first === 'tests') return /\.test\.ya?ml$/.test(path) ? 'test' : 'none';
  if (first === 'i18n') return /^i18n\/[^/]+\.ya?ml$/.test(path) ? 'dictionary' : 'none';
  if (NOT_OBJECTS.has(first) || !/\.ya?ml$/.test(path)) return 'none';
  return 'object';
}

function parseFile(path: string, content: string, problems: Problem[]): SourceDocument | undefined {
  const parsed = parseSourceText(content, path);
  for (const finding of parsed.findings) problems.push(loadProblem(finding, /\.json$/.test(path) ? 'invalid_json' : 'invalid_yaml'));
  return parsed.document;
}

function loadProblem(finding: Finding, code: string): Problem {
  return problemAt(finding.file, finding.line, code, '', finding.message);
}

function readManifest(document: SourceDocument, source: PackageSource): void {
  const envelope = checkEnvelope(document, source.problems);
  if (!envelope) return;
  if (envelope.kind !== 'Package') {
    source.problems.push(problemIn(document, 'invalid_document', '/kind', `${MANIFEST} holds the package manifest: kind must be Package, not ${envelope.kind}`));
    return;
  }
  source.manifest = { document, spec: envelope.spec };
  source.key = envelope.key;
  const version = envelope.spec.version;
  source.version = version === undefined || version === null ? null : String(version);
}

interface Envelope {
  kind: string;
  key: string;
  spec: Record<string, unknown>;
}

/** The envelope, or undefined after the first of its problems (each at its member). */
function checkEnvelope(document: SourceDocument, problems: Problem[]): Envelope | undefined {
  const value = document.value;
  const refuse = (code: string, pointer: string, message: string): undefined => {
    problems.push(problemIn(document, code, pointer, message));
    return undefined;
  };
  if (!isRecord(value)) return refuse('invalid_document', '', 'a package file is a mapping {apiVersion, kind, key, spec}');
  if (typeof value.apiVersion !== 'string' || !value.apiVersion.endsWith('/v1')) return refuse('invalid_document', '/apiVersion', 'apiVersion must be a string ending in /v1 (taimen.ai/v1)');
  if (typeof value.kind !== 'string' || !(CORE_KINDS as readonly string[]).includes(value.kind)) {
    return refuse('unknown_kind', '/kind', `unknown kind ${JSON.stringify(value.kind)}: the core knows ${CORE_KINDS.join(', ')}`);
  }
  if (typeof value.key !== 'string' || value.key === '') return refuse('invalid_document', '/key', 'key must be a non-empty string');
  if (SLUG_KEY_KINDS.has(value.kind) && !SLUG_KEY.test(value.key)) {
    return refuse('invalid_document', '/key', `the key of a ${value.kind} is lowercase letters, digits, - and _ (at most 63, starting with a letter or digit)`);
  }
  if (!isRecord(value.spec)) return refuse('invalid_document', '/spec', 'spec must be a mapping');
  return { kind: value.kind, key: value.key, spec: value.spec };
}

function readObject(document: SourceDocument, problems: Problem[]): SourceObject | undefined {
  const envelope = checkEnvelope(document, problems);
  return envelope && { ...envelope, spec: { ...envelope.spec }, file: document.file, document };
}

/** `spec.data: {$ref: file}` of a Process, replaced by the schema it names (relative to the process file, inside the package). */
function inlineDataSchema(object: SourceObject, files: ReadonlyMap<string, string>, problems: Problem[]): boolean {
  const data = object.spec.data;
  if (object.kind !== 'Process' || !isRecord(data) || typeof data.$ref !== 'string') return true;
  const ref = data.$ref;
  if (ref.startsWith('#') || ref.includes('://')) return true;
  const target = posix.normalize(posix.join(posix.dirname(object.file), ref));
  const content = target.startsWith('../') || target.startsWith('/') ? undefined : files.get(target);
  const parsed = content === undefined ? undefined : (/\.(json|ya?ml)$/.test(target) ? parseSourceText(content, target) : undefined);
  const schema = parsed?.document?.value;
  if (!isRecord(schema)) {
    const why = content === undefined ? 'names no file of the package' : 'is not a YAML or JSON object';
    problems.push(problemIn(object.document, 'unresolved_data_ref', '/spec/data/$ref', `data.$ref '${ref}' ${why}`));
    return false;
  }
  object.spec.data = schema;
  return true;
}

/**
 * A workspaceId written `${…}` stands for the request's workspace: a Process without one loses the member, a
 * WorkRule without one cannot be planned (`unresolved_install_variable`).
 */
function resolveInstallVariable(object: SourceObject, workspaceId: string | null, problems: Problem[]): void {
  const value = object.spec.workspaceId;
  if ((object.kind !== 'Process' && object.kind !== 'WorkRule') || typeof value !== 'string' || !INSTALL_VARIABLE.test(value)) return;
  if (workspaceId !== null) object.spec.workspaceId = workspaceId;
  else if (object.kind === 'Process') delete object.spec.workspaceId;
  else {
    object.unresolved = true;
    problems.push(problemIn(object.document, 'unresolved_install_variable', '/spec/workspaceId', `${value} stands for the workspace of the installation, and the request names none`, {
      hint: 'pass workspaceId with the plan and the apply',
    }));
  }
}

/** The first object of a Kind/key in path order is the package's; a later one is `duplicate_object`. */
function keepFirst(object: SourceObject, seen: Map<string, string>, source: PackageSource): void {
  const version = object.spec.version;
  const id = object.kind === 'Skill' ? `Skill/${object.key}@${String(version)}` : `${object.kind}/${object.key}`;
  const first = seen.get(id);
  if (first !== undefined) {
    source.problems.push(problemIn(object.document, 'duplicate_object', '/key', `${id} is also defined in ${first}`));
    return;
  }
  seen.set(id, object.file);
  source.objects.push(object);
}

async function readTest(document: SourceDocument, source: PackageSource): Promise<SourceTest | undefined> {
  const validate = await validatorFor('test');
  if (!validate(document.value)) {
    const mistakes = reduceSchemaErrors(validate.errors ?? []).slice(0, MAX_TEST_ERRORS);
    for (const mistake of mistakes) source.problems.push(problemIn(document, 'invalid_test', mistake.pointer, mistake.message));
    return undefined;
  }
  const value = document.value as Record<string, unknown>;
  const subject = (value.subject ?? 'process') as TestSubject;
  const target = String(value[subject]);
  if (!source.objects.some((object) => object.kind === SUBJECT_KIND[subject] && object.key === target)) {
    source.problems.push(problemIn(document, UNKNOWN_SUBJECT[subject], `/${subject}`, `the test is about ${SUBJECT_KIND[subject]} ${target}, which the package does not have`));
    return undefined;
  }
  if (subject !== 'process') {
    for (const pointer of PROCESS_TEST_FIELDS.filter((field) => has(value, field))) {
      source.problems.push(problemIn(document, 'test_field_ignored', pointer, `${pointer.slice(1).replace('/', '.')} is for process tests: a ${subject} test ignores it`, { severity: 'warning' }));
    }
  }
  return { file: document.file, document, subject, target };
}

function has(value: Record<string, unknown>, pointer: string): boolean {
  const [first, second] = pointer.slice(1).split('/') as [string, string | undefined];
  const member = value[first];
  return second === undefined ? member !== undefined : isRecord(member) && member[second] !== undefined;
}
