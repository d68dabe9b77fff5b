import { childPointer } from '../../json/pointer.js';
import { didYouMean } from '../../model/did-you-mean.js';
import { defineObjectRule } from '../rule.js';
import { eachString } from '../values.js';
import { isRecord } from '../../json/guards.js';

/**
 * The repository catalog of an agent's working copy (compat-package-sdk-check.md §2.14). The executor daemon
 * resolves a task's repository by key or alias, case-insensitively, and clones each entry to its directory:
 * two entries that answer to one name, share an address or a directory, or nest one clone in another make
 * that resolution ambiguous.
 */
export const workingCopies = defineObjectRule({
  id: 'agents/working-copies',
  description: 'The working-copy catalog of an agent names its superproject, and its names, addresses and directories are unambiguous.',
  codes: {
    working_copy_superproject_unknown: {
      severity: 'error',
      summary: 'workingCopy.superproject is not a key of workingCopy.repositories.',
      message: (d: { superproject: string }) => `workingCopy.superproject '${d.superproject}' is not a key of workingCopy.repositories`,
    },
    working_copy_conflict: {
      severity: 'error',
      summary: 'Two entries of a working-copy catalog share a key or alias (casefold), an address, or a directory, or one is placed inside the other.',
      message: (d: { entry: string; problem: string }) => `repository '${d.entry}': ${d.problem}`,
    },
  },
  subjects: ['Agent'],
  checkObject(context, agent) {
    const workingCopy = agent.spec.workingCopy;
    const repositories = isRecord(workingCopy) ? workingCopy.repositories : undefined;
    if (!isRecord(workingCopy) || !isRecord(repositories)) return;
    const keys = Object.keys(repositories);
    const superproject = workingCopy.superproject;
    if (typeof superproject === 'string' && !keys.includes(superproject)) {
      const hint = didYouMean(superproject, keys);
      context.report('working_copy_superproject_unknown', { document: agent.document, pointer: '/spec/workingCopy/superproject' }, { superproject }, {
        hint: hint ?? 'name one of the keys of workingCopy.repositories',
      });
    }
    for (const conflict of catalogConflicts(repositories)) {
      context.report('working_copy_conflict', { document: agent.document, pointer: conflict.pointer, part: conflict.part }, conflict, {
        hint: conflict.hint,
      });
    }
  },
});

interface Conflict {
  entry: string;
  problem: string;
  pointer: string;
  part?: 'key';
  hint: string;
}

interface Entry {
  key: string;
  pointer: string;
  body: Record<string, unknown>;
}

/** Every ambiguity of the catalog, reported at the later of the two entries involved. */
export function catalogConflicts(repositories: Record<string, unknown>): Conflict[] {
  const entries: Entry[] = Object.entries(repositories).map(([key, body]) => ({
    key,
    pointer: childPointer('/spec/workingCopy/repositories', key),
    body: isRecord(body) ? body : {},
  }));
  return [...nameConflicts(entries), ...addressConflicts(entries), ...directoryConflicts(entries)];
}

/** How the daemon compares names: case-insensitively. */
const fold = (name: string): string => name.toLowerCase();

function nameConflicts(entries: readonly Entry[]): Conflict[] {
  const conflicts: Conflict[] = [];
  const keyOwner = new Map(entries.map((entry) => [fold(entry.key), entry.key]));
  const aliasOwner = new Map<string, string>();
  for (const entry of entries) {
    const own = new Set<string>();
    eachString(entry.body.aliases, childPointer(entry.pointer, 'aliases'), (alias, pointer) => {
      const name = fold(alias);
      const problem =
        name === fold(entry.key)
          ? `alias '${alias}' is its own key`
          : own.has(name)
            ? `alias '${alias}' is repeated`
            : keyOwner.has(name)
              ? `alias '${alias}' is the key of repository '${keyOwner.get(name)}'`
              : aliasOwner.has(name)
                ? `alias '${alias}' is also an alias of repository '${aliasOwner.get(name)}'`
                : undefined;
      own.add(name);
      if (!aliasOwner.has(name)) aliasOwner.set(name, entry.key);
      if (problem) conflicts.push({ entry: entry.key, problem: `${problem} (names are compared ignoring case)`, pointer, hint: 'remove the alias' });
    });
  }
  return conflicts;
}

/** An address without case, trailing `/` and `.git`: two entries that clone the same repository. */
function addressIdentity(url: string): string {
  return url.toLowerCase().replace(/\/+$/, '').replace(/\.git$/, '');
}

function addressConflicts(entries: readonly Entry[]): Conflict[] {
  const conflicts: Conflict[] = [];
  const first = new Map<string, string>();
  for (const entry of entries) {
    if (typeof entry.body.url !== 'string') continue;
    const identity = addressIdentity(entry.body.url);
    const earlier = first.get(identity);
    if (earlier === undefined) first.set(identity, entry.key);
    else {
      conflicts.push({
        entry: entry.key,
        problem: `url '${entry.body.url}' is the address of repository '${earlier}' too`,
        pointer: childPointer(entry.pointer, 'url'),
        hint: `one repository is one entry: keep '${earlier}' and add '${entry.key}' to its aliases`,
      });
    }
  }
  return conflicts;
}

/** Where an entry is cloned: its directory, or its key. */
function placementOf(entry: Entry): { path: string; pointer: string; part?: 'key' } {
  const directory = entry.body.directory;
  return typeof directory === 'string'
    ? { path: fold(directory), pointer: childPointer(entry.pointer, 'directory') }
    : { path: fold(entry.key), pointer: entry.pointer, part: 'key' };
}

function directoryConflicts(entries: readonly Entry[]): Conflict[] {
  const conflicts: Conflict[] = [];
  const keyOwner = new Map(entries.map((entry) => [fold(entry.key), entry.key]));
  const placed: { entry: Entry; path: string }[] = [];
  // A directory named after another entry's key is one mistake, not also a shared placement once that entry comes.
  const ambiguous = new Set<string>();
  for (const entry of entries) {
    const placement = placementOf(entry);
    const directory = typeof entry.body.directory === 'string' ? entry.body.directory : undefined;
    const at = { pointer: placement.pointer, ...(placement.part ? { part: placement.part } : {}) };
    const otherKey = keyOwner.get(placement.path);
    const same = placed.find((other) => other.path === placement.path);
    const nested = placed.find((other) => placement.path.startsWith(`${other.path}/`) || other.path.startsWith(`${placement.path}/`));
    if (directory !== undefined && otherKey !== undefined && otherKey !== entry.key && same?.entry.key !== otherKey) {
      ambiguous.add(placement.path);
      conflicts.push({ entry: entry.key, problem: `directory '${directory}' is the key of repository '${otherKey}', which is ambiguous`, ...at, hint: 'choose another directory' });
    } else if (same && !ambiguous.has(placement.path)) {
      conflicts.push({ entry: entry.key, problem: `it is cloned to '${placement.path}', as repository '${same.entry.key}' is`, ...at, hint: 'give each entry a directory of its own' });
    } else if (nested) {
      conflicts.push({
        entry: entry.key,
        problem: `its directory '${placement.path}' and that of repository '${nested.entry.key}' ('${nested.path}') nest — one clone would hold the other`,
        ...at,
        hint: 'place the clones side by side',
      });
    }
    placed.push({ entry, path: placement.path });
  }
  return conflicts;
}

