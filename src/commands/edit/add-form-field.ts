import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, FILE_FLAG, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditAddFormField extends JsonCommand {
  static override summary = 'Add a field to the form of a human step.';
  static override description = prose`The field's JSON Schema goes under human.form.schema.properties (the form is created when the step has none);
--required lists it in required; --label becomes a Control of the form's uischema when it has one, else the
field's title.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --step review-claim --name comment --schema '{type: string, maxLength: 500}' --label Comment`,
  ];

  static override enableJsonFlag = true;
  static override flags = {
    ...FILE_FLAG,
    step: Flags.string({ required: true, summary: 'Id of the human step.', helpValue: 'STEP' }),
    name: Flags.string({ required: true, summary: 'Name of the field.', helpValue: 'NAME' }),
    schema: Flags.string({ required: true, summary: "The field's JSON Schema: YAML or @FILE.", helpValue: 'YAML|@FILE' }),
    required: Flags.boolean({ summary: 'The field must be filled in.' }),
    label: Flags.string({ summary: 'What the form shows as its label.', helpValue: 'TEXT' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditAddFormField);
    return runEdit({
      operation: 'add-form-field', file: flags.file, step: flags.step, name: flags.name, schema: flags.schema, required: flags.required,
      ...(flags.label !== undefined ? { label: flags.label } : {}),
    }, flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
