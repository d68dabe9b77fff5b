/**
 * `apply --plan` (compat-package-sdk-install §5): a plan is applied only as it was built and only while
 * the world it was built against is unchanged. Before the first write: the file is verified (schema,
 * section order, `planHash`), the installation rebuilt from its sources (`lockHash`, `variablesHash`),
 * the core's version, its core packages, every installer section and every core `planHash` compared —
 * any difference is `plan_stale`. Then someone approves, and the sections are written in order.
 *
 * Every write is idempotent and sections are rebuilt right before they are written, so an apply that
 * stopped half-way (killed, network down) is completed by planning and applying again.
 */
import { dirname, relative, resolve, sep } from 'node:path';
import { CoreHttpError } from '../client/client.js';
import { recordedServer } from '../client/connect.js';
import { contentHash } from '../sources/content-hash.js';
import { catalogSteps, installerObjects } from './catalog.js';
import { packageFiles } from './core-section.js';
import { differences, shortValue, type Difference } from './difference.js';
import { INFO_KEYS, readPlanFile, type Change, type CoreSection, type PlanDocument, type SealedPlan, type Section } from './document.js';
import { knowledgeSteps } from './knowledge.js';
import { notificationSteps } from './notifications.js';
import { buildPlan, DEFAULT_REPLAY_LIMIT, installerSections, onStand, type Stand } from './plan.js';
import { Refusal } from '../fs/refusal.js';
import { stale } from './refusal.js';
import { retireSteps } from './retire.js';
import type { SectionContext, Step } from './section.js';
import { lookUpVariables } from './variables.js';
import type { LocalCoreStarter } from '../contract/local-core.js';

export interface ApplyOptions {
  /** The plan file. */
  plan: string;
  /** Default: the server the plan was built for. */
  server?: string;
  env?: string;
  processEnv?: NodeJS.ProcessEnv;
  /**
   * Approval: called with the verified plan after every check passed; false cancels with nothing written.
   * Not needed with `planHash` equal to the plan's or with `autoApprove`.
   */
  confirm?: (plan: PlanDocument) => Promise<boolean>;
  /** The hash a person or a pipeline approved; it must equal the plan's `planHash`. */
  planHash?: string;
  autoApprove?: boolean;
  localDataDir?: string;
  /** How `--server local` starts the embedded core (the commands give the local core of src/server/). */
  localCore?: LocalCoreStarter;
  cacheDir?: string;
  warn?: (message: string) => void;
  /** One line per write done. */
  progress?: (message: string) => void;
}

export interface AppliedChange {
  section: Section['kind'];
  kind: string;
  key: string;
  operation: string;
  version?: string | number;
}

export interface ApplyResult {
  planHash: string;
  server: string;
  applied: AppliedChange[];
  /** Per core package: the core's `/packages:apply` answer. */
  core: { package: string; planHash: string; applied: unknown[] }[];
  requests: number;
}

export async function apply(options: ApplyOptions): Promise<ApplyResult> {
  const planFile = resolve(options.plan);
  const { document: file } = await readPlanFile(planFile);
  const server = recordedServer(options.server ?? file.server);
  if (server !== file.server) {
    throw new Refusal('server_mismatch', `the plan was built for ${file.server}, but is applied to ${server}`, { hint: `apply it with --server ${file.server === 'http://localhost/local' ? 'local' : file.server}, or build a plan for ${server}` });
  }
  if (!file.install) throw new Refusal('plan_invalid', 'the plan names no installation file (install) — build the plan again');
  const install = resolve(dirname(planFile), file.install);
  const warn = options.warn ?? (() => undefined);
  const progress = options.progress ?? (() => undefined);
  return onStand({ ...options, server: options.server ?? file.server, install, warn, log: progress }, async (stand) => {
    // What is shown, approved and written is the rebuilt plan; it is the file's wherever the file has a say.
    const document: PlanDocument = { ...(await verify(planFile, file, stand)).document, planHash: file.planHash };
    await approve(document, options);
    const applied: AppliedChange[] = [];
    const core: ApplyResult['core'] = [];
    const done = (section: Section['kind'], change: Pick<Change, 'kind' | 'key' | 'operation' | 'version'>): void => {
      applied.push({ section, kind: change.kind, key: change.key, operation: change.operation, ...(change.version !== undefined ? { version: change.version } : {}) });
      progress(`${change.kind}/${change.key}: ${change.operation}${change.version !== undefined ? ` v${change.version}` : ''}`);
    };
    const ctx = stand.context;
    for (const section of document.sections) {
      switch (section.kind) {
        case 'catalog':
          await runSteps(section.kind, await fresh(section, () => catalogSteps(ctx), (steps) => steps.map((s) => s.change)), done);
          await recordPackages(ctx, progress);
          break;
        case 'core':
          core.push(await applyCore(stand, section, document.overwriteConsole, done));
          break;
        case 'knowledge': {
          const steps = await fresh(section, () => knowledgeSteps(ctx), (k) => installerSections(k, [], [])[0]!);
          await runSteps(section.kind, steps.register, done);
          for (const step of steps.enable) {
            await step.write();
            done(section.kind, { kind: 'Workspace', key: step.item.workspace, operation: 'enable' });
          }
          break;
        }
        case 'notification-rules':
          await runSteps(section.kind, await fresh(section, () => notificationSteps(ctx), (steps) => steps.map((s) => s.change)), done);
          break;
        case 'retire':
          await runSteps(section.kind, await fresh(section, () => retireSteps(ctx), (steps) => steps.map((s) => s.change)), done);
          break;
      }
    }
    const requests = stand.connection.client.requests + (stand.connection.notifications !== stand.connection.client ? stand.connection.notifications?.requests ?? 0 : 0);
    return { planHash: document.planHash, server: document.server, applied, core, requests };
  });
}

/**
 * §5.2 step 8, and more: the whole document is built again from the installation and the core, with what
 * only the file can say (createdAt, the core sections' replay limits and workspaces, overwriteConsole), and
 * compared with the file field by field before the first write. What the world changed is `plan_stale`;
 * what the core confirms by its hash but the file tells otherwise, or what the rebuild cannot confirm at
 * all, is `plan_modified`. Apply then shows and writes the rebuilt plan, never the file's own words.
 */
async function verify(planFile: string, file: PlanDocument, stand: Stand): Promise<SealedPlan> {
  if (stand.loaded.lockHash !== file.lockHash) throw stale('packages or their sources changed after the plan was built (lockHash)');
  if (stand.variables.variablesHash !== file.variablesHash) throw stale('installation variable values changed (variablesHash)');
  const planned = file.engines['control-plane'];
  if (stand.version !== planned) throw stale(`the core was updated: ${planned} → ${stand.version}`);
  await lookUpVariables(stand.loaded.workspace.packages, stand.variables, stand.connection.client);
  const coreSections = new Map(file.sections.filter((section): section is CoreSection => section.kind === 'core').map((section) => [section.package, section]));
  const corePackages = stand.loaded.workspace.packages.filter((pkg) => stand.context.corePackages.has(pkg.key)).map((pkg) => pkg.key);
  if ([...coreSections.keys()].join('\n') !== corePackages.join('\n')) throw stale('packages with processes and calendars differ from the plan');
  const rebuilt = await buildPlan(stand, {
    createdAt: file.createdAt,
    install: relative(dirname(planFile), resolve(dirname(planFile), file.install)).split(sep).join('/'),
    overwriteConsole: file.overwriteConsole,
    core: (pkg) => {
      const section = coreSections.get(pkg)!;
      return { replayLimit: section.replayLimit ?? DEFAULT_REPLAY_LIMIT, ...(section.workspaceId !== undefined ? { workspaceId: section.workspaceId } : {}) };
    },
  });
  file.sections.forEach((section, index) => {
    const now = rebuilt.document.sections[index]!;
    if (section.kind === 'core' && now.kind === 'core') compareCoreSection(section, now);
    else compareSection(section, now);
  });
  const unconfirmed = differences(withoutInfoKeys(file), withoutInfoKeys(rebuilt.document)).find((difference) => difference.path !== '/planHash');
  if (unconfirmed) {
    throw new Refusal('plan_modified', `${planFile}: the plan says ${unconfirmed.path} is ${shortValue(unconfirmed.before)}, but the plan rebuilt ` +
      `from the installation and the core has ${shortValue(unconfirmed.after)} — the file was edited after it was built`, { hint: 'build the plan again: package-sdk plan … --out' });
  }
  return rebuilt;
}

/** The core vouches for its plan by its hash: another hash is a moved core, the same hash with other content an edited file. */
function compareCoreSection(planned: CoreSection, now: CoreSection): void {
  if (now.planHash !== planned.planHash) {
    throw stale(`core plan of package ${planned.package}: ${planned.planHash} → ${now.planHash} (catalog or live instances changed)`);
  }
}

/**
 * The document without what may move between two builds of the same plan: the informative keys of installer
 * changes, and the time a core answered (its plan is vouched for by its hash, which the time is not part of).
 */
function withoutInfoKeys(document: PlanDocument): unknown {
  return { ...document, sections: document.sections.map((section) => {
    switch (section.kind) {
      case 'catalog':
      case 'notification-rules':
        return { ...section, changes: section.changes.map(withoutInfo) };
      case 'retire':
        return { ...section, items: section.items.map(withoutInfo) };
      case 'knowledge':
        return { ...section, register: (section.register ?? []).map(withoutInfo), enable: (section.enable ?? []).map(withoutInfo) };
      case 'core':
        return { ...section, plan: { ...section.plan, createdAt: undefined } };
    }
  }) };
}

async function approve(document: PlanDocument, options: ApplyOptions): Promise<void> {
  if (options.planHash !== undefined) {
    if (options.planHash !== document.planHash) {
      throw new Refusal('apply_not_confirmed', `--plan-hash ${options.planHash} is not the hash of this plan (${document.planHash})`, { hint: 'approve the plan you apply: pass its planHash as printed by plan' });
    }
    return;
  }
  if (options.autoApprove) return;
  if (!options.confirm) {
    throw new Refusal('apply_not_confirmed', 'applying a plan requires confirmation by a human', { hint: 'run in a terminal, or approve the plan with --plan-hash <planHash> (or --auto-approve)' });
  }
  if (!(await options.confirm(document))) throw new Refusal('apply_not_confirmed', 'apply cancelled: the plan was not confirmed');
}

/** The section rebuilt right before it is written (the core may have moved since the preflight). */
async function fresh<T>(section: Section, build: () => Promise<T>, asSection: (built: T) => Change[] | Section): Promise<T> {
  const built = await build();
  const shape = asSection(built);
  compareSection(section, Array.isArray(shape) ? ({ ...section, [itemsField(section)]: shape } as Section) : shape);
  return built;
}

async function runSteps(section: Section['kind'], steps: readonly Step[], done: (section: Section['kind'], change: Change) => void): Promise<void> {
  for (const step of steps) {
    await step.write?.();
    done(section, step.change);
  }
}

function itemsField(section: Section): 'changes' | 'items' {
  return section.kind === 'retire' ? 'items' : 'changes';
}

/** Changes compared without their informative keys, in order (§5.2); a difference names its field and both values. */
function compareSection(planned: Section, now: Section): void {
  const lists: [string, unknown[], unknown[]][] = planned.kind === 'knowledge' && now.kind === 'knowledge'
    ? [['register', planned.register ?? [], now.register], ['enable', planned.enable ?? [], now.enable]]
    : [[planned.kind, itemsOf(planned), itemsOf(now)]];
  for (const [name, before, after] of lists) {
    for (let at = 0; at < Math.max(before.length, after.length); at++) {
      const [first] = differences(withoutInfo(before[at]), withoutInfo(after[at])).sort(byWeight);
      if (!first) continue;
      if (before[at] === undefined || after[at] === undefined) throw stale(`section ${name}: in the plan ${label(before[at])}, on the core now ${label(after[at])}`);
      throw stale(`section ${name}: ${label(before[at])}: ${first.path.slice(1) || 'the change'} is ${shortValue(first.before)} in the plan, ` +
        `${shortValue(first.after)} on the core now`);
    }
  }
}

/** What a change does comes before what it saw: the operation and version name a difference best. */
const WEIGHT = ['/operation', '/version', '/fields'];
function byWeight(a: Difference, b: Difference): number {
  const weight = (difference: Difference): number => (WEIGHT.indexOf(difference.path) + WEIGHT.length + 1) % (WEIGHT.length + 1);
  return weight(a) - weight(b);
}

function itemsOf(section: Section): unknown[] {
  return section.kind === 'retire' ? section.items : section.kind === 'catalog' || section.kind === 'notification-rules' ? section.changes : [];
}

function withoutInfo(item: unknown): unknown {
  if (item === undefined) return undefined;
  const copy = { ...(item as Record<string, unknown>) };
  for (const key of INFO_KEYS) delete copy[key];
  return copy;
}

function label(item: unknown): string {
  if (item === undefined) return '—';
  const { kind, key, operation, workspace, packs } = item as { kind?: string; key?: string; operation?: string; workspace?: string; packs?: string[] };
  return workspace !== undefined ? `Workspace/${workspace} ${(packs ?? []).join(',')}` : `${kind}/${key} ${operation}`;
}

async function applyCore(stand: Stand, section: CoreSection, overwriteConsole: boolean, done: (section: Section['kind'], change: Pick<Change, 'kind' | 'key' | 'operation' | 'version'>) => void): Promise<ApplyResult['core'][number]> {
  const pkg = stand.loaded.workspace.package(section.package)!;
  const files = await packageFiles(pkg, stand.variables.valuesOf.get(pkg.key) ?? {});
  let answer: { applied?: { kind: string; key: string; action: string; version: number | null }[] };
  try {
    answer = await stand.connection.client.send('POST', '/api/v1/packages:apply', { body: {
      package: { files }, planHash: section.planHash, ...(section.workspaceId ? { workspaceId: section.workspaceId } : {}),
      ...(overwriteConsole ? { overwriteConsole: true } : {}) } });
  } catch (error) {
    if (error instanceof CoreHttpError && error.status === 409 && error.code === 'plan_stale') {
      throw stale(`the core of package ${section.package} changed after the plan was built (409 plan_stale)`);
    }
    throw error;
  }
  for (const item of answer.applied ?? []) {
    if (item.action === 'unchanged') continue;
    done('core', { kind: item.kind, key: item.key, operation: item.action as Change['operation'], ...(item.version !== null ? { version: item.version } : {}) });
  }
  return { package: section.package, planHash: section.planHash, applied: answer.applied ?? [] };
}

const RECORD_FALLBACK = ['ArtifactType', 'TaskType', 'ProjectTemplate', 'WorkspaceType', 'Role', 'Capability', 'Skill', 'WorkRule', 'Agent'];
const CORE_PLANNED = new Set(['TaskType', 'Agent', 'Calendar', 'Process', 'WorkRule', 'View']);

/** Links each package's installer objects to it (`POST /packages:record`), so the core knows where they come from. */
async function recordPackages(ctx: SectionContext, log: (message: string) => void): Promise<void> {
  const accepted = await recordKinds(ctx);
  const installed = new Set(installerObjects(ctx).map((object) => object.ref));
  for (const pkg of ctx.workspace.packages) {
    const seen = new Set<string>();
    const objects = pkg.objects
      .filter((object) => accepted.has(object.kind) && installed.has(object.ref) && !(ctx.corePackages.has(pkg.key) && CORE_PLANNED.has(object.kind)))
      .map((object) => ({ kind: object.kind, key: object.key }))
      .filter((object) => !seen.has(`${object.kind}/${object.key}`) && Boolean(seen.add(`${object.kind}/${object.key}`)));
    if (objects.length === 0) continue;
    try {
      await ctx.client.send('POST', '/api/v1/packages:record', { body: { package: { key: pkg.key, version: pkg.version ?? '' }, installHash: await contentHash(pkg.dir), objects } });
    } catch (error) {
      throw new Refusal('apply_failed', `package ${pkg.key} ${pkg.version ?? ''}: objects applied, but the core did not record their link to the package ` +
        `(POST /api/v1/packages:record): ${(error as Error).message}. Installation stopped; a repeated apply is idempotent`);
    }
    log(`${pkg.key}: ${objects.length} objects recorded`);
  }
}

/** The kinds `/packages:record` accepts, from the core's OpenAPI (enum of `objects[].kind`). */
async function recordKinds(ctx: SectionContext): Promise<Set<string>> {
  let openapi: Record<string, unknown>;
  try {
    openapi = await ctx.client.get('/openapi.json');
  } catch {
    ctx.warn('! the core\'s /openapi.json cannot be read — recording the reference\'s kinds');
    return new Set(RECORD_FALLBACK);
  }
  const route = (openapi.paths as Record<string, { post?: unknown }> | undefined)?.['/api/v1/packages:record']?.post;
  if (!route) {
    throw new Refusal('apply_failed', 'the core does not record the link of objects to a package (no POST /api/v1/packages:record) — update the core');
  }
  const deref = (schema: unknown): Record<string, unknown> => {
    let current = schema as Record<string, unknown> | undefined;
    for (let hops = 0; current && typeof current.$ref === 'string' && hops < 20; hops++) {
      current = (current.$ref as string).replace(/^#\//, '').split('/').reduce<unknown>((at, part) => (at as Record<string, unknown>)?.[part], openapi) as Record<string, unknown>;
    }
    return current ?? {};
  };
  const body = deref((route as { requestBody?: { content?: Record<string, { schema?: unknown }> } }).requestBody?.content?.['application/json']?.schema);
  const kind = deref(deref(deref((body.properties as Record<string, unknown> | undefined)?.objects).items).properties && (deref(deref((body.properties as Record<string, unknown>).objects).items).properties as Record<string, unknown>).kind);
  const kinds = new Set<string>();
  const collect = (schema: Record<string, unknown>): void => {
    if (Array.isArray(schema.enum)) for (const value of schema.enum) kinds.add(String(value));
    if (schema.const !== undefined) kinds.add(String(schema.const));
    for (const member of [...((schema.anyOf as unknown[]) ?? []), ...((schema.oneOf as unknown[]) ?? [])]) collect(deref(member));
  };
  collect(kind);
  return kinds.size > 0 ? kinds : new Set(RECORD_FALLBACK);
}
