import { Flags, ux } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { bundleFileArgs } from '../../cli/bundle-flags.js';
import { paintFor } from '../../report/paint.js';
import { Refusal } from '../../fs/refusal.js';
import { renderTrace } from '../../report/bundle.js';
import { type RunTrace, runBundleFile } from '../../bundle/run.js';
import { jsonText } from '../../bundle/json-text.js';

export default class BundleRun extends JsonCommand {
  static override summary = "Dry-run one workflow locally with the bundle's mock outputs and print a trace.";
  static override description = 'Model steps answer from the mock section, action steps get one local decision (--decide), tool steps answer from a --tools file of canned results ({"tool.id": result} or {"tool.id": {"$error": "why"}}; results may use templates over the run context and args). Low confidence escalates; when a step fails, the compensations of completed steps run newest first. Exit 1 when the run fails.';
  static override examples = [
    `<%= config.bin %> <%= command.id %> bundle.json --mock --workflow intake --input '{"invoice_id":"inv-1","text":"…","total":120.5}' --tools tools.json`,
    '<%= config.bin %> <%= command.id %> bundle.json --mock --workflow intake --input input.json --tools tools.json --decide deny --json',
    '<%= config.bin %> <%= command.id %> bundle.json --mock --workflow intake --input input.json --tools tools.json --confidence code=0.2',
  ];
  static override enableJsonFlag = true;
  static override args = bundleFileArgs;
  static override flags = {
    workflow: Flags.string({ required: true, summary: 'Workflow to run.' }),
    input: Flags.string({ required: true, summary: "Input: inline JSON ('{…}') or a JSON file." }),
    mock: Flags.boolean({ summary: "Answer model steps from the bundle's mock section (the only provider of a local run)." }),
    decide: Flags.option({ options: ['allow', 'deny', 'approve'] as const, default: 'allow', summary: 'Decision for every action step.' })(),
    tools: Flags.string({ summary: 'JSON file of canned tool results by tool id.' }),
    refuse: Flags.string({ summary: 'Prompts the mock refuses, comma-separated (as KERNOS_MOCK_REFUSE).' }),
    confidence: Flags.string({ summary: 'Confidence overrides, prompt=value pairs (as KERNOS_MOCK_CONFIDENCE).' }),
    'requested-by': Flags.string({ summary: 'Requester id, visible to templates as run.requested_by.' }),
  };

  async run(): Promise<RunTrace> {
    const { args, flags } = await this.parse(BundleRun);
    if (!flags.mock) throw new Refusal('usage', 'a local run has no model provider: pass --mock to answer model steps from the bundle mock section', { exitCode: 2 });
    const trace = runBundleFile({
      file: args.file, workflow: flags.workflow, input: flags.input, decide: flags.decide,
      ...(flags.tools ? { tools: flags.tools } : {}),
      ...(flags.refuse ? { refuse: flags.refuse } : {}),
      ...(flags.confidence ? { confidence: flags.confidence } : {}),
      ...(flags['requested-by'] ? { requestedBy: flags['requested-by'] } : {}),
    });
    if (trace.status === 'failed') process.exitCode = 1;
    if (!this.jsonEnabled()) this.log(renderTrace(trace, paintFor(process.stdout)));
    return trace;
  }

  /** The trace with the numbers of the bundle and the input as they were written (`JSON.stringify` would print `7250.0` as `7250`). */
  protected override logJson(json: unknown): void {
    ux.stdout(jsonText(json, 2));
  }
}
