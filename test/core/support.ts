import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, sep } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { expect } from 'vitest';
import { loadTargets } from '../../src/load/targets.js';
import { packageFiles as clientPackageFiles } from '../../src/plan/core-section.js';
import { declaredValues } from '../../src/plan/variables.js';
import { type CoreServerOptions, type RunningCore, startCoreServer } from '../../src/server/server.js';

export interface Answer<T = any> {
  status: number;
  body: T;
  headers: Headers;
}

export interface TestCore extends RunningCore {
  call<T = any>(method: string, path: string, options?: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string | null }): Promise<Answer<T>>;
  /** Stops the server and removes its data directory. */
  dispose(): Promise<void>;
}

export function tempDir(prefix = 'core-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

/** A real local core on a free loopback port, with data in a fresh temp directory unless one is given. */
export async function startTestCore(options: Partial<CoreServerOptions> = {}): Promise<TestCore> {
  const dataDir = options.dataDir ?? tempDir();
  const core = await startCoreServer({ token: 'test-token', ...options, dataDir });
  return {
    ...core,
    call: (method, path, callOptions = {}) => call(core.url, core.token, method, path, callOptions),
    async dispose() {
      await core.stop();
      if (!options.dataDir) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function call(
  url: string,
  token: string,
  method: string,
  path: string,
  options: { body?: unknown; raw?: string; headers?: Record<string, string>; token?: string | null } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { 'Content-Type': 'application/json', ...options.headers };
  const bearer = options.token === undefined ? token : options.token;
  if (bearer !== null) headers.Authorization = `Bearer ${bearer}`;
  const body = options.raw ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  const response = await fetch(`${url}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text), headers: response.headers };
}

/** The files of a package directory as `/packages:plan` takes them: YAML and JSON, ordered by path parts. */
export function packageFiles(dir: string): { path: string; content: string }[] {
  const files: string[] = [];
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      if (name.startsWith('.')) continue;
      const path = join(at, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (/\.(ya?ml|json)$/.test(name)) files.push(path);
    }
  };
  walk(dir);
  const parts = (p: string) => relative(dir, p).split(sep);
  files.sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
    return x.length - y.length;
  });
  return files.map((f) => ({ path: parts(f).join('/'), content: readFileSync(f, 'utf8') }));
}

/**
 * The files of a package as the client sends them to the core (the reference's way, plan/apply/test --server):
 * `${VAR}` put in from the package's defaults and `values`, no KnowledgePack files, no dot paths.
 */
export async function clientFiles(dir: string, values: Record<string, string> = {}): Promise<{ path: string; content: string }[]> {
  const workspace = await loadTargets({ paths: [dir] });
  const pkg = workspace.packages[0]!;
  return clientPackageFiles(pkg, { ...declaredValues(pkg), ...values });
}

export const DESK = new URL('../../fixtures/core/packages/desk/', import.meta.url).pathname;
export const SEED = new URL('../../fixtures/core/seed.yaml', import.meta.url).pathname;

// ---- contracts -------------------------------------------------------------------------------------

type FormatsPlugin = (ajv: Ajv2020) => Ajv2020;
const addFormats = ((addFormatsModule as unknown as { default?: FormatsPlugin }).default ?? addFormatsModule) as unknown as FormatsPlugin;

/** A path template with its parameters unnamed: `/roles/{id}` and `/roles/{role_id}` are the same route. */
const unnamed = (template: string): string => template.replace(/\{[^}]+\}/g, '{}');

/** A validator over one OpenAPI document's component schemas (some documents use keywords like `gt` that ajv does not know). */
export class Contract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, allowUnionTypes: true });

  constructor(readonly doc: any) {
    addFormats(this.ajv);
    this.ajv.addSchema({ components: doc.components }, 'doc.json');
  }

  errors(schemaName: string, value: unknown): string[] {
    const validate = this.ajv.getSchema(`doc.json#/components/schemas/${schemaName}`) ?? this.ajv.compile({ $ref: `doc.json#/components/schemas/${schemaName}` });
    return validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`);
  }

  /** Asserts that `value` is a valid `schemaName`. */
  valid(schemaName: string, value: unknown): void {
    expect(this.errors(schemaName, value), `${schemaName}: ${JSON.stringify(value).slice(0, 400)}`).toEqual([]);
  }

  /** The operation a document gives for a method on a path template, whatever it names the path's parameters. */
  operation(template: string, method: string): any {
    const path = Object.keys(this.doc.paths ?? {}).find((candidate) => unnamed(candidate) === unnamed(template));
    return path === undefined ? undefined : this.doc.paths[path][method.toLowerCase()];
  }

  /** The schema a path documents for a method and status, by `$ref` name. */
  responseSchema(path: string, method: string, status: number): string | undefined {
    const responses = this.operation(path, method)?.responses;
    const response = responses?.[String(status)] ?? responses?.default;
    const ref: string | undefined = response?.content?.['application/json']?.schema?.$ref;
    return ref?.split('/').at(-1);
  }

  requestSchema(path: string, method: string): string | undefined {
    const ref: string | undefined = this.operation(path, method)?.requestBody?.content?.['application/json']?.schema?.$ref;
    return ref?.split('/').at(-1);
  }

  /** Asserts an answer of `path` against the response the document gives for its status. */
  answer(path: string, method: string, answer: Answer): void {
    const responses = this.operation(path, method)?.responses;
    expect(responses?.[String(answer.status)] ?? responses?.default, `${method} ${path} documents no answer ${answer.status}`).toBeDefined();
    const schema = this.responseSchema(path, method, answer.status);
    if (schema) this.valid(schema, answer.body); // a response documented as `{}` takes any JSON
    else expect(answer.body).toBeDefined();
  }
}

/** docs/core-openapi.json: the project's own document of the local core, which `GET /openapi.json` serves. */
export const OPENAPI_FILE = new URL('../../docs/core-openapi.json', import.meta.url).pathname;

/**
 * The documents requests and answers are checked against, by the slice of the API they describe: the install
 * routes, the catalog's request bodies and answers, `POST /packages:record`.
 */
export interface Contracts {
  install: Contract;
  catalog: Contract;
  record: Contract;
}

const ours = new Contract(JSON.parse(readFileSync(OPENAPI_FILE, 'utf8')));

/** Our own document for every slice. */
export const OURS: Contracts = { install: ours, catalog: ours, record: ours };
