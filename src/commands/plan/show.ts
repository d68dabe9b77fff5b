import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import type { PlanDocument } from '../../plan/document.js';
import { prose } from '../../cli/help-text.js';

export default class PlanShow extends JsonCommand {
  static override summary = 'Show a saved plan, or write its review page.';
  static override description = prose`Reads a plan file (package-sdk.plan/v1), checks that it was not edited since it was built (planHash), and
prints it as plan does — or, with --html, writes one self-contained HTML page for a reviewer: the summary, each
change with its field-level difference, live instances, console edits, the core's problems.

Exit status: 0 shown, 1 the plan is not a valid or unmodified plan, 2 usage or I/O problems.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> plan.json',
    '<%= config.bin %> <%= command.id %> plan.json --html plan.html',
  ];

  static override enableJsonFlag = true;
  static override args = {
    plan: Args.string({ description: 'The plan file (plan --out).', required: true }),
  };

  static override flags = {
    html: Flags.string({ summary: 'Write the review page to this file.', helpValue: 'FILE' }),
  };

  async run(): Promise<PlanDocument> {
    const { args, flags } = await this.parse(PlanShow);
    const { readPlanFile } = await import('../../plan/document.js');
    const { document } = await readPlanFile(args.plan);
    if (flags.html) {
      const { writePlanFilePage } = await import('../../cli/html-pages.js');
      await writePlanFilePage(flags.html, document, args.plan);
      if (!this.jsonEnabled()) this.log(`review page: ${flags.html}`);
    } else if (!this.jsonEnabled()) {
      const [{ renderPlan }, { paintFor }] = await Promise.all([import('../../report/plan.js'), import('../../report/paint.js')]);
      this.log(renderPlan(document, paintFor(process.stdout)));
    }
    return document;
  }
}
