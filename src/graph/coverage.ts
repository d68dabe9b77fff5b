/**
 * Reading the coverage of a test run (`package-sdk test --json`) to draw it: for each process, the element ids
 * the run reached and those it missed. The reader is tolerant of the report's shape, which grows with the
 * engine: coverage entries as a list or a map, the process named `process`, `target` or `key`, the missed
 * elements as `missed` or `notReached`, the reached ones as a list `reached` (or `covered`, when a list) or —
 * when the report lists only what was missed — every coverage element of the process that is not missed.
 * Without a top-level `coverage`, the tests' own coverage is merged as the report merges it.
 */
import { isRecord } from '../json/guards.js';
import { Refusal } from '../fs/refusal.js';
import type { ElementReach } from './diagram.js';

/** What a run reached of one process, as the report states it (`reached` undefined: only `missed` was listed). */
export interface ProcessReach {
  package?: string;
  process: string;
  missed: string[];
  reached?: string[];
}

/** The coverage entries of a `test --json` report (any value); refuses a value that holds none. */
export function readCoverage(report: unknown, source: string): ProcessReach[] {
  if (!isRecord(report)) throw notCoverage(source, 'it is not a JSON object');
  const entries = report.coverage !== undefined ? listOf(report.coverage) : fromTests(report.tests);
  if (entries === undefined) throw notCoverage(source, 'it has no coverage (neither "coverage" nor "tests" with coverage)');
  return entries.flatMap((entry) => {
    const reach = reachOf(entry);
    return reach === undefined ? [] : [reach];
  });
}

/**
 * The reach of process `key` (of package `pkg`, when known) for a diagram; `elements` are its coverage elements,
 * the universe of "reached" when the report lists only what was missed. Entries of the same process are merged:
 * an element is reached when any entry reached it.
 */
export function reachOfProcess(entries: readonly ProcessReach[], key: string, pkg: string | undefined, elements: readonly string[]): ElementReach | undefined {
  const mine = entries.filter((entry) => entry.process === key && (entry.package === undefined || pkg === undefined || entry.package === pkg));
  if (mine.length === 0) return undefined;
  const reached = new Set<string>();
  for (const entry of mine) {
    const listed = entry.reached ?? elements.filter((id) => !entry.missed.includes(id));
    for (const id of listed) reached.add(id);
  }
  const missed = new Set(mine.flatMap((entry) => entry.missed).filter((id) => !reached.has(id)));
  return { reached, missed };
}

function listOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (isRecord(value)) return Object.entries(value).map(([name, entry]) => (isRecord(entry) && entry.process === undefined ? { process: name.split('/').at(-1), ...entry } : entry));
  return undefined;
}

function fromTests(tests: unknown): unknown[] | undefined {
  if (!Array.isArray(tests)) return undefined;
  return tests.flatMap((test) => (isRecord(test) && isRecord(test.coverage) && test.subject !== 'rule' && test.subject !== 'taskType'
    ? [{ ...test.coverage, process: test.target, ...(typeof test.package === 'string' ? { package: test.package } : {}) }]
    : []));
}

function reachOf(entry: unknown): ProcessReach | undefined {
  if (!isRecord(entry)) return undefined;
  const process = [entry.process, entry.target, entry.key].find((name): name is string => typeof name === 'string');
  if (process === undefined) return undefined;
  const ids = (value: unknown): string[] | undefined => (Array.isArray(value) ? value.map((item) => (isRecord(item) ? String(item.id) : String(item))) : undefined);
  const reached = ids(entry.reached) ?? ids(entry.covered);
  return {
    process,
    missed: ids(entry.missed) ?? ids(entry.notReached) ?? [],
    ...(typeof entry.package === 'string' ? { package: entry.package } : {}),
    ...(reached !== undefined ? { reached } : {}),
  };
}

function notCoverage(source: string, why: string): Refusal {
  return new Refusal('coverage_invalid', `${source}: not the output of package-sdk test --json: ${why}`, {
    hint: 'give the file package-sdk test --json wrote: package-sdk test --json > results.json', exitCode: 2,
  });
}
