/**
 * The installation through the whole static check (compat-package-sdk-install §4.2 step 3), apart from
 * sources.ts, which loads it only when no stored verdict of the check stands: a plan of an unchanged
 * installation never initializes the rules, nor the CEL and process models under them.
 */
import { check } from '../check/index.js';
import { Refusal } from '../fs/refusal.js';
import type { GitSourceResolver } from '../load/source-resolver.js';
import { isError, type Finding } from '../model/finding.js';
import type { Installation } from '../model/installation.js';
import type { Workspace } from '../model/workspace.js';

/** The checked workspace and the warnings a person should see (git sources read from the cache); refuses on errors. */
export async function checkedWorkspace(install: string, resolveGitSource: GitSourceResolver, cwd: string | undefined): Promise<{ workspace: Workspace; installation: Installation; warnings: string[] }> {
  const { report, workspace } = await check({ install, resolveGitSource, ...(cwd ? { cwd } : {}) });
  if (report.errors.length > 0 || !workspace.installation) {
    const lines = report.errors.map(describe);
    throw new Refusal('packages_invalid', `packages failed the check:\n  ${lines.join('\n  ')}`, { hint: `package-sdk check --install ${install} shows them with their code frames`, exitCode: 1, problems: lines });
  }
  return { workspace, installation: workspace.installation, warnings: report.warnings.filter((finding) => finding.code === 'source_unavailable').map(describe) };
}

function describe(finding: Finding): string {
  return `${finding.file}:${finding.line}:${finding.column}: ${isError(finding) ? 'error' : 'warning'} ${finding.code}: ${finding.message}`;
}
