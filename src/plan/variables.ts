/**
 * Installation variables at plan and apply time (compat-package-sdk-install §4.3): the values each package
 * gets (its defaults, overlaid by the `--env` file and the process environment), what is missing, what does
 * not fit its kind, what names an object the core lacks, and `variablesHash` — the only trace of the values
 * a plan keeps.
 */
import { readFile } from 'node:fs/promises';
import { VARIABLE_PATTERN, forEachVariable } from '../model/variables.js';
import { VARIABLE_MARK } from '../model/text-marks.js';
import type { Installation } from '../model/installation.js';
import type { Package } from '../model/package.js';
import type { CoreClient } from '../client/client.js';
import { pythonStr } from '../json/canonical.js';
import { digest } from '../json/digest.js';
import { Refusal } from '../fs/refusal.js';

export type Environment = Readonly<Record<string, string>>;

/**
 * The `--env` file (`NAME=value` lines; `#` comments; surrounding quotes dropped) overlaid by the process
 * environment, which wins. A missing file is an empty one only when it was not asked for by name.
 */
export async function readEnvironment(file: string | undefined, processEnv: NodeJS.ProcessEnv = process.env): Promise<Environment> {
  let text = '';
  try {
    text = await readFile(file ?? '.env', 'utf8');
  } catch (error) {
    if (file !== undefined || (error as NodeJS.ErrnoException).code !== 'ENOENT') {
      throw new Refusal('env_unreadable', `--env ${file ?? '.env'}: ${(error as Error).message}`, { exitCode: 2 });
    }
  }
  const values: Record<string, string> = {};
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    const equals = line.indexOf('=');
    if (line === '' || line.startsWith('#') || equals < 0) continue;
    values[line.slice(0, equals).trim()] = stripQuotes(line.slice(equals + 1).trim());
  }
  for (const [name, value] of Object.entries(processEnv)) if (value !== undefined) values[name] = value;
  return values;
}

/** As the reference does: `"` characters at both ends, then `'` characters at both ends. */
function stripQuotes(value: string): string {
  return value.replace(/^"+|"+$/g, '').replace(/^'+|'+$/g, '');
}

interface Declaration {
  kind?: string;
  description?: string;
  example?: unknown;
  default?: unknown;
  required?: boolean;
}

export interface Variables {
  /** Per package: every value it may substitute (its defaults overlaid by the environment). */
  valuesOf: ReadonlyMap<string, Readonly<Record<string, string>>>;
  /** The names (declared or used) each package has, with their values: what the hash covers. */
  hashed: { packages: Record<string, Record<string, string>>; installation: Record<string, string> };
  /** `${NAME}` of `spec.knowledge[].workspace`, substituted from the environment. */
  installationValues: Readonly<Record<string, string>>;
  variablesHash: string;
}

/** Values, missing names (refusal `variables_missing`) and form problems (refusal `variables_invalid`). */
export function resolveVariables(packages: readonly Package[], installation: Installation | undefined, env: Environment): Variables {
  const missing: string[] = [];
  const malformed: string[] = [];
  const valuesOf = new Map<string, Record<string, string>>();
  const hashed: Variables['hashed'] = { packages: {}, installation: {} };
  for (const pkg of packages) {
    const declared = declarationsOf(pkg);
    const values: Record<string, string> = { ...declaredValues(pkg), ...env };
    valuesOf.set(pkg.key, values);
    const names = [...new Set([...Object.keys(declared), ...usedNames(pkg)])].sort();
    const own: Record<string, string> = {};
    for (const name of names) {
      const declaration = declared[name];
      if (values[name] === undefined) {
        missing.push(declaration
          ? `variable ${name} is not set — package ${pkg.key}: ${declaration.description ?? ''} (${declaration.kind ?? 'string'}` +
            `${declaration.example !== undefined ? `; example: ${String(declaration.example)}` : ''})`
          : `environment variable ${name} is not set (required by package ${pkg.key})`);
        continue;
      }
      own[name] = values[name];
      const problem = declaration ? formProblem(declaration.kind ?? 'string', values[name]) : undefined;
      if (problem) malformed.push(`variable ${name} of package ${pkg.key}: ${problem}`);
    }
    hashed.packages[pkg.key] = own;
  }
  for (const name of installationNames(installation)) {
    if (env[name] === undefined) missing.push(`variable ${name} is not set — installation: workspace of ontology enablement`);
    else hashed.installation[name] = env[name];
  }
  if (missing.length > 0) {
    const list = [...new Set(missing)];
    throw new Refusal('variables_missing', `installation variables not set:\n  ${list.join('\n  ')}`, { hint: 'set them in the environment or in the --env file', exitCode: 1, problems: list });
  }
  if (malformed.length > 0) {
    throw new Refusal('variables_invalid', `installation variables do not fit their kind:\n  ${malformed.join('\n  ')}`, { exitCode: 1, problems: malformed });
  }
  return { valuesOf, hashed, installationValues: hashed.installation, variablesHash: digest(hashed) };
}

/** The values a package gives its variables itself: each default as text, `""` for an optional one without a default. */
export function declaredValues(pkg: Package): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [name, declaration] of Object.entries(declarationsOf(pkg))) {
    if (declaration.default !== undefined && declaration.default !== null) {
      values[name] = pythonStr(declaration.default, pkg.manifest.floats.has(`/spec/variables/${name}/default`));
    } else if (declaration.required === false) values[name] = '';
  }
  return values;
}

const LOOKED_UP: Record<string, string> = { workspace: 'workspaces', project: 'projects', principal: 'principals', role: 'roles' };

/** Variables of kind workspace/project/principal/role must name something the core has (once per kind and value). */
export async function lookUpVariables(packages: readonly Package[], variables: Variables, client: CoreClient): Promise<void> {
  const problems: string[] = [];
  const seen = new Map<string, Promise<boolean>>();
  for (const pkg of packages) {
    for (const [name, declaration] of Object.entries(declarationsOf(pkg))) {
      const collection = LOOKED_UP[declaration.kind ?? ''];
      const value = variables.hashed.packages[pkg.key]?.[name];
      if (!collection || !value || value.includes('${')) continue;
      const id = `${collection}/${value}`;
      if (!seen.has(id)) seen.set(id, client.find(`/api/v1/${collection}/${encodeURIComponent(value)}`).then((found) => found !== undefined));
      if (!(await seen.get(id))) problems.push(`variable ${name} of package ${pkg.key}: ${declaration.kind} ${value} not found on the core`);
    }
  }
  if (problems.length > 0) {
    throw new Refusal('variables_invalid', `installation variables do not fit the core:\n  ${problems.join('\n  ')}`, { hint: 'name objects that exist on this core', exitCode: 1, problems });
  }
}

/** `${NAME}` replaced by the package's values; an unknown name stays a refusal, never an empty string. */
export function substitute(text: string, values: Readonly<Record<string, string>>, where: string): string {
  return text.replace(VARIABLE_PATTERN, (_whole, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Refusal('variables_missing', `${where}: variable ${name} is not set`);
    return value;
  });
}

/** A JSON value with `${NAME}` substituted in every string. */
export function substituteValue<T>(value: T, values: Readonly<Record<string, string>>, where: string): T {
  if (typeof value === 'string') return substitute(value, values, where) as T;
  if (Array.isArray(value)) return value.map((item) => substituteValue(item, values, where)) as T;
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, substituteValue(item, values, where)])) as T;
  }
  return value;
}

function declarationsOf(pkg: Package): Record<string, Declaration> {
  const spec = (pkg.manifest.value as { spec?: { variables?: unknown } } | null)?.spec;
  const variables = spec?.variables;
  if (variables === null || typeof variables !== 'object' || Array.isArray(variables)) return {};
  return Object.fromEntries(Object.entries(variables as Record<string, unknown>)
    .map(([name, declaration]) => [name, (typeof declaration === 'object' && declaration !== null ? declaration : {}) as Declaration]));
}

/**
 * The names of the `${NAME}` written under `spec` of the package's objects (where is check's business). An
 * object whose text holds no `${` has none — the files are substituted as text — and its value is not read:
 * the check's index answers that question without opening the document.
 */
function usedNames(pkg: Package): string[] {
  const names: string[] = [];
  for (const object of pkg.objects) {
    if (object.document.includes(VARIABLE_MARK)) forEachVariable(object.document.value, (match) => names.push(match[1]!));
  }
  return names;
}

function installationNames(installation: Installation | undefined): string[] {
  const knowledge = (installation?.document.value as { spec?: { knowledge?: unknown } } | undefined)?.spec?.knowledge;
  if (!Array.isArray(knowledge)) return [];
  const names: string[] = [];
  for (const entry of knowledge) {
    const workspace = (entry as { workspace?: unknown } | null)?.workspace;
    if (typeof workspace === 'string') for (const match of workspace.matchAll(VARIABLE_PATTERN)) names.push(match[1]!);
  }
  return [...new Set(names)];
}

const UUID = /^(?:urn:uuid:)?\{?[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\}?$/i;

function formProblem(kind: string, value: string): string | undefined {
  if (value === '' || value.includes('${')) return undefined;
  switch (kind) {
    case 'url': {
      let url: URL | undefined;
      try {
        url = new URL(value);
      } catch {
        url = undefined;
      }
      return url && (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' ? undefined : 'expected an absolute URL http(s)://…';
    }
    case 'workspace':
    case 'project':
    case 'principal':
    case 'role':
      return UUID.test(value) ? undefined : `expected a UUID (${kind} of the core)`;
    case 'integer':
      return /^-?\d+$/.test(value.trim()) ? undefined : 'expected an integer';
    default:
      return undefined;
  }
}
