import { Args, Flags } from '@oclif/core';
import { GRAPH_FLAGS, GRAPH_FORMATS, type GraphOutcome } from '../cli/graph.js';
import { JsonCommand } from '../cli/json-command.js';
import { prose } from '../cli/help-text.js';

export default class Graph extends JsonCommand {
  static override summary = 'Draw a process: stages, steps by kind, guards, milestones, deadlines, decision tables.';
  static override description = prose`Draws the processes of a package directory, or one process file, as Mermaid (for Markdown), Graphviz DOT,
SVG (rendered in this process with Graphviz built to WebAssembly), or a self-contained HTML page. Stages are
clusters in order, steps are shaped by kind, edges carry their guards (the full CEL on hover in SVG and HTML),
and what check reports as unreachable is drawn greyed and dashed. With --coverage (the output of
package-sdk test --json) the elements the run reached are green and the others orange. See docs/graph.md.

Exit status: 0 drawn, 1 the target does not load, 2 usage or I/O problems (no such file, no process, an unreadable
coverage file).`;

  static override examples = [
    { description: 'Mermaid of the only process of a package', command: '<%= config.bin %> <%= command.id %> packages/claims' },
    { description: 'An SVG of one process', command: '<%= config.bin %> <%= command.id %> packages/claims/processes/claim.yaml --format svg --out claim.svg' },
    { description: 'What the scenarios reached, on a page', command: '<%= config.bin %> test --json > results.json; <%= config.bin %> <%= command.id %> packages/claims --coverage results.json --format html --out coverage.html' },
  ];

  static override enableJsonFlag = true;

  static override args = {
    target: Args.string({ description: 'A package directory or a process file.', required: true }),
  };

  static override flags = {
    format: Flags.string({ options: [...GRAPH_FORMATS], default: GRAPH_FLAGS.format.default, summary: GRAPH_FLAGS.format.summary }),
    coverage: Flags.string({ summary: GRAPH_FLAGS.coverage.summary, helpValue: GRAPH_FLAGS.coverage.helpValue }),
    out: Flags.string({ summary: GRAPH_FLAGS.out.summary, helpValue: GRAPH_FLAGS.out.helpValue }),
    process: Flags.string({ summary: GRAPH_FLAGS.process.summary, helpValue: GRAPH_FLAGS.process.helpValue }),
    cache: Flags.boolean({ allowNo: true, default: true, summary: GRAPH_FLAGS.cache.summary }),
  };

  async run(): Promise<GraphOutcome> {
    const { args, flags } = await this.parse(Graph);
    const { runGraph } = await import('../cli/graph.js');
    const outcome = await runGraph({
      target: args.target, format: flags.format as (typeof GRAPH_FORMATS)[number], cache: flags.cache,
      ...(flags.coverage ? { coverage: flags.coverage } : {}), ...(flags.out ? { out: flags.out } : {}), ...(flags.process ? { process: flags.process } : {}),
    });
    if (!this.jsonEnabled()) {
      for (const note of outcome.notes) this.logToStderr(note);
      if (outcome.output !== '') this.log(outcome.output.replace(/\n$/, ''));
    }
    return outcome;
  }
}
