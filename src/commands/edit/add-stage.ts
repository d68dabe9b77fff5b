import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, FILE_FLAG, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditAddStage extends JsonCommand {
  static override summary = 'Add a stage to a process.';
  static override description = prose`The stage is a mapping with its id and steps; it goes last unless --after or --before names a stage.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --stage '{id: archive, steps: [{id: archived, complete: {outcome: archived}}]}' --after review`,
  ];

  static override enableJsonFlag = true;
  static override flags = {
    ...FILE_FLAG,
    stage: Flags.string({ required: true, summary: 'The stage: YAML or @FILE.', helpValue: 'YAML|@FILE' }),
    after: Flags.string({ summary: 'Put it after this stage.', helpValue: 'STAGE', exclusive: ['before'] }),
    before: Flags.string({ summary: 'Put it before this stage.', helpValue: 'STAGE' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditAddStage);
    return runEdit({
      operation: 'add-stage', file: flags.file, stage: flags.stage,
      ...(flags.after !== undefined ? { after: flags.after } : {}), ...(flags.before !== undefined ? { before: flags.before } : {}),
    }, flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
