/**
 * `package-sdk export`: objects that live in a core — made in its console, say — written as package files in
 * the layout and style `add` writes (the kind's folder, the modeline, authored quoting), so that they can be
 * committed. A field the core holds that schema/v1 does not allow is not dropped silently: it is listed in the
 * result and kept as a comment in the file. The package is checked after the export; its findings are reported.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { check } from '../check/index.js';
import type { CoreClient } from '../client/client.js';
import { withCore } from '../client/connect.js';
import type { LocalCoreStarter } from '../contract/local-core.js';
import { createFile, replaceFile } from '../fs/write.js';
import { isRecord } from '../json/guards.js';
import { displayPath } from '../load/package.js';
import type { Finding } from '../model/finding.js';
import { Refusal } from '../fs/refusal.js';
import { readEnvironment } from '../plan/variables.js';
import { SCHEMA_DIR } from './hints.js';
import { KIND_FOLDERS, resolveKind, type AuthorKind } from './kinds.js';
import { manifestTemplate } from './templates.js';
import { renderTemplate } from './add.js';
import { REPOSITORY_SCHEMA_DIR, repositoryRoot, writeRepositorySchemas } from './repository.js';
import { toAuthoredYaml } from './yaml-writer.js';

export interface ExportOptions {
  server: string;
  kind: string;
  /** Keys to export; all objects of the kind the core lists when none (kinds the core can list). */
  keys?: readonly string[];
  /** A version (Process, Calendar, View, TaskType): the latest when absent. */
  version?: string;
  /** The package directory (default: the current directory); created with a manifest when it has none. */
  packageDir?: string;
  env?: string;
  cwd?: string;
  localCore?: LocalCoreStarter;
  localDataDir?: string;
  /** Replace files that exist (default: refuse). */
  overwrite?: boolean;
}

/** What `export --json` prints. */
export interface ExportResult {
  kind: AuthorKind;
  package: string;
  created: string[];
  updated: string[];
  /** Fields the core holds that the schema does not allow: kept as comments in the files named. */
  notAllowed: { file: string; fields: string[] }[];
  /** What check finds in the package after the export. */
  findings: Finding[];
}

interface Exported {
  key: string;
  spec: Record<string, unknown>;
}

/** Fields of a catalog row that are the core's bookkeeping, not the object's description. */
const BOOKKEEPING = new Set(['id', 'tenantId', 'key', 'slug', 'name', 'version', 'status', 'package', 'createdAt', 'createdBy', 'updatedAt', 'updatedBy', 'rowVersion', 'workspaceId', 'specHash', 'currentRevision', 'revision', 'state', 'replicas', 'principalId', 'retiredAt', 'retiredBy', 'latestVersion', 'retired']);

/** How each kind is read from the core. */
const READERS: Partial<Record<AuthorKind, (client: CoreClient, key: string | undefined, version: string | undefined) => Promise<Exported[]>>> = {
  Process: versionedReader('process-definitions'),
  Calendar: versionedReader('calendars'),
  View: versionedReader('views'),
  TaskType: async (client, key, version) => {
    const rows = await client.list<Record<string, unknown>>('/api/v1/task-types', [...(key ? [['key', key] as const] : []), ['status', 'active'] as const]);
    const chosen = latestPerKey(rows.filter((row) => version === undefined || String(row.version) === version));
    return Promise.all(chosen.map(async (row) => ({ key: String(row.key), spec: catalogSpec(await client.get<Record<string, unknown>>(`/api/v1/task-types/${String(row.id)}`)) })));
  },
  Role: async (client, key) => {
    const rows = await client.list<Record<string, unknown>>('/api/v1/roles');
    return rows.filter((row) => row.workspaceId === null || row.workspaceId === undefined).filter((row) => key === undefined || row.slug === key)
      .map((row) => ({ key: String(row.slug), spec: { name: row.name, ...(row.description ? { description: row.description } : {}) } }));
  },
  Agent: async (client, key) => {
    if (key === undefined) throw new Refusal('usage', 'export --kind Agent needs --key: the core lists no agents', { exitCode: 2 });
    const agent = await client.find<{ revision?: { spec?: unknown } }>(`/api/v1/agents/${encodeURIComponent(key)}`);
    return agent && isRecord(agent.revision?.spec) ? [{ key, spec: agent.revision.spec }] : [];
  },
  WorkRule: async (client, key) => {
    const rows = await client.list<Record<string, unknown>>('/api/v1/rules', key ? [['key', key]] : []);
    return rows.filter((row) => row.status !== 'archived').map((row) => ({ key: String(row.key), spec: catalogSpec(row, ['workspaceId']) }));
  },
  Skill: async (client, key, version) => {
    const rows = await client.list<Record<string, unknown>>('/api/v1/skills', key ? [['name', key]] : []);
    const chosen = rows.filter((row) => version === undefined || String(row.version) === version);
    return Promise.all(chosen.map(async (row) => {
      const full = await client.get<Record<string, unknown>>(`/api/v1/skills/${String(row.id)}`);
      return { key: String(row.name), spec: { version: String(row.version), ...catalogSpec(full) } };
    }));
  },
};

export async function exportObjects(options: ExportOptions): Promise<ExportResult> {
  const cwd = options.cwd ?? process.cwd();
  const kind = resolveKind(options.kind);
  const reader = kind ? READERS[kind] : undefined;
  if (!kind || !reader) {
    throw new Refusal('kind_not_exported', `export reads ${Object.keys(READERS).join(', ')} from a core; '${options.kind}' is not one of them`, { exitCode: 2 });
  }
  const packageDir = resolve(cwd, options.packageDir ?? '.');
  const show = (path: string): string => displayPath(cwd, path) || '.';
  const env = await readEnvironment(options.env);
  const objects = await withCore(options.server, { env, ...(options.localCore ? { localCore: options.localCore } : {}), ...(options.localDataDir ? { localDataDir: options.localDataDir } : {}) }, async ({ client }) => {
    const found: Exported[] = [];
    for (const key of options.keys?.length ? options.keys : [undefined]) {
      const read = await reader(client, key, options.version);
      if (key !== undefined && read.length === 0) throw new Refusal('object_not_found', `the core has no ${kind} '${key}'${options.version ? ` version ${options.version}` : ''}`);
      found.push(...read);
    }
    return found;
  });
  const result: ExportResult = { kind, package: show(packageDir), created: [], updated: [], notAllowed: [], findings: [] };
  const home = repositoryRoot(packageDir);
  result.created.push(...(await writeRepositorySchemas(home, show)));
  const schemaDir = join(home, REPOSITORY_SCHEMA_DIR);
  const manifest = join(packageDir, 'package.yaml');
  if (!existsSync(manifest)) {
    await createFile(manifest, renderTemplate(manifestTemplate(basename(packageDir), {}), packageDir, schemaDir), show(manifest));
    result.created.push(show(manifest));
  }
  const allowed = allowedFields(kind);
  for (const object of objects) {
    const path = join(packageDir, KIND_FOLDERS[kind as Exclude<AuthorKind, 'Package' | 'Installation'>], `${object.key}.yaml`);
    const extra = allowed ? Object.keys(object.spec).filter((field) => !allowed.has(field)) : [];
    const spec = Object.fromEntries(Object.entries(object.spec).filter(([field]) => !extra.includes(field)));
    const comment = [`${kind} ${object.key}, exported from ${options.server === 'local' ? 'the local core' : options.server}.`,
      ...(extra.length > 0 ? ['', 'The core also holds these fields, which schema/v1 does not allow here (kept as a comment):', ...toAuthoredYaml(Object.fromEntries(extra.map((field) => [field, object.spec[field]]))).trimEnd().split('\n')] : [])];
    const text = renderTemplate({ path, schema: 'object', comment, value: { apiVersion: 'taimen.ai/v1', kind, key: object.key, spec } }, join(packageDir, KIND_FOLDERS[kind as Exclude<AuthorKind, 'Package' | 'Installation'>]), schemaDir);
    if (existsSync(path)) {
      if (!options.overwrite) throw new Refusal('file_exists', `${show(path)} already exists; export --overwrite replaces it`);
      if (readFileSync(path, 'utf8') === text) continue;
      await replaceFile(path, text);
      result.updated.push(show(path));
    } else {
      await createFile(path, text, show(path));
      result.created.push(show(path));
    }
    if (extra.length > 0) result.notAllowed.push({ file: show(path), fields: extra });
  }
  const { report } = await check({ cwd, packages: [packageDir] });
  result.findings = [...report.errors, ...report.warnings];
  return result;
}

function versionedReader(collection: string): (client: CoreClient, key: string | undefined, version: string | undefined) => Promise<Exported[]> {
  return async (client, key, version) => {
    if (key === undefined) throw new Refusal('usage', `export of ${collection} needs --key: the core reads them by key`, { exitCode: 2 });
    const row = await client.find<{ key?: unknown; spec?: unknown }>(`/api/v1/${collection}/${encodeURIComponent(version ? `${key}@${version}` : key)}`);
    return row && isRecord(row.spec) ? [{ key, spec: row.spec }] : [];
  };
}

/** A catalog row as a spec: the object's fields, without the core's bookkeeping, its nulls and its empty defaults. */
function catalogSpec(row: Record<string, unknown>, keep: readonly string[] = []): Record<string, unknown> {
  return Object.fromEntries(Object.entries(row).filter(([field, value]) =>
    (keep.includes(field) || !BOOKKEEPING.has(field)) && value !== null && !(isRecord(value) && Object.keys(value).length === 0)));
}

/** The fields schema/v1 allows in the spec of a kind (undefined when the kind's spec is open). */
function allowedFields(kind: AuthorKind): ReadonlySet<string> | undefined {
  if (kind === 'View' || kind === 'Component') return undefined;
  const defs = (JSON.parse(readFileSync(join(SCHEMA_DIR, 'object.schema.json'), 'utf8')) as { $defs: Record<string, { properties?: Record<string, unknown> }> }).$defs;
  const properties = defs[`${kind.charAt(0).toLowerCase()}${kind.slice(1)}Spec`]?.properties;
  return properties ? new Set(Object.keys(properties)) : undefined;
}

function latestPerKey(rows: readonly Record<string, unknown>[]): Record<string, unknown>[] {
  const latest = new Map<string, Record<string, unknown>>();
  for (const row of rows) {
    const seen = latest.get(String(row.key));
    if (!seen || Number(row.version) > Number(seen.version)) latest.set(String(row.key), row);
  }
  return [...latest.values()];
}
