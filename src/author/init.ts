/**
 * `package-sdk init DIR`: a new package that passes `check` and its own scenario — a manifest with
 * engines, a process with its identity agent and owner role, a task type, a scenario, a README with the
 * generated sections and a CI workflow; with `--integration`, an observer that starts the process, its
 * agent and its Python project (integration.ts). Never overwrites: an existing file is a refusal before anything
 * is written.
 */
import { existsSync } from 'node:fs';
import { basename, join, relative, resolve, sep } from 'node:path';
import { displayPath, loadPackage } from '../load/package.js';
import { descriptionOf } from '../docs/describe.js';
import { diagramSections, newReadme } from '../docs/package-readme.js';
import { checkKey, writeTemplates } from './add.js';
import { githubWorkflow, packageWorkflowPath } from './ci.js';
import { repositoryRoot } from './repository.js';
import { defaultImage, integrationFiles, observerAgent } from './integration.js';
import { manifestTemplate, objectTemplates, processScenario, titleOf } from './templates.js';
import { Refusal } from '../fs/refusal.js';
import { createFile } from '../fs/write.js';

export interface InitOptions {
  dir: string;
  /** Package key; the directory name by default (a package's key is its directory name). */
  key?: string;
  displayName?: string;
  license?: string;
  /** Also an observer: its agent, the integration/ Python project with a test, and the image's Dockerfile. */
  integration?: boolean;
  /** The observer's image (with `integration`). */
  image?: string;
  cwd?: string;
}

/** `init --json`. */
export interface InitResult {
  key: string;
  dir: string;
  created: string[];
}

export async function initPackage(options: InitOptions): Promise<InitResult> {
  const cwd = options.cwd ?? process.cwd();
  const dir = resolve(cwd, options.dir);
  const key = options.key ?? basename(dir);
  checkKey('Package', key);
  if (key !== basename(dir)) {
    throw new Refusal('package_key_mismatch', `the key of a package is the name of its directory: '${key}' is not '${basename(dir)}'; run package-sdk init ${join(options.dir, '..', key)}`);
  }
  const show = (path: string): string => displayPath(cwd, path) || '.';
  const context = { packageKey: key, taskType: `${key}-review`, year: new Date().getUTCFullYear() };
  const templates = [
    manifestTemplate(key, { displayName: options.displayName ?? titleOf(key), ...(options.license ? { license: options.license } : {}) }),
    ...objectTemplates('TaskType', `${key}-review`, context),
    ...objectTemplates('Process', key, context),
    processScenario(key),
    ...(options.integration ? [observerAgent(key, options.image ?? defaultImage(key))] : []),
  ];
  const extra = options.integration ? integrationFiles(key) : {};
  const home = repositoryRoot(dir);
  const workflow = join(home, packageWorkflowPath(key));
  const others = ['README.md', ...Object.keys(extra)].map((path) => join(dir, path));
  for (const path of [...templates.map((template) => join(dir, template.path)), ...others, workflow]) {
    if (existsSync(path)) throw new Refusal('file_exists', `${show(path)} already exists; package-sdk init never overwrites a file`);
  }
  const result: InitResult = { key, dir: show(dir), created: [] };
  await writeTemplates(dir, templates, show, result);
  const loaded = await loadPackage(dir, { cwd: dir });
  if (!loaded.package) throw new Error(`the package written in ${show(dir)} does not load: ${loaded.findings[0]?.message ?? 'unknown'}`);
  const summary = `${options.displayName ?? titleOf(key)}: a process \`${key}\` that a request starts and a person of the role \`${key}-owner\` reviews. Check it with \`package-sdk check\`, run its scenario with \`package-sdk test\`.`;
  for (const [path, text] of [
    [join(dir, 'README.md'), newReadme(descriptionOf(loaded.package), summary, diagramSections(loaded.package.objects.filter((object) => object.kind === 'Process')))],
    [workflow, githubWorkflow({ key, path: relative(home, dir).split(sep).join('/') })],
    ...Object.entries(extra).map(([file, content]) => [join(dir, file), content] as const),
  ] as const) {
    await createFile(path, text, show(path));
    result.created.push(show(path));
  }
  return result;
}
