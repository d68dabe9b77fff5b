import { Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import { envFlag } from '../cli/plan-flags.js';
import type { ApplyResult } from '../plan/apply.js';
import type { PlanDocument } from '../plan/document.js';
import { localCore } from '../cli/local-core.js';
import { prose } from '../cli/help-text.js';

export default class Apply extends JsonCommand {
  static override summary = 'Apply a saved plan to the core it was built for — only if nothing moved since.';
  static override description = prose`Verifies the plan file (schema, planHash — an edited plan is refused), rebuilds the installation from its
sources and compares lockHash and variablesHash, re-reads the core and compares every section and core planHash
(plan_stale, before the first write), asks for approval, then writes the sections in order.

Approval: on a terminal, a yes/no question with the totals. Without a terminal (CD), --plan-hash with the
planHash that was reviewed, or --auto-approve. An apply stopped half-way is completed by planning and applying
again: every write is idempotent.

Exit status: 0 applied, 1 refusal (stale, edited, not approved, core error), 2 usage or I/O problems.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --plan plan.json',
    '<%= config.bin %> <%= command.id %> --plan plan.json --server local --auto-approve',
    '<%= config.bin %> <%= command.id %> --plan plan.json --server https://cp.example.com --plan-hash sha256:…',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    plan: Flags.file({ required: true, exists: true, summary: 'Plan file written by package-sdk plan --out.' }),
    server: Flags.string({ summary: 'Core URL, or "local"; default: the server the plan was built for.', helpValue: 'URL|local' }),
    ...envFlag,
    'plan-hash': Flags.string({ summary: 'Approve without a terminal: the planHash that was reviewed (must equal the plan\'s).', helpValue: 'sha256:…' }),
    'auto-approve': Flags.boolean({ summary: 'Approve without a terminal and without a hash (the first apply to a new core).' }),
  };

  async run(): Promise<ApplyResult> {
    const { flags } = await this.parse(Apply);
    const [{ apply }, { useCheckCache }] = await Promise.all([import('../plan/apply.js'), import('../cli/check.js')]);
    // Apply checks the packages as check does: what an earlier check or plan learnt of unchanged files is reused.
    await useCheckCache();
    const interactive = Boolean(process.stdin.isTTY) && !this.jsonEnabled();
    const showProgress = Boolean(process.stderr.isTTY) && !this.jsonEnabled();
    const result = await apply({
      plan: flags.plan, autoApprove: flags['auto-approve'], localCore,
      ...(flags.server ? { server: flags.server } : {}), ...(flags.env ? { env: flags.env } : {}), ...(flags['plan-hash'] ? { planHash: flags['plan-hash'] } : {}),
      ...(interactive ? { confirm: (document: PlanDocument) => this.confirm(document) } : {}),
      warn: (message) => this.logToStderr(`warning: ${message}`),
      ...(showProgress ? { progress: (message: string) => process.stderr.write(`  ${message}\n`) } : {}),
    });
    if (!this.jsonEnabled()) this.log((await import('../report/plan.js')).renderApplied(result, !showProgress));
    return result;
  }

  /** The plan as plan shows it, then `[y/N]`; y, yes, д, да accept; anything else (or EOF) declines. */
  private async confirm(document: PlanDocument): Promise<boolean> {
    const [{ renderPlan, confirmQuestion }, { paintFor }, { createInterface }] = await Promise.all([
      import('../report/plan.js'), import('../report/paint.js'), import('node:readline/promises')]);
    this.log(renderPlan(document, paintFor(process.stdout)));
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    try {
      const answer = await rl.question(`\n${confirmQuestion(document)} [y/N] `);
      return ['y', 'yes', 'д', 'да'].includes(answer.trim().toLowerCase());
    } catch {
      return false;
    } finally {
      rl.close();
    }
  }
}
