import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, FILE_FLAG, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditAddStep extends JsonCommand {
  static override summary = 'Add a step (or a block of steps) to a stage of a process.';
  static override description = prose`--in names a stage, or a do or try step whose block gets the step. Without --after or --before the step goes
last — before the block's closing complete step, which must stay last.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --in review --step '{id: notify, call: {skill: notify.send@1}}' --after review-claim`,
    '<%= config.bin %> <%= command.id %> --file processes/claim.yaml --in review --step @steps.yaml --block --dry-run',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    ...FILE_FLAG,
    in: Flags.string({ required: true, summary: 'Stage id (or the id of a do / try step).', helpValue: 'STAGE' }),
    step: Flags.string({ required: true, summary: 'The step: YAML or @FILE (with --block, a list of steps).', helpValue: 'YAML|@FILE' }),
    block: Flags.boolean({ summary: '--step is a list of steps, added in order.' }),
    after: Flags.string({ summary: 'Put it after this step.', helpValue: 'STEP', exclusive: ['before'] }),
    before: Flags.string({ summary: 'Put it before this step.', helpValue: 'STEP' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditAddStep);
    return runEdit({
      operation: 'add-step', file: flags.file, in: flags.in, step: flags.step, block: flags.block,
      ...(flags.after !== undefined ? { after: flags.after } : {}), ...(flags.before !== undefined ? { before: flags.before } : {}),
    }, flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
