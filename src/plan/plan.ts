/**
 * `plan` (compat-package-sdk-install §4): the installation checked, its variables resolved, the core's
 * version held against every package's `engines`, then each section asked of the core without writing
 * anything — and the result sealed by `planHash` into a file that only `apply` uses.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import type { CoreClient } from '../client/client.js';
import { recordedServer, withCore, type CoreConnection } from '../client/connect.js';
import type { Seed } from '../contract/seed.js';
import { versionSatisfies } from '../model/semver-range.js';
import { catalogSteps } from './catalog.js';
import { blockingProblems, coreSection, isCorePackage, packageFiles, requestCorePlan } from './core-section.js';
import { createdAtNow, seal, writePlanFile, type CoreSection, type PlanDocument, type SealedPlan, type Section, PLAN_FORMAT } from './document.js';
import { knowledgeSteps, type KnowledgeSteps } from './knowledge.js';
import { hasNotificationRules, notificationSteps } from './notifications.js';
import { Refusal } from '../fs/refusal.js';
import { retireSteps } from './retire.js';
import type { SectionContext, Step } from './section.js';
import { loadInstallation, type LoadedInstallation } from './sources.js';
import { lookUpVariables, readEnvironment, resolveVariables, type Environment, type Variables } from './variables.js';
import type { LocalCoreStarter } from '../contract/local-core.js';

export const DEFAULT_REPLAY_LIMIT = 50;

export interface PlanOptions {
  install: string;
  /** A core URL, or `local` for the embedded core. */
  server: string;
  /** Where to write the plan; without it nothing is written (library use). */
  out?: string;
  /** The `--env` file (default `.env` when it exists). */
  env?: string;
  /** The environment overlaid on the file (default: the process environment). */
  processEnv?: NodeJS.ProcessEnv;
  workspaceId?: string;
  replayLimit?: number;
  overwriteConsole?: boolean;
  /** Data of the embedded core of `--server local` (default `.package-sdk/core`). */
  localDataDir?: string;
  /** How `--server local` starts the embedded core (the commands give the local core of src/server/). */
  localCore?: LocalCoreStarter;
  cacheDir?: string;
  warn?: (message: string) => void;
}

export interface PlanResult {
  document: PlanDocument;
  floats: ReadonlySet<string>;
  /** The file written, when `out` was given. */
  out?: string;
  warnings: string[];
  /** HTTP requests made to the core. */
  requests: number;
}

/** What plan and apply both establish before building sections: packages, variables, and the core's version. */
export interface Stand {
  loaded: LoadedInstallation;
  variables: Variables;
  connection: CoreConnection;
  version: string;
  context: SectionContext;
}

/** Loads and checks the installation, resolves the variables, and runs `use` against the core. */
export async function onStand<T>(
  options: Pick<PlanOptions, 'install' | 'server' | 'env' | 'processEnv' | 'localDataDir' | 'localCore' | 'cacheDir'> & { warn: (message: string) => void; log?: (message: string) => void },
  use: (stand: Stand) => Promise<T>,
): Promise<T> {
  const server = recordedServer(options.server); // a bad address refuses before anything is loaded
  const loaded = await loadInstallation(options.install, { ...(options.cacheDir ? { cacheDir: options.cacheDir } : {}) });
  for (const warning of loaded.warnings) options.warn(warning);
  const env: Environment = await readEnvironment(options.env, options.processEnv);
  const variables = resolveVariables(loaded.workspace.packages, loaded.installation, env);
  const connectOptions = {
    env, localSeed: sandboxSeed(loaded, variables),
    ...(options.localDataDir ? { localDataDir: options.localDataDir } : {}), ...(options.localCore ? { localCore: options.localCore } : {}),
  };
  return withCore(server, connectOptions, async (connection) => {
    const version = await coreVersion(connection.client);
    const corePackages = new Set(loaded.workspace.packages.filter(isCorePackage).map((pkg) => pkg.key));
    const context: SectionContext = {
      client: connection.client, workspace: loaded.workspace, variables, corePackages, warn: options.warn, log: options.log ?? (() => undefined),
      ...(connection.notifications ? { notifications: connection.notifications } : {}),
    };
    return use({ loaded, variables, connection, version, context });
  });
}

export async function plan(options: PlanOptions): Promise<PlanResult> {
  const warnings: string[] = [];
  const warn = (message: string): void => {
    warnings.push(message);
    options.warn?.(message);
  };
  return onStand({ ...options, warn }, async (stand) => {
    const { loaded, variables, connection, version, context } = stand;
    checkEngines(loaded, version, warn);
    await lookUpVariables(loaded.workspace.packages, variables, connection.client);
    if (hasNotificationRules(context) && !connection.notifications) {
      throw new Refusal('notification_service_required', 'the installation has notification rules — a notification service is needed ' +
        '(NOTIFICATION_SERVICE_URL and a token with audience notification-service)');
    }
    const out = options.out === undefined ? undefined : resolve(options.out);
    const sealed = await buildPlan(stand, {
      createdAt: createdAtNow(),
      install: out ? relative(dirname(out), resolve(options.install)).split(sep).join('/') : resolve(options.install),
      overwriteConsole: options.overwriteConsole ?? false,
      core: () => ({ replayLimit: options.replayLimit ?? DEFAULT_REPLAY_LIMIT, ...(options.workspaceId ? { workspaceId: options.workspaceId } : {}) }),
    });
    refuseCoreErrors(sealed);
    if (out) await writePlanFile(out, sealed);
    return { ...sealed, ...(out ? { out } : {}), warnings, requests: connection.client.requests + (connection.notifications !== connection.client ? connection.notifications?.requests ?? 0 : 0) };
  });
}

/** What a plan document takes from its caller rather than from the installation and the core. */
export interface PlanFrame {
  createdAt: string;
  /** The installation file as the document names it. */
  install: string;
  overwriteConsole: boolean;
  /** The request parameters of the core section of a package. */
  core: (pkg: string) => { replayLimit: number; workspaceId?: string };
}

/**
 * The whole plan document of the installation on the core as it is now: plan builds it to save it, apply
 * builds it again from the same frame and compares it with the file, so both go through this one function.
 */
export async function buildPlan(stand: Stand, frame: PlanFrame): Promise<SealedPlan> {
  const { loaded, variables, connection, version, context } = stand;
  const floats = new Set<string>();
  const sections: Section[] = [{ kind: 'catalog', changes: (await catalogSteps(context)).map((step) => step.change) }];
  for (const pkg of loaded.workspace.packages.filter((candidate) => context.corePackages.has(candidate.key))) {
    const request = { files: await packageFiles(pkg, variables.valuesOf.get(pkg.key) ?? {}), overwriteConsole: frame.overwriteConsole, ...frame.core(pkg.key) };
    const answer = await requestCorePlan(connection.client, pkg, request);
    for (const pointer of answer.floats) floats.add(`/sections/${sections.length}/plan${pointer}`);
    sections.push(coreSection(pkg, answer.body, request));
  }
  sections.push(...installerSections(await knowledgeSteps(context), await notificationSteps(context), await retireSteps(context)));
  return seal({
    format: PLAN_FORMAT,
    server: connection.server,
    engines: { 'control-plane': version },
    createdAt: frame.createdAt,
    ...(loaded.installation.key ? { installation: loaded.installation.key } : {}),
    install: frame.install,
    lockHash: loaded.lockHash,
    variablesHash: variables.variablesHash,
    overwriteConsole: frame.overwriteConsole,
    sections,
  }, floats);
}

export function installerSections(knowledge: KnowledgeSteps, notifications: readonly Step[], retire: readonly Step[]): Section[] {
  return [
    { kind: 'knowledge', register: knowledge.register.map((step) => step.change), enable: knowledge.enable.map((step) => step.item) },
    { kind: 'notification-rules', changes: notifications.map((step) => step.change) },
    { kind: 'retire', items: retire.map((step) => step.change) },
  ];
}

/** `GET /openapi.json` → `info.version`: without it no package's compatibility can be checked. */
export async function coreVersion(client: CoreClient): Promise<string> {
  let openapi: { info?: { version?: unknown } };
  try {
    openapi = await client.get('/openapi.json');
  } catch (error) {
    throw new Refusal('core_version_unknown', `core version not read (/openapi.json: ${(error as Error).message}) — package compatibility ` +
      '(engines) cannot be checked without it, the plan is not built');
  }
  const version = openapi.info?.version;
  if (typeof version !== 'string' || version === '') {
    throw new Refusal('core_version_unknown', "the core's /openapi.json has no info.version — compatibility cannot be checked");
  }
  return version;
}

function checkEngines(loaded: LoadedInstallation, version: string, warn: (message: string) => void): void {
  const problems: string[] = [];
  for (const pkg of loaded.workspace.packages) {
    const engines = (pkg.manifest.value as { spec?: { engines?: Record<string, unknown> } }).spec?.engines ?? {};
    for (const [component, range] of Object.entries(engines)) {
      if (component !== 'control-plane') {
        warn(`${pkg.manifest.file}: engines.${component} is not checked by plan (only control-plane is)`);
        continue;
      }
      if (!versionSatisfies(version, String(range))) {
        problems.push(`${pkg.manifest.file}: engines_incompatible: package ${pkg.key} is compatible with control-plane ${String(range)}, ` +
          `but the core has control-plane ${version}`);
      }
    }
  }
  if (problems.length > 0) {
    throw new Refusal('engines_incompatible', `the core's version is outside package compatibility — the plan is not built:\n  ${problems.join('\n  ')}`, { hint: 'install on a core in the range, or release the packages for this core', exitCode: 1, problems });
  }
}

function refuseCoreErrors(plan: SealedPlan): void {
  const problems = plan.document.sections.filter((section): section is CoreSection => section.kind === 'core').flatMap(blockingProblems);
  if (problems.length > 0) {
    throw new Refusal('core_plan_errors', `the core plan has errors — the plan is not saved and cannot be applied:\n  ${problems.join('\n  ')}`, { exitCode: 1, problems });
  }
}

/**
 * The embedded core is a sandbox with no workspaces of its own: it gets the workspaces, projects, principals
 * and roles that the variables name, so a plan against `--server local` can be tried at once. A real core
 * must already hold them (plan looks them up).
 */
function sandboxSeed(loaded: LoadedInstallation, variables: Variables): Seed {
  const seed: Required<Seed> = { workspaces: [], projects: [], principals: [], roles: [] };
  const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
  const add = (kind: keyof Seed, id: string | undefined): void => {
    if (id && uuid.test(id) && !seed[kind].some((entry) => entry.id === id)) seed[kind].push({ id });
  };
  for (const pkg of loaded.workspace.packages) {
    const declared = (pkg.manifest.value as { spec?: { variables?: Record<string, { kind?: string }> } }).spec?.variables ?? {};
    for (const [name, declaration] of Object.entries(declared)) {
      const kind = `${declaration?.kind ?? ''}s`;
      if (kind in seed) add(kind as keyof Seed, variables.hashed.packages[pkg.key]?.[name]);
    }
  }
  for (const value of Object.values(variables.installationValues)) add('workspaces', value);
  return seed;
}
