/**
 * Loading one package directory as the core reads it (compat-core-packages.md §2): package.yaml, then every
 * `*.yaml` or `*.yml` below it in path order — objects by their `kind`, `tests/**\/*.test.yaml` as tests,
 * `i18n/*.yaml` as dictionaries, `templates/*.yaml` as upload templates of knowledge kinds (package data of the
 * knowledge side, not catalog objects); `schemas/` and `.layout/` are skipped. A bad file is a
 * finding and the others still load.
 *
 * | code                 | severity | when                                                                        |
 * |----------------------|----------|-----------------------------------------------------------------------------|
 * | package_not_found    | error    | the directory has no package.yaml                                           |
 * | invalid_document     | error    | a file is not `{apiVersion: taimen.ai/v1, kind, key, spec}` (kind and key   |
 * |                      |          | strings, spec a mapping), or package.yaml is not `kind: Package`            |
 * | unknown_kind         | error    | an object file's kind is neither a catalog kind nor View/Component          |
 * | package_key_mismatch | error    | the manifest key differs from the real directory name or from the key the   |
 * |                      |          | installation gives the package                                              |
 * | file_refused         | error    | a symlink that points outside the package, a named pipe or a device          |
 * | unresolved_data_ref  | error    | a Process `spec.data: {$ref}` points outside the package, at no file, at a   |
 * |                      |          | file that does not load, or at something other than a JSON Schema object    |
 * | invalid_yaml, invalid_json, read_failed | error | see yaml.ts, json.ts, source.ts                             |
 */
import type { Dirent } from 'node:fs';
import { readdir, realpath, stat } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { Finding } from '../model/finding.js';
import { didYouMean } from '../model/did-you-mean.js';
import { isObjectKind, OBJECT_KINDS, objectId, objectRef, type ObjectKind } from '../model/kinds.js';
import type { DataSchema, Dictionary, Package, PackageObject, PackageSource, PackageTest, Requirement } from '../model/package.js';
import type { SourceDocument } from '../json/document.js';
import { loadError } from './load-finding.js';
import { childPointer } from '../json/pointer.js';
import { loadSourceFile, reason, settled, sourceFileNow } from './source.js';
import { entryPath, isInside, notRegularReason } from '../fs/read.js';
import { isRecord } from '../json/guards.js';
import { inCodePointOrder } from '../json/canonical.js';
import { activeParseCache } from './parse-cache.js';

export const API_VERSION = 'taimen.ai/v1';
export const MANIFEST = 'package.yaml';
/** Top-level folders of a package that hold no objects. */
const SKIPPED_FOLDERS = new Set(['schemas', '.layout']);
/** The folder of upload template refinements, `templates/<kind>.yaml`. */
const TEMPLATES = 'templates';
/** Test files: `tests/**\/*.test.yaml` (or `.test.yml`). */
const TEST_FILE = /\.test\.ya?ml$/;

export interface LoadPackageOptions {
  /** Directory that displayed file paths are relative to (default: the process's cwd). */
  cwd?: string;
  /** The key the installation expects (`{key, path}` / `{key, git, ref}` entries). */
  expectedKey?: string;
  source?: PackageSource;
}

export interface PackageLoad {
  /** Undefined when the manifest itself could not be loaded. */
  package?: Package;
  findings: Finding[];
}

/** The envelope fields every object file has; `spec` is a mapping. */
export interface Envelope {
  apiVersion: string;
  kind: string;
  key: string;
  spec: Record<string, unknown>;
}

/** Loads the package in `dir`. */
export async function loadPackage(dir: string, options: LoadPackageOptions = {}): Promise<PackageLoad> {
  const cwd = options.cwd ?? process.cwd();
  const absolute = resolve(cwd, dir);
  const show = shownPaths(cwd, absolute, options);
  const manifestPath = join(absolute, MANIFEST);
  let realDir: string;
  try {
    realDir = await realpath(absolute);
    if (!(await stat(join(realDir, MANIFEST))).isFile()) throw new Error('not a file');
  } catch {
    return { findings: [loadError('package_not_found', show(manifestPath), { line: 1, column: 1 }, '', `no ${MANIFEST} in ${show(absolute) || '.'}`)] };
  }
  const findings: Finding[] = [];
  const loaded = await loadEnvelopeFile(manifestPath, show(manifestPath), findings);
  if (loaded === undefined) return { findings };
  const { document: manifest, envelope } = loaded;
  if (envelope.kind !== 'Package') {
    findings.push(at(manifest, 'invalid_document', '/kind', `${MANIFEST} holds kind '${envelope.kind}'; a package manifest is kind: Package`));
    return { findings };
  }
  const key = envelope.key;
  const dirName = basename(realDir);
  // A git checkout is named by its content hash in the cache; the installation's key is checked below.
  const fromGit = options.source !== undefined && 'git' in options.source;
  if (key !== dirName && !fromGit) {
    findings.push(at(manifest, 'package_key_mismatch', '/key', `key '${key}' does not match the directory name '${dirName}'`, `rename the directory or set key: ${dirName}`));
  }
  if (options.expectedKey !== undefined && options.expectedKey !== key) {
    findings.push(at(manifest, 'package_key_mismatch', '/key', `key '${key}' does not match the key '${options.expectedKey}' the installation gives this package`));
  }
  const pkg: Package = {
    key,
    dir: realDir,
    manifest,
    requires: requirementsOf(envelope.spec),
    objects: [],
    tests: [],
    dictionaries: [],
    dataSchemas: [],
    templates: [],
  };
  if (typeof envelope.spec.version === 'string') pkg.version = envelope.spec.version;
  if (options.source !== undefined) pkg.source = options.source;
  const files = await packageFiles(realDir, findings, show);
  const documents = await settled(files.map((path) => sourceFileNow(entryPath(realDir, path), show(entryPath(absolute, path)))));
  const dataFiles = new Map<string, Promise<SourceDocument | string>>();
  for (let index = 0; index < files.length; index++) {
    const path = files[index]!;
    const result = documents[index]!;
    if (result.findings.length > 0) findings.push(...result.findings);
    if (result.document === undefined) continue;
    const top = topFolder(path);
    if (top === 'i18n') pkg.dictionaries.push(dictionary(path, result.document));
    else if (top === 'tests') pkg.tests.push(packageTest(path, result.document, key));
    else if (top === TEMPLATES) pkg.templates.push({ file: result.document.file, document: result.document });
    else {
      const placed = packageObject(result.document, key, findings);
      if (placed === undefined) continue;
      const { object, data } = placed;
      if (object.kind === 'Process' && data !== undefined) await attachDataSchema(object, data, path, pkg, absolute, dataFiles, findings, show);
      pkg.objects.push(object);
    }
  }
  return { package: pkg, findings };
}

/**
 * The package's files to load, relative with `/`, in path order: objects, `tests/**\/*.test.yaml`
 * and `i18n/**\/*.yaml` (and `*.yml`). Each folder is listed in the order of its names and walked in that
 * order, which is path order (see `namesInOrder`): no sort of the whole package's paths.
 */
async function packageFiles(root: string, findings: Finding[], show: (path: string) => string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (dir: string, prefix: string, dotted: boolean): Promise<void> => {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch (error) {
      findings.push(loadError('read_failed', show(dir), { line: 1, column: 1 }, '', `cannot read the directory: ${reason(error)}`));
      return;
    }
    const { names, folders, odd } = namesInOrder(entries);
    // Indexed: a folder of thousands of files is listed before V8 optimises this loop, and unoptimised code
    // allocates an iterator result a step.
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      const full = entryPath(dir, name);
      if (folders.has(i)) {
        // Symlinked folders are not followed (they are not folders to readdir), so a link cannot loop.
        if (prefix === '' && (SKIPPED_FOLDERS.has(name) || name === '.git')) continue;
        await walk(full, `${prefix}${name}/`, dotted || name.startsWith('.'));
        continue;
      }
      if (!isPackageFile(name, dotted) || (prefix === '' && name === MANIFEST)) continue;
      if (prefix.startsWith('tests/') && !TEST_FILE.test(name)) continue;
      const refusal = odd.has(name) ? await refusedEntry(root, full) : undefined;
      if (refusal === undefined) out.push(`${prefix}${name}`);
      else if (refusal !== '') findings.push(loadError('file_refused', show(full), { line: 1, column: 1 }, '', refusal));
    }
  };
  await walk(root, '', false);
  return out;
}

/**
 * The names of a folder's entries in path order (by code points, as Python compares the parts of a path: a name
 * that is the start of another sorts first), the places of its folders among them, and the entries that are
 * neither a folder nor a regular file (symbolic links, pipes). Sorted by V8's own sort of strings unless a name
 * holds a character past U+FFFF (`inCodePointOrder`) — a comparator in JavaScript cost ~8 ms for the 10,000
 * files of a package — with each name marked by one character below any a name can hold next (NUL, which no
 * name holds, for a file; 0x01 for a folder), which keeps their order. (node lists a folder here sorted by its
 * names' bytes, which is code-point order, so the sort finds it in order; it is there because node promises no
 * order.)
 */
export function namesInOrder(entries: readonly Dirent[]): { names: string[]; folders: Set<number>; odd: Set<string> } {
  const keys = new Array<string>(entries.length);
  const odd = new Set<string>();
  for (let i = 0; i < entries.length; i++) {
    const entry = entries[i]!;
    const folder = entry.isDirectory();
    if (!folder && !entry.isFile()) odd.add(entry.name);
    keys[i] = entry.name + (folder ? '\u0001' : '\0');
  }
  inCodePointOrder(keys);
  const names = new Array<string>(keys.length);
  const folders = new Set<number>();
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    if (key.charCodeAt(key.length - 1) === 1) folders.add(i);
    names[i] = key.slice(0, -1);
  }
  return { names, folders, odd };
}

/** The first segment of a package path, without splitting the path (an array a file, 10,000 files a check). */
function topFolder(path: string): string {
  const slash = path.indexOf('/');
  return slash === -1 ? path : path.slice(0, slash);
}

/**
 * Why a package entry that is a symbolic link or a special file is not read ('' for a link to a directory,
 * which is not followed), or undefined when it may be: a symlink may point only at a regular file inside the
 * package — as git sources allow no symlink at all — so that a link
 * to /etc/passwd never reaches a code frame; a named pipe would block the reader.
 */
async function refusedEntry(root: string, full: string): Promise<string | undefined> {
  const info = await stat(full).catch(() => undefined);
  if (info === undefined) return 'a symbolic link to nothing: its target does not exist';
  if (info.isDirectory()) return '';
  const real = await realpath(full).catch(() => full);
  if (!isInside(root, real)) return 'a symbolic link that points outside the package: package files are read only from inside the package';
  return notRegularReason(info);
}

/**
 * `*.yaml` anywhere; `*.yml` too, as the core reads them, except under a dot folder: plan sends no dot path to
 * the core, and `.github/workflows/*.yml` are CI files, not objects. (Under `i18n/` the dictionary rules want
 * `.yaml`.)
 */
function isPackageFile(name: string, underDotFolder: boolean): boolean {
  return name.endsWith('.yaml') || (name.endsWith('.yml') && !underDotFolder);
}

/** Loads a file that must be an envelope (a manifest, an installation); undefined after findings. */
export async function loadEnvelopeFile(
  path: string,
  file: string,
  findings: Finding[],
): Promise<{ document: SourceDocument; envelope: Envelope } | undefined> {
  const loaded = await loadSourceFile(path, file);
  findings.push(...loaded.findings);
  if (loaded.document === undefined) return undefined;
  const envelope = checkEnvelope(loaded.document, findings);
  return envelope === undefined ? undefined : { document: loaded.document, envelope };
}

/** The fields every package file has. */
const ENVELOPE_FIELDS = ['apiVersion', 'kind', 'key', 'spec'] as const;

/**
 * The envelope of `document` (read from `value`: the document's, or what the index keeps of it), or undefined
 * after an `invalid_document` finding. (Called for each of 10,000 files before V8 optimises it: indexed loops,
 * which unoptimised code runs without an iterator.)
 */
export function checkEnvelope(document: SourceDocument, findings: Finding[], value: unknown = document.value): Envelope | undefined {
  if (!isRecord(value)) {
    findings.push(at(document, 'invalid_document', '', `the apiVersion: ${API_VERSION}, kind, key, spec wrapper is required`));
    return undefined;
  }
  const before = findings.length;
  for (let i = 0; i < ENVELOPE_FIELDS.length; i++) {
    const field = ENVELOPE_FIELDS[i]!;
    if (!(field in value)) {
      findings.push(at(document, 'invalid_document', '', `the apiVersion: ${API_VERSION}, kind, key, spec wrapper is required — '${field}' is missing`));
      return undefined;
    }
  }
  if (value.apiVersion !== API_VERSION) {
    findings.push(at(document, 'invalid_document', '/apiVersion', `apiVersion is ${JSON.stringify(value.apiVersion)}; a package file is apiVersion: ${API_VERSION}`));
  }
  if (typeof value.kind !== 'string') findings.push(at(document, 'invalid_document', '/kind', 'kind is a string'));
  if (typeof value.key !== 'string') findings.push(at(document, 'invalid_document', '/key', 'key is a string'));
  if (!isRecord(value.spec)) findings.push(at(document, 'invalid_document', '/spec', 'spec is a mapping (an object)'));
  if (findings.length > before) return undefined;
  return value as unknown as Envelope;
}

/**
 * The object `document` holds, placed by its envelope, with its spec's `data` (a process's `{$ref}`): an
 * unchanged file is placed by what the index keeps of it, and its value is read only when a later stage asks
 * for `spec`.
 */
function packageObject(document: SourceDocument, pkg: string, findings: Finding[]): { object: PackageObject; data: unknown } | undefined {
  const envelope = checkEnvelope(document, findings, activeParseCache()?.envelopeOf(document) ?? document.value);
  if (envelope === undefined) return undefined;
  const { kind, key, spec } = envelope;
  if (!isObjectKind(kind)) {
    const hint = kind === 'Package' ? `a package has one manifest, ${MANIFEST}` : didYouMean(kind, OBJECT_KINDS);
    findings.push(at(document, 'unknown_kind', '/kind', `unknown kind '${kind}'; expected one of ${OBJECT_KINDS.join(', ')}`, hint));
    return undefined;
  }
  const rawVersion = spec.version;
  const version = typeof rawVersion === 'string' || typeof rawVersion === 'number' ? String(rawVersion) : undefined;
  const id = objectId(kind, key, version);
  const object = new PlacedObject(kind, key, id, pkg, document);
  if (version !== undefined && id !== key) object.version = version;
  return { object, data: spec.data };
}

/**
 * An object of a package, whose `spec` is read from its document when asked: the document of an unchanged file
 * stays packed in the index until then. A class rather than a literal with a getter, which V8 keeps as a slow
 * dictionary: the rules read these objects' fields all the time.
 */
class PlacedObject implements PackageObject {
  // In the order the loader always gave them (a spread of an object, `graph --json`, keeps it).
  readonly kind: ObjectKind;
  readonly key: string;
  readonly id: string;
  readonly ref: string;
  readonly package: string;
  readonly file: string;
  readonly document: SourceDocument;
  declare version?: string;
  declare data?: DataSchema;

  constructor(kind: ObjectKind, key: string, id: string, pkg: string, document: SourceDocument) {
    this.kind = kind;
    this.key = key;
    this.id = id;
    this.ref = objectRef(kind, id);
    this.package = pkg;
    this.file = document.file;
    this.document = document;
  }

  get spec(): Record<string, unknown> {
    return (this.document.value as Envelope).spec;
  }
}

function packageTest(path: string, document: SourceDocument, pkg: string): PackageTest {
  return { name: basename(path).replace(TEST_FILE, ''), file: document.file, document, package: pkg };
}

function dictionary(path: string, document: SourceDocument): Dictionary {
  return { locale: path.slice('i18n/'.length).replace(/\.ya?ml$/, ''), file: document.file, document };
}

function requirementsOf(spec: Record<string, unknown>): Requirement[] {
  const requires = spec.requires;
  if (!Array.isArray(requires)) return [];
  const out: Requirement[] = [];
  requires.forEach((entry, index) => {
    const pointer = childPointer('/spec/requires', index);
    if (typeof entry === 'string') out.push({ package: entry, pointer });
    else if (isRecord(entry) && typeof entry.package === 'string') {
      const requirement: Requirement = { package: entry.package, pointer };
      if (typeof entry.version === 'string') requirement.version = entry.version;
      out.push(requirement);
    }
    // Other shapes are schema violations, reported by stage 1.
  });
  return out;
}

/**
 * `spec.data: {$ref: file}` of a Process (`data`): the file (JSON or YAML, inside the package) is loaded once
 * per package and attached to the object, with its own document for positions.
 */
async function attachDataSchema(
  process: PackageObject,
  data: unknown,
  path: string,
  pkg: Package,
  shownDir: string,
  cache: Map<string, Promise<SourceDocument | string>>,
  findings: Finding[],
  show: (path: string) => string,
): Promise<void> {
  if (!isRecord(data) || Object.keys(data).length !== 1 || typeof data.$ref !== 'string') return;
  const ref = data.$ref;
  if (ref.startsWith('#') || ref.includes('://')) return;
  const fail = (message: string): void => {
    findings.push(at(process.document, 'unresolved_data_ref', '/spec/data/$ref', `data.$ref '${ref}' ${message}`));
  };
  const target = resolve(pkg.dir, dirname(path), ref);
  if (!isInside(pkg.dir, target)) return fail('points outside the package');
  let realTarget: string;
  try {
    realTarget = await realpath(target);
    if (!(await stat(realTarget)).isFile()) throw new Error('not a file');
  } catch {
    return fail('— no such file in the package');
  }
  if (!isInside(pkg.dir, realTarget)) return fail('points outside the package');
  let pending = cache.get(realTarget);
  if (pending === undefined) {
    const shown = show(join(shownDir, relative(pkg.dir, realTarget)));
    pending = loadSourceFile(realTarget, shown).then((result) => {
      findings.push(...result.findings);
      return result.document ?? `— ${shown} does not load (see its findings)`;
    });
    cache.set(realTarget, pending);
  }
  const document = await pending;
  if (typeof document === 'string') return fail(document);
  if (!isRecord(document.value)) return fail('— the process data schema is a JSON Schema object');
  const schema: DataSchema = { ref, file: document.file, document };
  process.data = schema;
  if (!pkg.dataSchemas.some((known) => known.document === document)) pkg.dataSchemas.push(schema);
}

/**
 * How the files of a package are shown in findings: relative to `cwd`; for a package from a git source, which
 * lives in the cache, as `key@ref:path in the package` (`fleet@v0.2.0:i18n/en.yaml`), not a cache path.
 */
function shownPaths(cwd: string, dir: string, options: LoadPackageOptions): (path: string) => string {
  const source = options.source;
  if (source === undefined || !('git' in source)) return (path) => displayPath(cwd, path);
  const label = `${options.expectedKey ?? basename(dir)}@${source.ref}`;
  return (path) => `${label}:${displayPath(dir, path) || '.'}`;
}

/** A file path as findings show it: relative to `cwd`, with `/`. */
export function displayPath(cwd: string, path: string): string {
  // A loaded file is a plain path, and so is an absolute working directory: no path arithmetic a file (10,000
  // files a check).
  if (sep === '/' && isAbsolute(cwd) && isAbsolute(path) && !NOT_PLAIN.test(cwd) && !NOT_PLAIN.test(path)) {
    if (path.startsWith(cwd) && path[cwd.length] === '/') return path.slice(cwd.length + 1);
    const slash = path.lastIndexOf('/');
    if (slash > 0 && cwd !== path && !cwd.startsWith(`${path}/`)) {
      // A package beside or above the working directory: its files share a few folders, and each folder's
      // relative path is worked out once (the files come folder by folder), not once a file.
      const folder = relativeFolder(cwd, path.slice(0, slash));
      return folder === '' ? path.slice(slash + 1) : `${folder}/${path.slice(slash + 1)}`;
    }
  }
  return relative(cwd, resolve(cwd, path)).split(sep).join('/');
}

/** The last folder shown and how: `relative` costs microseconds, ten thousand files a check. */
let lastFolder: { cwd: string; folder: string; shown: string } | undefined;

function relativeFolder(cwd: string, folder: string): string {
  if (lastFolder?.cwd !== cwd || lastFolder.folder !== folder) lastFolder = { cwd, folder, shown: relative(cwd, folder) };
  return lastFolder.shown;
}

/** `.` or `..` as a segment, an empty segment or a trailing `/`: what `relative` would normalise away. */
const NOT_PLAIN = /\/\.{1,2}(\/|$)|\/\/|\/$/;

function at(document: SourceDocument, code: string, pointer: string, message: string, hint?: string): Finding {
  return loadError(code, document.file, document.locate(pointer), pointer, message, hint);
}
