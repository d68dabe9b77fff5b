/**
 * How `check` uses the working directory's resident checker (resident.ts), decided from its arguments alone — by
 * the client, which loads nothing else before it asks, and by the lean check after it checked:
 *
 * - `always` (`--resident`): ask the checker; when none answers, start one and check in this process;
 * - `auto` (the default): ask the checker when one runs; when none answers, check in this process, and start one
 *   for the next checks when the workspace holds `RESIDENT_FROM_OBJECTS` objects or more (not in CI);
 * - `never` (`--no-resident`, or `PACKAGE_SDK_RESIDENT=off`): neither ask nor start.
 */
export type ResidentUse = 'always' | 'auto' | 'never';

/**
 * Objects from which a check starts the resident checker of its own accord: a fresh check after an edit costs
 * several times `node -e 0` from about there (docs/performance.md), the checker's answer little more than one,
 * and the checker holds ~90 MiB at 100 objects, ~200 at 10,000.
 */
export const RESIDENT_FROM_OBJECTS = 1_000;

/** How `check ARGV` uses the resident checker (`--no-resident` wins over `--resident`). */
export function residentUse(argv: readonly string[], env: NodeJS.ProcessEnv): ResidentUse {
  if (argv.includes('--no-resident')) return 'never';
  if (argv.includes('--resident')) return 'always';
  return env.PACKAGE_SDK_RESIDENT === 'off' ? 'never' : 'auto';
}
