/**
 * `package-sdk add KIND KEY`: one new object in its conventional folder, the smallest spec that passes
 * `check`, with the optional fields as comments. Never overwrites: an existing key or file is a refusal.
 */
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseDocument } from 'yaml';
import { loadPackage, displayPath } from '../load/package.js';
import type { Package } from '../model/package.js';
import { optionalFieldHints, SCHEMA_DIR } from './hints.js';
import { REPOSITORY_SCHEMA_DIR, repositoryRoot, writeRepositorySchemas } from './repository.js';
import { AUTHOR_KINDS, resolveKind, type AuthorKind } from './kinds.js';
import { installationTemplate, manifestTemplate, objectTemplates, SCENARIO_SUBJECTS, subjectScenario, titleOf, type FileTemplate, type ScenarioSubject } from './templates.js';
import { Refusal } from '../fs/refusal.js';
import { createFile, replaceFile } from '../fs/write.js';
import { modeline, toAuthoredYaml } from './yaml-writer.js';

export interface AddOptions {
  /** As typed: `TaskType`, `task-type`, `task-types`, `rule` … */
  kind: string;
  key: string;
  /** The package directory (default: the current directory). */
  packageDir?: string;
  cwd?: string;
}

/** What `add` did; `add --json` prints it. */
export interface AddResult {
  /** The kind of the new object, or `Test` for a scenario. */
  kind: AuthorKind | 'Test';
  key: string;
  /** New files, as shown to the user. */
  created: string[];
  /** Existing files `add` amended (the manifest's locales, dictionaries of a new view). */
  updated: string[];
}

/** The `$defs` entry of object.schema.json whose pattern a key of each kind must match. */
const KEY_DEFINITIONS: Partial<Record<AuthorKind, string>> = {
  Package: 'typeKey',
  Installation: 'typeKey',
  TaskType: 'typeKey',
  ArtifactType: 'typeKey',
  ProjectTemplate: 'typeKey',
  WorkspaceType: 'typeKey',
  Process: 'typeKey',
  Calendar: 'typeKey',
  Role: 'slug',
  Agent: 'slug',
  WorkRule: 'ruleKey',
  NotificationRule: 'ruleKey',
  ConnectionType: 'connectionKey',
};

/** Keys of the kinds whose pattern is not a shared definition (knowledge packs, screens, skills). */
const OTHER_KEY_PATTERN = /^[a-z0-9][a-z0-9._-]{0,62}$/;
const SCREEN_KEY_PATTERN = /^[a-z0-9][a-z0-9_-]{0,62}$/;

/** Refuses a key the kind's schema would reject, before anything is written. */
export function checkKey(kind: AuthorKind, key: string): void {
  const definition = KEY_DEFINITIONS[kind];
  let pattern = kind === 'View' || kind === 'Component' ? SCREEN_KEY_PATTERN : OTHER_KEY_PATTERN;
  if (definition) {
    const defs = (JSON.parse(readFileSync(join(SCHEMA_DIR, 'object.schema.json'), 'utf8')) as { $defs: Record<string, { pattern: string }> }).$defs;
    pattern = new RegExp(defs[definition]!.pattern);
  }
  if (!pattern.test(key)) throw new Refusal('invalid_key', `'${key}' is not a valid key of a ${kind}: it must match ${pattern.source}`);
}

export async function addObject(options: AddOptions): Promise<AddResult> {
  if (/^tests?$/i.test(options.kind.trim())) return addScenario(options);
  const cwd = options.cwd ?? process.cwd();
  const kind = resolveKind(options.kind);
  if (!kind) throw new Refusal('unknown_kind', `unknown kind '${options.kind}'; expected one of ${AUTHOR_KINDS.join(', ')} (or task-type, task-types, rule …)`, { exitCode: 2 });
  checkKey(kind, options.key);
  const packageDir = resolve(cwd, options.packageDir ?? '.');
  const show = (path: string): string => displayPath(cwd, path) || '.';
  const result: AddResult = { kind, key: options.key, created: [], updated: [] };
  if (kind === 'Package') {
    const dir = join(dirname(packageDir), options.key);
    if (existsSync(dir)) throw new Refusal('file_exists', `${show(dir)} already exists; a new package needs a new directory`);
    await writeTemplates(dir, [manifestTemplate(options.key, {})], show, result);
    return result;
  }
  const pkg = await packageAt(packageDir, cwd, show);
  if (kind === 'Installation') {
    await writeTemplates(dirname(packageDir), [installationTemplate(options.key, [pkg.key])], show, result);
    return result;
  }
  const existing = new Map(pkg.objects.map((object) => [`${object.kind}/${object.key}`, object.file]));
  const taken = existing.get(`${kind}/${options.key}`);
  if (taken) throw new Refusal('object_exists', `${kind} '${options.key}' already exists in ${taken}; choose another key`);
  // A process's identity and owner role may already exist (added before, or shared): they are kept, not rewritten.
  const templates = objectTemplates(kind, options.key, { packageKey: pkg.key, year: new Date().getUTCFullYear() }).filter(
    (template, index) => index === 0 || !existing.has(`${String(template.value.kind)}/${String(template.value.key)}`),
  );
  for (const template of templates) {
    const path = join(pkg.dir, template.path);
    if (existsSync(path)) throw new Refusal('file_exists', `${show(path)} already exists; package-sdk never overwrites a file`);
  }
  if (kind === 'View' || kind === 'Component') await prepareScreens(pkg, messagesOf(templates[0]!), show, result);
  await writeTemplates(pkg.dir, templates, show, result);
  return result;
}

/** `add test KEY`: a first scenario of the process, work rule or task type KEY of the package, in tests/KEY.test.yaml. */
async function addScenario(options: AddOptions): Promise<AddResult> {
  const cwd = options.cwd ?? process.cwd();
  const show = (path: string): string => displayPath(cwd, path) || '.';
  const pkg = await packageAt(resolve(cwd, options.packageDir ?? '.'), cwd, show);
  const subjects = pkg.objects.filter((object) => object.key === options.key && (SCENARIO_SUBJECTS as readonly string[]).includes(object.kind));
  if (subjects.length !== 1) {
    const named = subjects.map((object) => `${object.kind} ${object.file}`).join(', ');
    throw new Refusal(subjects.length === 0 ? 'unknown_subject' : 'ambiguous_subject', subjects.length === 0
      ? `the package ${pkg.key} has no process, work rule or task type '${options.key}'`
      : `'${options.key}' names more than one object a scenario can be about: ${named}`, { exitCode: 2 });
  }
  const [subject] = subjects;
  const template = subjectScenario(subject!.kind as ScenarioSubject, options.key, subject!.spec);
  const path = join(pkg.dir, template.path);
  if (existsSync(path)) throw new Refusal('file_exists', `${show(path)} already exists; package-sdk never overwrites a file`);
  const result: AddResult = { kind: 'Test', key: options.key, created: [], updated: [] };
  await writeTemplates(pkg.dir, [template], show, result);
  return result;
}

async function packageAt(dir: string, cwd: string, show: (path: string) => string): Promise<Package> {
  const loaded = await loadPackage(dir, { cwd });
  if (!loaded.package) {
    const first = loaded.findings[0];
    throw new Refusal('package_not_found', first ? `${first.file}: ${first.message}` : `no package in ${show(dir)}`, { exitCode: 2 });
  }
  return loaded.package;
}

/**
 * Writes each template as a new file under `root`, with its modeline, comment and hints; the modeline points at
 * the schemas of the repository, written there first when they are missing.
 */
export async function writeTemplates(root: string, templates: readonly FileTemplate[], show: (path: string) => string, result: { created: string[] }): Promise<void> {
  const home = repositoryRoot(root);
  result.created.push(...(await writeRepositorySchemas(home, show)));
  const schemaDir = join(home, REPOSITORY_SCHEMA_DIR);
  for (const template of templates) {
    const path = join(root, template.path);
    await createFile(path, renderTemplate(template, dirname(path), schemaDir), show(path));
    result.created.push(show(path));
  }
}

/** The text of a template written in `fileDir`, its modeline pointing into `schemaDir`. */
export function renderTemplate(template: FileTemplate, fileDir: string, schemaDir: string): string {
  const header = [modeline(fileDir, join(schemaDir, `${template.schema}.schema.json`)), ...template.comment];
  const spec = template.value.spec;
  const hints = template.hintsOf && spec && typeof spec === 'object' ? optionalFieldHints(template.hintsOf, new Set(Object.keys(spec))) : [];
  return toAuthoredYaml(template.value, { header, hints, hintsAt: 'spec' });
}

/** Dictionary keys a screen template shows (`<package>.<key>.…` strings). */
function messagesOf(template: FileTemplate): Map<string, string> {
  const messages = new Map<string, string>();
  const prefix = `${String(template.value.key)}.`;
  const visit = (value: unknown): void => {
    if (typeof value === 'string' && value.split('.').length >= 3 && value.includes(`.${prefix}`)) {
      const last = value.slice(value.lastIndexOf('.') + 1);
      messages.set(value, titleOf(last === 'title' ? String(template.value.key) : last));
    } else if (Array.isArray(value)) value.forEach(visit);
    else if (value && typeof value === 'object') Object.values(value).forEach(visit);
  };
  visit(template.value.spec);
  return messages;
}

/**
 * A screen needs the package to declare its locales and each locale's dictionary to hold the screen's
 * texts: a package without locales gets `locales: [en]`, and every dictionary gets the new keys.
 */
async function prepareScreens(pkg: Package, messages: ReadonlyMap<string, string>, show: (path: string) => string, result: AddResult): Promise<void> {
  const manifestPath = join(pkg.dir, 'package.yaml');
  const manifest = parseDocument(await readFile(manifestPath, 'utf8'));
  let locales = manifest.getIn(['spec', 'locales']) as unknown;
  const declared = locales && typeof locales === 'object' && 'toJSON' in locales ? ((locales as { toJSON(): unknown }).toJSON() as unknown[]) : undefined;
  if (!declared || declared.length === 0) {
    manifest.setIn(['spec', 'locales'], manifest.createNode(['en'], { flow: true }));
    if (!manifest.hasIn(['spec', 'defaultLocale'])) manifest.setIn(['spec', 'defaultLocale'], 'en');
    await replaceFile(manifestPath, manifest.toString({ lineWidth: 0, flowCollectionPadding: false }));
    result.updated.push(show(manifestPath));
    locales = ['en'];
  } else {
    locales = declared;
  }
  for (const locale of locales as string[]) {
    const path = join(pkg.dir, 'i18n', `${locale}.yaml`);
    const text = existsSync(path) ? await readFile(path, 'utf8') : '';
    const dictionary = parseDocument(text);
    if (!dictionary.contents) dictionary.contents = dictionary.createNode({}) as never;
    const missing = [...messages].filter(([key]) => !dictionary.has(key));
    if (missing.length === 0 && text !== '') continue;
    for (const [key, value] of missing) dictionary.set(key, value);
    if (text === '') {
      await createFile(path, dictionary.toString({ lineWidth: 0 }), show(path));
      result.created.push(show(path));
    } else {
      await replaceFile(path, dictionary.toString({ lineWidth: 0 }));
      result.updated.push(show(path));
    }
  }
}
