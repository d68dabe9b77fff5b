import { Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import { cacheFlag, envFlag } from '../cli/plan-flags.js';
import type { PlanDocument } from '../plan/document.js';
import { localCore } from '../cli/local-core.js';
import { prose } from '../cli/help-text.js';

export default class Plan extends JsonCommand {
  static override summary = 'Build a hash-sealed plan of an installation against a core.';
  static override description = prose`Checks the installation and its packages, reads the core's version (engines), resolves the variables
(--env file, then the environment), asks the core what each section would change — writing nothing — and saves
the plan, sealed by planHash, for package-sdk apply. Variable values are never written into the plan, only their
hash. A core plan with errors or a required migration is not saved.

--server local uses an embedded core with its data in .package-sdk/core.

Exit status: 0 plan saved, 1 refusal (check errors, engines, variables, core errors), 2 usage or I/O problems.
With --detailed-exitcode: 0 plan saved with no changes, 2 plan saved with changes, 1 any error.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --install packages.yaml --server local --out plan.json',
    '<%= config.bin %> <%= command.id %> --install packages.yaml --server https://cp.example.com --env prod.env --out plan.json',
    '<%= config.bin %> <%= command.id %> --install packages.yaml --server https://cp.example.com --out plan.json --overwrite-console --json',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    install: Flags.file({ required: true, exists: true, summary: 'Installation file (kind: Installation).' }),
    server: Flags.string({ required: true, summary: 'Core URL (https; http only for localhost), or "local" for an embedded core.', helpValue: 'URL|local' }),
    out: Flags.file({ required: true, summary: 'Where to write the plan.' }),
    ...envFlag,
    workspace: Flags.string({ summary: 'Workspace id sent with the core plans (replay of live instances).', helpValue: 'ID' }),
    'replay-limit': Flags.integer({ min: 0, max: 200, default: 50, summary: 'Live instances the core replays per process.' }),
    'overwrite-console': Flags.boolean({ summary: 'Overwrite fields people edited in the console since the last apply.' }),
    'detailed-exitcode': Flags.boolean({ summary: 'Exit 0 when nothing would change, 2 when the plan has changes, 1 on any error (as Terraform).' }),
    ...cacheFlag,
    html: Flags.string({ summary: 'Also write a review page of the plan (or of its refusal): one self-contained HTML file.', helpValue: 'FILE' }),
  };

  async run(): Promise<PlanDocument> {
    const { flags } = await this.parse(Plan);
    const [{ plan }, { withPlanPage }, { useCheckCache }] = await Promise.all([import('../plan/plan.js'), import('../cli/html-pages.js'), import('../cli/check.js')]);
    // Plan checks the packages as check does: what an earlier check or plan learnt of unchanged files is reused.
    if (flags.cache) await useCheckCache();
    const result = await withPlanPage(flags.html, (warn) => plan({
      install: flags.install, server: flags.server, out: flags.out, localCore, replayLimit: flags['replay-limit'], overwriteConsole: flags['overwrite-console'], warn,
      ...(flags.env ? { env: flags.env } : {}), ...(flags.workspace ? { workspaceId: flags.workspace } : {}),
    }));
    if (!this.jsonEnabled()) {
      const { planOutput } = await import('../cli/plan.js');
      const output = planOutput(result, { out: flags.out, server: flags.server, detailedExitcode: flags['detailed-exitcode'], ...(flags.env ? { env: flags.env } : {}) }, this.config.bin);
      this.log(output.text);
      if (flags.html) this.log(`review page: ${flags.html}`);
      if (output.exitCode !== 0) process.exitCode = output.exitCode;
    } else if (flags['detailed-exitcode']) {
      const { totalChanges } = await import('../report/plan.js');
      if (totalChanges(result.document) > 0) process.exitCode = 2;
    }
    return result.document;
  }

  /** Under --detailed-exitcode 2 means "changes", so every error, a usage problem included, exits 1. */
  protected override async catch(error: Parameters<JsonCommand['catch']>[0]): Promise<unknown> {
    try {
      return await super.catch(error);
    } finally {
      if (process.argv.includes('--detailed-exitcode') && process.exitCode === 2) process.exitCode = 1;
    }
  }
}
