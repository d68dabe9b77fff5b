import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import { EDIT_DESCRIPTION_TAIL, EDIT_FLAGS, runEdit } from '../../cli/edit.js';
import type { EditResult } from '../../author/edit/index.js';
import { prose } from '../../cli/help-text.js';

export default class EditRename extends JsonCommand {
  static override summary = 'Rename an element of a process, or an object of a package — and every reference to it.';
  static override description = prose`--file FILE renames an element of that process (a step, a stage, a milestone, a decision table): its id,
decide.table, compensate, stage.<id> and milestone.<id> in expressions, the steps the package's tests name, and
its coordinates in .layout/<process>.json. Running instances of the published version find the element by a
migrations entry (map: {old: new}) to the next version, unless --no-migration.

--package DIR renames an object (--kind when the key names objects of several kinds): its key, its file when
named by the key, and every reference in the package's objects, manifest and tests. A Process or Calendar also
gets a renames entry in package.yaml, by which the core moves the published object, unless --no-migration.

${EDIT_DESCRIPTION_TAIL}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --file processes/claim.yaml --from review-claim --to assess-claim',
    '<%= config.bin %> <%= command.id %> --package . --kind TaskType --from claim-review --to claim-assessment --dry-run',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    file: Flags.string({ summary: 'The process whose element is renamed.', helpValue: 'FILE', exactlyOne: ['file', 'package'] }),
    package: Flags.string({ summary: 'The package whose object is renamed.', helpValue: 'DIR' }),
    kind: Flags.string({ summary: 'Kind of the object (with --package).', helpValue: 'KIND', dependsOn: ['package'] }),
    from: Flags.string({ required: true, summary: 'The current id or key.', helpValue: 'NAME' }),
    to: Flags.string({ required: true, summary: 'The new id or key.', helpValue: 'NAME' }),
    migration: Flags.boolean({ default: true, allowNo: true, summary: 'Add the migrations entry (element) or the renames entry (Process, Calendar).' }),
    ...EDIT_FLAGS,
  };

  async run(): Promise<EditResult> {
    const { flags } = await this.parse(EditRename);
    return runEdit({
      operation: 'rename', from: flags.from, to: flags.to, migration: flags.migration,
      ...(flags.file !== undefined ? { file: flags.file } : {}), ...(flags.package !== undefined ? { package: flags.package } : {}),
      ...(flags.kind !== undefined ? { kind: flags.kind } : {}),
    }, flags['dry-run'], this.jsonEnabled() ? undefined : (text) => this.log(text), (text) => this.logToStderr(text));
  }
}
