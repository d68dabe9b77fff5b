/**
 * The tools of `package-sdk mcp`: what an AI assistant may do with the packages under the server's root —
 * check, test and describe them, edit their files, plan an installation against a core, and apply a plan.
 * Each tool has a JSON Schema for its arguments and one for its result; a tool that refuses answers the
 * refusal (code, message, hint) as an error result the assistant can read and act on.
 *
 * Paths are relative to the root (`PACKAGE_SDK_ROOT`, default: the working directory) and may not leave it
 * (`path_outside_root`); a core is one of `PACKAGE_SDK_SERVERS` (default: `local`, the embedded core) or
 * refused (`server_not_allowed`). `apply` applies only with `confirm: true` and the `planHash` of the plan.
 */
import { isAbsolute, relative, resolve } from 'node:path';
import { editPackage, EDIT_OPERATIONS, type EditRequest } from '../author/edit/index.js';
import { check } from '../check/index.js';
import type { LocalCoreStarter } from '../contract/local-core.js';
import { describePackage } from '../docs/describe.js';
import { Refusal } from '../fs/refusal.js';
import { apply } from '../plan/apply.js';
import { plan } from '../plan/plan.js';
import { runTests } from '../sandbox/index.js';

type JsonSchema = Record<string, unknown>;

export interface ToolContext {
  /** Absolute directory every path is relative to. */
  root: string;
  /** The cores plan and apply may talk to. */
  servers: readonly string[];
  localCore: LocalCoreStarter;
}

export interface Tool {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  run(args: Record<string, unknown>, context: ToolContext): Promise<Record<string, unknown>>;
}

const TARGETS: JsonSchema = {
  package: { type: 'string', description: 'A package directory (relative to the root).' },
  install: { type: 'string', description: 'An installation file: its packages.' },
};

const FINDING: JsonSchema = {
  type: 'object',
  description: 'One mistake: code, severity, message, file, line, column, path (JSON Pointer), hint.',
  properties: {
    code: { type: 'string' }, severity: { enum: ['error', 'warning'] }, message: { type: 'string' }, file: { type: 'string' },
    line: { type: 'integer' }, column: { type: 'integer' }, path: { type: 'string' }, hint: { type: 'string' },
  },
  required: ['code', 'severity', 'message', 'file', 'line', 'path'],
};

const object = (properties: JsonSchema, required: string[] = []): JsonSchema => ({ type: 'object', properties, required });

export const TOOLS: readonly Tool[] = [
  {
    name: 'check',
    title: 'Check packages',
    description: 'Check a package (or an installation, or files) offline: the format schema, then every rule. Returns every finding with its file, line, code, message and hint.',
    inputSchema: object({ ...TARGETS, paths: { type: 'array', items: { type: 'string' }, description: 'Single files or package directories.' } }),
    outputSchema: object({
      ok: { type: 'boolean' }, errors: { type: 'array', items: FINDING }, warnings: { type: 'array', items: FINDING },
      suppressed: { type: 'array', items: FINDING }, packages: { type: 'integer' }, objects: { type: 'integer' }, tests: { type: 'integer' },
    }, ['ok', 'errors', 'warnings', 'packages', 'objects', 'tests']),
    async run(args, context) {
      const { report } = await check({ cwd: context.root, ...targets(args, context) });
      return { ...report };
    },
  },
  {
    name: 'test',
    title: 'Run package scenarios',
    description: "Run a package's scenarios (tests/*.test.yaml) in the local process engine; a package with check errors runs none.",
    inputSchema: object({ ...TARGETS, test: { type: 'string', description: 'Only the scenario with this name or file name.' } }),
    outputSchema: object({
      ok: { type: 'boolean' }, passed: { type: 'integer' }, failed: { type: 'integer' }, errors: { type: 'integer' },
      tests: { type: 'array', items: { type: 'object' } }, coverage: { type: 'array', items: { type: 'object' } }, problems: { type: 'array', items: FINDING },
    }, ['ok', 'passed', 'failed', 'tests', 'problems']),
    async run(args, context) {
      const { report } = await runTests({ cwd: context.root, ...targets(args, context), ...(typeof args.test === 'string' ? { test: args.test } : {}) });
      return { ...report };
    },
  },
  {
    name: 'describe',
    title: 'What an installation of a package needs',
    description: 'The installation variables, settings, ontologies, required packages, engines and agents of a package.',
    inputSchema: object({ package: TARGETS.package }, ['package']),
    outputSchema: object({ objects: { type: 'object' }, variables: { type: 'array' }, requires: { type: 'array' }, engines: { type: 'object' } }),
    async run(args, context) {
      return { ...(await describePackage(inRoot(context, args.package, 'package'))) };
    },
  },
  {
    name: 'edit',
    title: 'Edit a package file',
    description: 'A style-preserving edit of an object file, checked with the whole package before it is written (refused, with the findings, when it would bring an error). ' +
      'Operations: add-step {file, in, step, block?, after?, before?}, add-stage {file, stage, after?, before?}, add-decision-row {file, table, row, index?}, ' +
      'add-rule {file, table+row | onEvent, index?}, add-form-field {file, step, name, schema, required?, label?}, rename {file | package, kind?, from, to, migration?}, ' +
      'set {file, path (JSON Pointer), value, string?}. Fragments (step, stage, row, onEvent, schema, value) are YAML text or JSON values. dryRun returns the diff only.',
    inputSchema: {
      type: 'object',
      properties: {
        operation: { enum: [...EDIT_OPERATIONS] },
        file: { type: 'string' }, package: { type: 'string' }, kind: { type: 'string' },
        in: { type: 'string' }, step: {}, block: { type: 'boolean' }, after: { type: 'string' }, before: { type: 'string' },
        stage: {}, table: { type: 'string' }, row: {}, index: { type: 'integer', minimum: 0 }, onEvent: {},
        name: { type: 'string' }, schema: {}, required: { type: 'boolean' }, label: { type: 'string' },
        from: { type: 'string' }, to: { type: 'string' }, migration: { type: 'boolean' },
        path: { type: 'string' }, value: {}, string: { type: 'boolean' },
        dryRun: { type: 'boolean', description: 'Check and return the diff; write nothing.' },
      },
      required: ['operation'],
    },
    outputSchema: object({
      operation: { type: 'string' }, dryRun: { type: 'boolean' }, written: { type: 'boolean' },
      files: { type: 'array', items: object({ file: { type: 'string' }, from: { type: 'string' } }, ['file']) },
      diff: { type: 'string' }, warnings: { type: 'array', items: FINDING },
    }, ['operation', 'dryRun', 'written', 'files', 'diff', 'warnings']),
    async run(args, context) {
      const { dryRun, ...request } = args;
      for (const field of ['file', 'package'] as const) if (typeof request[field] === 'string') inRoot(context, request[field], field);
      return { ...(await editPackage(request as unknown as EditRequest, { cwd: context.root, dryRun: dryRun === true })) };
    },
  },
  {
    name: 'plan',
    title: 'Plan an installation',
    description: 'Build the hash-sealed plan of an installation against a core (writing nothing to the core) and save it; apply takes the file and its planHash.',
    inputSchema: object({
      install: TARGETS.install, server: { type: 'string', description: 'A core the server allows ("local": the embedded core).' },
      out: { type: 'string', description: 'Where to save the plan (default plan.json next to the installation).' },
      env: { type: 'string', description: 'Variable values, NAME=value per line.' },
    }, ['install', 'server']),
    outputSchema: object({
      planHash: { type: 'string' }, out: { type: 'string' }, server: { type: 'string' },
      changes: { type: 'integer', description: 'Changes of every section (unchanged objects not counted).' }, sections: { type: 'array', items: { type: 'object' } },
    }, ['planHash', 'out', 'changes', 'sections']),
    async run(args, context) {
      const install = inRoot(context, args.install, 'install');
      const out = typeof args.out === 'string' ? inRoot(context, args.out, 'out') : resolve(install, '..', 'plan.json');
      const result = await plan({ install, server: allowedServer(context, args.server), out, localCore: context.localCore, localDataDir: resolve(context.root, '.package-sdk/core'),
        ...(typeof args.env === 'string' ? { env: inRoot(context, args.env, 'env') } : {}) });
      const sections = result.document.sections;
      return { planHash: result.document.planHash, out: relative(context.root, out), server: result.document.server, changes: countChanges(sections), sections };
    },
  },
  {
    name: 'apply',
    title: 'Apply a saved plan',
    description: 'Apply exactly a plan saved by plan: only with confirm: true and the planHash of that plan (a person has approved it). Refused when the core moved since the plan.',
    inputSchema: object({
      plan: { type: 'string', description: 'The plan file.' }, planHash: { type: 'string', pattern: '^sha256:[0-9a-f]{64}$' },
      confirm: { const: true, description: 'True: a person approved this plan.' }, server: { type: 'string' }, env: { type: 'string' },
    }, ['plan', 'planHash', 'confirm']),
    outputSchema: object({ planHash: { type: 'string' }, server: { type: 'string' }, applied: { type: 'array', items: { type: 'object' } }, core: { type: 'array', items: { type: 'object' } } }, ['planHash', 'applied']),
    async run(args, context) {
      if (args.confirm !== true) throw new Refusal('apply_not_confirmed', 'apply needs confirm: true — a person approves the plan first', { hint: 'show the plan to a person, then call apply with confirm: true and its planHash' });
      if (typeof args.planHash !== 'string') throw new Refusal('apply_not_confirmed', 'apply needs the planHash of the approved plan');
      const planFile = inRoot(context, args.plan, 'plan');
      const server = typeof args.server === 'string' ? allowedServer(context, args.server) : undefined;
      const result = await apply({ plan: planFile, planHash: args.planHash, localCore: context.localCore, localDataDir: resolve(context.root, '.package-sdk/core'),
        ...(server ? { server } : {}), ...(typeof args.env === 'string' ? { env: inRoot(context, args.env, 'env') } : {}) });
      return { ...result };
    },
  },
];

/** The targets of check and test: a package, an installation, or paths; the root's packages when none. */
function targets(args: Record<string, unknown>, context: ToolContext): { packages?: string[]; install?: string; paths?: string[] } {
  return {
    ...(typeof args.package === 'string' ? { packages: [inRoot(context, args.package, 'package')] } : {}),
    ...(typeof args.install === 'string' ? { install: inRoot(context, args.install, 'install') } : {}),
    ...(Array.isArray(args.paths) ? { paths: args.paths.map((path) => inRoot(context, path, 'paths')) } : {}),
  };
}

/** A path under the root, absolute; refused when it leaves the root. */
function inRoot(context: ToolContext, path: unknown, what: string): string {
  if (typeof path !== 'string' || path === '') throw new Refusal('usage', `${what} is required (a path relative to ${context.root})`, { exitCode: 2 });
  const absolute = resolve(context.root, path);
  const inside = relative(context.root, absolute);
  if (inside.startsWith('..') || isAbsolute(inside)) {
    throw new Refusal('path_outside_root', `${what} '${path}' is outside the root ${context.root}`, { hint: 'name files under the root (PACKAGE_SDK_ROOT)' });
  }
  return absolute;
}

function allowedServer(context: ToolContext, server: unknown): string {
  if (typeof server !== 'string' || !context.servers.includes(server)) {
    throw new Refusal('server_not_allowed', `server '${String(server)}' is not one this MCP server may use (${context.servers.join(', ')})`, { hint: 'list it in PACKAGE_SDK_SERVERS (comma-separated; "local" is the embedded core)' });
  }
  return server;
}

function countChanges(sections: readonly Record<string, unknown>[]): number {
  let count = 0;
  for (const section of sections) {
    const changes = Array.isArray(section.changes) ? section.changes : [];
    count += changes.filter((change) => (change as { operation?: unknown }).operation !== 'unchanged').length;
    const core = (section.plan as { changes?: { action?: unknown }[] } | undefined)?.changes ?? [];
    count += core.filter((change) => change.action !== 'unchanged').length;
    for (const list of [section.register, section.enable, section.items]) if (Array.isArray(list)) count += list.length;
  }
  return count;
}
