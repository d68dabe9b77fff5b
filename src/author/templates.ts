/**
 * The smallest object of each kind that passes `check`, as `init` and `add` write it. The optional
 * fields are not invented here: hints.ts lists them from the schema, as comments under `spec`.
 */
import type { ObjectKind } from '../model/kinds.js';
import { Refusal } from '../fs/refusal.js';

/** A file to write: where, which schema its modeline names, its value and the comment above it. */
export interface FileTemplate {
  /** Path relative to the package directory, with `/`. */
  path: string;
  schema: 'object' | 'test';
  comment: string[];
  value: Record<string, unknown>;
  /** Which spec definition lists the optional fields (hints); none for tests. */
  hintsOf?: ObjectKind | 'Package' | 'Installation';
}

export const API_VERSION = 'taimen.ai/v1';

/** `claim-review` → `Claim review`. */
export function titleOf(key: string): string {
  const words = key.split(/[-_.]+/).filter(Boolean).join(' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function object(kind: string, key: string, spec: Record<string, unknown>): Record<string, unknown> {
  return { apiVersion: API_VERSION, kind, key, spec };
}

/** Statuses every new task type starts with: to do, in progress, done, cancelled. */
const TASK_LIFECYCLE = {
  statuses: [
    { key: 'todo', category: 'active', displayName: 'To do' },
    { key: 'in_progress', category: 'active', displayName: 'In progress' },
    { key: 'done', category: 'terminal_success', displayName: 'Done' },
    { key: 'cancelled', category: 'terminal_cancelled', displayName: 'Cancelled' },
  ],
  transitions: [
    { from: 'todo', to: ['in_progress', 'done', 'cancelled'] },
    { from: 'in_progress', to: ['todo', 'done', 'cancelled'] },
  ],
  initialStatus: 'todo',
  claimStatus: 'in_progress',
  releaseStatus: 'todo',
  completionStatus: 'done',
};

export interface TemplateContext {
  /** Key of the package the object goes into. */
  packageKey: string;
  /** The task type a new process's first step creates (`task`, the system type, by default). */
  taskType?: string;
  /** The year a new calendar starts with. */
  year: number;
}

/** The files of one new object of `kind` with `key` (a Process brings its agent and its owner role). */
export function objectTemplates(kind: ObjectKind, key: string, context: TemplateContext): FileTemplate[] {
  const file = (folder: string, comment: string, value: Record<string, unknown>, hintsOf: ObjectKind = kind): FileTemplate => ({
    path: `${folder}/${key}.yaml`,
    schema: 'object',
    comment: [comment],
    value,
    hintsOf,
  });
  const title = titleOf(key);
  switch (kind) {
    case 'Role':
      return [file('roles', `The role ${key}: people who hold it get the work assigned to it.`, object(kind, key, { name: title, description: `People who handle ${title.toLowerCase()} work` }))];
    case 'Capability':
      return [file('capabilities', `The capability ${key}.`, object(kind, key, { description: title }))];
    case 'WorkspaceType':
      return [file('workspace-types', `The workspace type ${key}.`, object(kind, key, { displayName: title }))];
    case 'ArtifactType':
      return [file('artifact-types', `The artifact type ${key}: what tasks produce and read.`, object(kind, key, { displayName: title }))];
    case 'TaskType':
      return [
        file('task-types', `The task type ${key}: a piece of work done by a person or an agent.`, object(kind, key, {
          displayName: title,
          description: `${title} task`,
          lifecycleSchema: TASK_LIFECYCLE,
        })),
      ];
    case 'ProjectTemplate':
      return [file('project-templates', `The project template ${key}.`, object(kind, key, { displayName: title }))];
    case 'Agent':
      return [file('agents', `The agent ${key}: an identity (service) without a process of its own.`, agent(key, title))];
    case 'Skill':
      return [
        file('skills', `The skill ${key}@1: its contract; the code that runs it is an agent's.`, object(kind, key, {
          version: '1',
          description: title,
          inputSchema: { type: 'object' },
          outputSchema: { type: 'object' },
          sideEffects: 'none',
        })),
      ];
    case 'ConnectionType':
      return [
        file('connection-types', `The connection type ${key}: what it takes to connect a system of this kind; no secret values.`, object(kind, key, {
          version: 1,
          displayName: title,
          auth: ['token'],
          accountField: { title: 'Account', pattern: '^[a-z0-9][a-z0-9-]*$' },
          settingsSchema: { type: 'object', properties: {} },
          defaultKey: key,
        })),
      ];
    case 'Calendar':
      return [
        file('calendars', `The calendar ${key}: working days for deadlines in workdays.`, object(kind, key, {
          displayName: title,
          timezone: 'UTC',
          weekend: [6, 7],
          years: [{ year: context.year, holidays: [] }],
        })),
      ];
    case 'Process':
      return processTemplates(key, title, context);
    case 'WorkRule':
      return [
        file('rules', `The work rule ${key}: an observation of kind ${key}.requested becomes a task.`, object(kind, key, {
          description: title,
          trigger: { kind: 'observation', type: `${key}.requested` },
          action: { kind: 'ensure_work', taskType: 'task', dedupKeyTemplate: `${key}:{{payload.id}}`, fields: { title: `${title}: {{payload.id}}` } },
        })),
      ];
    case 'NotificationRule':
      return [
        file('notification-rules', `The notification rule ${key}: whoever gets a task assigned is told.`, object(kind, key, {
          description: title,
          on: { type: 'task.assigned' },
          recipient: { kind: 'taskAssignee' },
          notification: { type: `${context.packageKey}.${key}`, title: 'A task for you: {{task.title}}' },
        })),
      ];
    case 'KnowledgePack':
      return [
        file('knowledge-packs', `The ontology ${key}@1: kinds and relations of the knowledge base.`, object(kind, key, {
          name: key,
          version: 1,
          description: title,
          kinds: [{ kind: key.replace(/[^a-z0-9._-]/g, '-'), title }],
        })),
      ];
    case 'View':
      return [
        file('views', `The view ${key}: a screen of the console; its texts are keys of i18n/<locale>.yaml.`, object(kind, key, {
          title: `${context.packageKey}.${key}.title`,
          source: { tasks: { type: 'task' } },
          layout: [{ block: 'table', columns: [{ label: `${context.packageKey}.${key}.task`, field: 'title' }] }],
        })),
      ];
    case 'Component':
      return [
        file('components', `The component ${key}: a part of views; its texts are keys of i18n/<locale>.yaml.`, object(kind, key, {
          layout: [{ block: 'header', title: 'title' }],
        })),
      ];
  }
}

function agent(key: string, title: string): Record<string, unknown> {
  return object('Agent', key, {
    displayName: title,
    description: `Identity of ${title.toLowerCase()}`,
    identity: { kind: 'service', permissions: ['events.read', 'tasks.read', 'tasks.write'] },
    placement: 'none',
  });
}

/** A process (start on an observation, one human step, complete), its identity and its owner role. */
function processTemplates(key: string, title: string, context: TemplateContext): FileTemplate[] {
  const owner = `${key}-owner`;
  const identity = `${key}-process`;
  const process = object('Process', key, {
    version: 1,
    displayName: title,
    identity: { agent: identity },
    owner: [{ role: owner }],
    data: { type: 'object', properties: { request: { type: 'string' }, decision: { type: 'string' } } },
    start: { on: { observation: `${key}.requested` }, key: 'event.payload.id', set: { request: 'event.payload.id' } },
    stages: [
      {
        id: 'review',
        steps: [
          {
            id: 'review-request',
            human: { taskType: context.taskType ?? 'task', assign: [{ role: owner }] },
            output: { as: { decision: 'step.result.decision' } },
          },
          { id: 'done', complete: { outcome: 'reviewed' } },
        ],
      },
    ],
  });
  return [
    {
      path: `processes/${key}.yaml`,
      schema: 'object',
      comment: [`The process ${key}: an observation ${key}.requested starts a case; a person of the role ${owner} reviews it.`],
      value: process,
      hintsOf: 'Process',
    },
    {
      path: `agents/${identity}.yaml`,
      schema: 'object',
      comment: [`The identity of the process ${key}: its tasks are created with the authority of this service.`],
      value: agent(identity, `${title} process`),
      hintsOf: 'Agent',
    },
    {
      path: `roles/${owner}.yaml`,
      schema: 'object',
      comment: [`Owns the process ${key} and reviews its requests.`],
      value: object('Role', owner, { name: `${title} owner`, description: `Owns the process ${key} and reviews its requests` }),
      hintsOf: 'Role',
    },
  ];
}

/** The scenario `init` writes for its process: a request is reviewed and the case completes. */
export function processScenario(processKey: string): FileTemplate {
  return {
    path: `tests/${processKey}.test.yaml`,
    schema: 'test',
    comment: [`A request starts the process ${processKey}; its owner reviews it and the case completes.`],
    value: {
      process: processKey,
      name: 'a request is reviewed and the case completes',
      given: { principals: { [`${processKey}-owner`]: ['alice'] } },
      steps: [
        { emit: { observation: `${processKey}.requested`, payload: { id: 'R-1' } } },
        { expect: { tasks: [{ step: 'review-request', assignee: `role:${processKey}-owner` }] } },
        { complete: { step: 'review-request', by: 'alice', output: { decision: 'approved' } } },
        { expect: { status: 'completed', outcome: 'reviewed', data: { request: 'R-1', decision: 'approved' } } },
      ],
    },
  };
}

/** The kinds a scenario (`tests/*.test.yaml`) can be about, and how `add test` writes a first one for each. */
export const SCENARIO_SUBJECTS = ['Process', 'WorkRule', 'TaskType'] as const;
export type ScenarioSubject = (typeof SCENARIO_SUBJECTS)[number];

/**
 * A first scenario of an object of the package, that passes as the object stands and that its author extends:
 * a process is started by the observation it starts on, a rule is given an observation (or event) of its
 * trigger and matches, a task is completed and ends in its terminal success status.
 */
export function subjectScenario(kind: ScenarioSubject, key: string, spec: Record<string, unknown>): FileTemplate {
  const scenario = (comment: string, value: Record<string, unknown>): FileTemplate => ({ path: `tests/${key}.test.yaml`, schema: 'test', comment: [comment], value });
  switch (kind) {
    case 'Process': {
      const observation = fieldAt(spec, ['start', 'on', 'observation']);
      if (typeof observation !== 'string') {
        throw new Refusal('scenario_not_written', `the process ${key} does not start on an observation, so add test cannot start it`, { hint: 'write its scenario by hand: docs/testing.md', exitCode: 2 });
      }
      return scenario(`An observation ${observation} starts the process ${key}. Add steps: complete its tasks, expect its data and outcome.`, {
        process: key,
        name: `an observation ${observation} starts a case`,
        steps: [{ emit: { observation, payload: { id: 'R-1' } } }, { expect: { status: 'running' } }],
      });
    }
    case 'WorkRule': {
      const trigger = (spec.trigger ?? {}) as Record<string, unknown>;
      const given = trigger.kind === 'event' ? { event: { type: String(trigger.type), payload: { id: 'R-1' } } } : { observation: { kind: String(trigger.type), data: { id: 'R-1' } } };
      return scenario(`The rule ${key} on an input of its trigger. Add cases its condition rejects (result: not_matched).`, {
        subject: 'rule', rule: key, name: `${trigger.type ?? 'its trigger'} is matched`, given, steps: [{ expect: { result: 'matched' } }],
      });
    }
    case 'TaskType': {
      const statuses = (fieldAt(spec, ['lifecycleSchema', 'statuses']) ?? []) as Array<{ key: string; category: string }>;
      const done = statuses.find((status) => status.category === 'terminal_success');
      return scenario(`A task of the type ${key} is completed. Add its approvals, checks and the skills its outcomes call.`, {
        subject: 'taskType', taskType: key, name: 'a completed task is done',
        steps: [{ complete: { output: {} } }, { expect: { status: done ? { key: done.key, category: done.category } : { category: 'terminal_success' } } }],
      });
    }
  }
}

function fieldAt(value: unknown, path: readonly string[]): unknown {
  return path.reduce<unknown>((node, name) => (node && typeof node === 'object' ? (node as Record<string, unknown>)[name] : undefined), value);
}

/** The manifest of a new package. */
export function manifestTemplate(key: string, options: { displayName?: string; license?: string; description?: string }): FileTemplate {
  const spec: Record<string, unknown> = {
    version: '0.1.0',
    displayName: options.displayName ?? titleOf(key),
    description: options.description ?? `${options.displayName ?? titleOf(key)}: a package of taimen.ai objects`,
    engines: { 'control-plane': '>=0.9,<0.11' },
  };
  if (options.license) spec.license = options.license;
  return { path: 'package.yaml', schema: 'object', comment: [`The manifest of the package ${key}.`], value: object('Package', key, spec), hintsOf: 'Package' };
}

/** An installation that installs `packages` (found next to the installation file). */
export function installationTemplate(key: string, packages: readonly string[]): FileTemplate {
  return {
    path: `${key}.yaml`,
    schema: 'object',
    comment: [`The installation ${key}: the packages an environment installs (package-sdk plan --install ${key}.yaml).`],
    value: object('Installation', key, { packages: [...packages] }),
    hintsOf: 'Installation',
  };
}
