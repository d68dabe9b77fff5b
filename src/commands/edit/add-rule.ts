import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, FILE_FLAG, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditAddRule extends JsonCommand {
  static override summary = 'Add a rule to a process: a row of a decision table, or an event handler.';
  static override description = prose`--table and --row add a row as edit add-decision-row does; --on-event adds a handler {on: {event|observation: …}, do: [steps]}
to spec.onEvent.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --on-event '{on: {observation: claim.withdrawn}, do: [{id: withdrawn, complete: {outcome: withdrawn}}]}'`,
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --table approval-level --row @row.yaml --index 0`,
  ];

  static override enableJsonFlag = true;
  static override flags = {
    ...FILE_FLAG,
    table: Flags.string({ summary: 'Id of the decision table.', helpValue: 'TABLE', dependsOn: ['row'], exclusive: ['on-event'] }),
    row: Flags.string({ summary: 'The row: YAML or @FILE.', helpValue: 'YAML|@FILE', dependsOn: ['table'] }),
    'on-event': Flags.string({ summary: 'The event handler: YAML or @FILE.', helpValue: 'YAML|@FILE' }),
    index: Flags.integer({ min: 0, summary: 'Position of the new rule (0 = first).' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditAddRule);
    return runEdit({
      operation: 'add-rule', file: flags.file,
      ...(flags.table !== undefined ? { table: flags.table } : {}), ...(flags.row !== undefined ? { row: flags.row } : {}),
      ...(flags['on-event'] !== undefined ? { onEvent: flags['on-event'] } : {}), ...(flags.index !== undefined ? { index: flags.index } : {}),
    }, flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
