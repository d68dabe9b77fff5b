/**
 * What `add` knows about each kind: the conventional folder (compat-package-sdk-check.md §1.2), the
 * schema its file is checked against, and the names a user may type for it.
 */
import { OBJECT_KINDS, type ObjectKind } from '../model/kinds.js';

/** Every kind of `apiVersion: taimen.ai/v1` file: the package objects, the manifest and the installation. */
export type AuthorKind = ObjectKind | 'Package' | 'Installation';

export const AUTHOR_KINDS: readonly AuthorKind[] = ['Package', 'Installation', ...OBJECT_KINDS];

/** Conventional folder of each object kind inside a package. */
export const KIND_FOLDERS: Readonly<Record<ObjectKind, string>> = {
  KnowledgePack: 'knowledge-packs',
  WorkspaceType: 'workspace-types',
  Capability: 'capabilities',
  ConnectionType: 'connection-types',
  Role: 'roles',
  Skill: 'skills',
  ArtifactType: 'artifact-types',
  TaskType: 'task-types',
  Agent: 'agents',
  ProjectTemplate: 'project-templates',
  Calendar: 'calendars',
  Process: 'processes',
  WorkRule: 'rules',
  NotificationRule: 'notification-rules',
  View: 'views',
  Component: 'components',
};

/** Short names users type that are not derived from the kind or its folder. */
const EXTRA_NAMES: Readonly<Record<string, AuthorKind>> = {
  rule: 'WorkRule',
  'notification-rule': 'NotificationRule',
  ontology: 'KnowledgePack',
  manifest: 'Package',
  screen: 'View',
};

/** `TaskType`, `task-type`, `task-types`, `tasktype` … → `TaskType`; undefined when no kind has that name. */
export function resolveKind(name: string): AuthorKind | undefined {
  const wanted = name.trim().toLowerCase().replace(/_/g, '-');
  const extra = EXTRA_NAMES[wanted] ?? EXTRA_NAMES[wanted.replace(/s$/, '')];
  if (extra) return extra;
  return AUTHOR_KINDS.find((kind) => namesOf(kind).has(wanted));
}

function namesOf(kind: AuthorKind): Set<string> {
  const kebab = kind.replace(/([a-z])([A-Z])/g, '$1-$2').toLowerCase();
  const names = new Set([kind.toLowerCase(), kebab, `${kebab}s`, kebab.replace(/-/g, '')]);
  if (kind !== 'Package' && kind !== 'Installation') names.add(KIND_FOLDERS[kind]);
  return names;
}
