import { Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import { localCore } from '../cli/local-core.js';
import type { ExportResult } from '../author/export.js';
import { prose } from '../cli/help-text.js';

export default class Export extends JsonCommand {
  static override summary = 'Write objects that live in a core (made in its console) into package files.';
  static override description = prose`Reads the objects of --kind (those named by --key, or every one the core lists) from the core and writes each
into its folder of the package (task-types/, processes/ …) as add writes it, so that it can be committed. A
package directory without package.yaml gets one. A field the core holds that schema/v1 does not allow is
listed and kept as a comment in the file, never dropped silently; the package is checked afterwards.

Kinds: Process, Calendar, View (by key, --version for an older one), TaskType, Role, Agent (by key), WorkRule, Skill.

Exit status: 0 exported, 1 refusal (an object the core does not have, a file that exists), 2 usage or I/O problems.`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> --server https://cp.example.com --kind TaskType --key claim-review --package packages/claims',
    '<%= config.bin %> <%= command.id %> --server local --kind Process --key claim --version 3 --json',
  ];

  static override enableJsonFlag = true;
  static override flags = {
    server: Flags.string({ required: true, summary: 'Core URL, or "local" for the embedded core.', helpValue: 'URL|local' }),
    kind: Flags.string({ required: true, summary: 'Kind of the objects.', helpValue: 'KIND' }),
    key: Flags.string({ multiple: true, summary: 'Key of an object (repeatable); default: every one the core lists.', helpValue: 'KEY' }),
    version: Flags.string({ summary: 'Version to export (default: the latest).', helpValue: 'N' }),
    package: Flags.string({ default: '.', summary: 'Package directory to write into.', helpValue: 'DIR' }),
    env: Flags.file({ summary: 'CP_TOKEN and the other values, NAME=value per line; the environment wins.' }),
    overwrite: Flags.boolean({ summary: 'Replace files that exist.' }),
  };

  async run(): Promise<ExportResult> {
    const { flags } = await this.parse(Export);
    const { exportObjects } = await import('../author/export.js');
    const result = await exportObjects({
      server: flags.server, kind: flags.kind, packageDir: flags.package, localCore, overwrite: flags.overwrite,
      ...(flags.key ? { keys: flags.key } : {}), ...(flags.version ? { version: flags.version } : {}), ...(flags.env ? { env: flags.env } : {}),
    });
    if (!this.jsonEnabled()) {
      for (const file of result.created) this.log(`created ${file}`);
      for (const file of result.updated) this.log(`updated ${file}`);
      for (const { file, fields } of result.notAllowed) this.logToStderr(`warning: ${file}: the core holds ${fields.join(', ')}, which schema/v1 does not allow — kept as a comment`);
      for (const finding of result.findings) this.logToStderr(`${finding.severity}: ${finding.file}:${finding.line}: ${finding.code}: ${finding.message}`);
    }
    return result;
  }
}
