import { Args, Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import type { AddResult } from '../author/add.js';
import { prose } from '../cli/help-text.js';

export default class Add extends JsonCommand {
  static override summary = 'Add one object to a package (the smallest valid spec, its optional fields as comments), or a scenario.';
  static override description = prose`Writes the object in its conventional folder (task-types/, processes/, rules/ …) with the editor modeline
and a spec that passes check. KIND accepts TaskType, task-type or task-types (and rule, process, view …).
A Process also brings its identity agent <key>-process and its owner role <key>-owner. A View or Component
declares the package locales when it has none and adds its texts to the dictionaries. Package adds a new
package next to this one; Installation an installation file next to it. "add test KEY" writes a first scenario
of the process, work rule or task type KEY in tests/KEY.test.yaml that passes as the object stands. The
modelines point at the schemas in .schema/v1 at the root of the repository, copied there when missing.
Never overwrites a file.`;

  static override examples = [
    { description: 'A task type in ./task-types/claim-review.yaml', command: '<%= config.bin %> <%= command.id %> task-type claim-review' },
    { description: 'A process with its agent and owner role', command: '<%= config.bin %> <%= command.id %> Process claim --package packages/claims' },
    { description: 'A work rule, reporting what was written as JSON', command: '<%= config.bin %> <%= command.id %> rule claim-reopened --json' },
    { description: 'A first scenario of the process claim', command: '<%= config.bin %> <%= command.id %> test claim' },
  ];

  static override enableJsonFlag = true;

  static override args = {
    kind: Args.string({ description: 'Kind of the object (TaskType, task-type, task-types, rule, …), or test.', required: true }),
    key: Args.string({ description: 'Key of the new object; with test, the key of its subject.', required: true }),
  };

  static override flags = {
    package: Flags.string({ summary: 'Package directory.', default: '.', helpValue: 'DIR' }),
  };

  async run(): Promise<AddResult> {
    const { args, flags } = await this.parse(Add);
    const { addObject } = await import('../author/add.js');
    const result = await addObject({ kind: args.kind, key: args.key, packageDir: flags.package });
    if (!this.jsonEnabled()) {
      for (const file of result.created) this.log(`created ${file}`);
      for (const file of result.updated) this.log(`updated ${file}`);
    }
    return result;
  }
}
