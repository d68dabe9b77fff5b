import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, FILE_FLAG, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditAddDecisionRow extends JsonCommand {
  static override summary = 'Add a row to a decision table of a process.';
  static override description = prose`The row is {when: {input: cell, …}, then: {output: value, …}}. Without --index it goes last — in a table of
hit policy first, before a closing catch-all row (every cell "-"), which would otherwise shadow it.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --table approval-level --row '{when: {amount: "[1000..5000)"}, then: {level: 2}}'`,
  ];

  static override enableJsonFlag = true;
  static override flags = {
    ...FILE_FLAG,
    table: Flags.string({ required: true, summary: 'Id of the decision table (spec.decisions).', helpValue: 'TABLE' }),
    row: Flags.string({ required: true, summary: 'The row: YAML or @FILE.', helpValue: 'YAML|@FILE' }),
    index: Flags.integer({ min: 0, summary: 'Position of the new row (0 = first).' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditAddDecisionRow);
    return runEdit({ operation: 'add-decision-row', file: flags.file, table: flags.table, row: flags.row, ...(flags.index !== undefined ? { index: flags.index } : {}) },
      flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
