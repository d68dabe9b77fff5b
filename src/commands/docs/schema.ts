import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import type { SchemaDocsResult } from '../../docs/schema-reference.js';
import { prose } from '../../cli/help-text.js';

export default class DocsSchema extends JsonCommand {
  static override summary = 'Generate the field reference of schema/v1 (docs/schema-reference.md).';
  static override description = prose`Every definition of the package schemas with its Field / Type / Required / Description table, includes,
"Exactly one of", conditions and value lines, section by section. --check exits 1 when the file is stale.`;

  static override examples = [
    { description: 'Write docs/schema-reference.md', command: '<%= config.bin %> <%= command.id %>' },
    { description: 'Fail in CI when the reference is stale', command: '<%= config.bin %> <%= command.id %> --check' },
  ];

  static override enableJsonFlag = true;

  static override flags = {
    out: Flags.directory({ summary: 'Directory of schema-reference.md.', default: 'docs' }),
    check: Flags.boolean({ summary: 'Only compare; exit 1 when the file differs from the schema.' }),
  };

  async run(): Promise<SchemaDocsResult> {
    const { flags } = await this.parse(DocsSchema);
    const { schemaDocs } = await import('../../docs/schema-reference.js');
    const { SCHEMA_DIR } = await import('../../author/hints.js');
    const result = await schemaDocs({ schemaDir: SCHEMA_DIR, out: flags.out, check: flags.check });
    if (flags.check && !result.fresh) process.exitCode = 1;
    if (!this.jsonEnabled()) {
      if (flags.check) this.log(result.fresh ? `${result.file} is up to date (${result.definitions} definitions)` : `${result.file} is stale: run package-sdk docs schema`);
      else this.log(`${result.written ? 'wrote' : 'unchanged'} ${result.file} (${result.definitions} definitions)`);
    }
    return result;
  }
}
