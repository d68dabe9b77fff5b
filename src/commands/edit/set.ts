import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, FILE_FLAG, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditSet extends JsonCommand {
  static override summary = 'Set one value of an object file, by JSON Pointer.';
  static override description = prose`--path is a JSON Pointer (/spec/displayName, /spec/stages/0/steps/- to append to a list); mappings on the way
are created. --value is YAML (a scalar, or a mapping or list); --string takes it as text as it is. The envelope
(apiVersion, kind) is not set, and a key changes with edit rename.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --file task-types/claim-review.yaml --path /spec/displayName --value "Claim review"',
    `<%= config.bin %> <%= command.id %> --file processes/claim.yaml --path /spec/due --value '{workdays: 5}'`,
    '<%= config.bin %> <%= command.id %> --file roles/claims-officer.yaml --path /spec/description --value yes --string',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    ...FILE_FLAG,
    path: Flags.string({ required: true, summary: 'JSON Pointer of the value.', helpValue: 'POINTER' }),
    value: Flags.string({ required: true, summary: 'The value: YAML or @FILE.', helpValue: 'YAML|@FILE' }),
    string: Flags.boolean({ summary: 'Take --value as a string, as it is.' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditSet);
    return runEdit({ operation: 'set', file: flags.file, path: flags.path, value: flags.value, string: flags.string },
      flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
