import { Flags } from '@oclif/core';
import { JsonCommand } from '../../cli/json-command.js';
import type { PruneReport } from '../../sources/prune.js';

export default class CachePrune extends JsonCommand {
  static override summary = 'Remove git checkouts that no lock file references.';
  static override description = 'Git sources live in $PACKAGE_SDK_CACHE (default ~/.cache/package-sdk): a mirror of each ' +
    'source and the checkouts of its commits. prune removes the checkouts that none of the lock files references ' +
    'and that were not used within the hour; mirrors stay, so a checkout can be extracted again without the ' +
    'network. Without --lock every packages.lock under the current directory counts. --all empties the cache.';
  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --lock deploy/prod/packages.lock --lock deploy/stage/packages.lock',
    '<%= config.bin %> <%= command.id %> --all',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    lock: Flags.file({ multiple: true, summary: 'A lock file whose checkouts are kept (repeatable).' }),
    all: Flags.boolean({ summary: 'Remove the mirrors and checkouts of every source.', exclusive: ['lock'] }),
  };

  async run(): Promise<PruneReport> {
    const { flags } = await this.parse(CachePrune);
    const { prune } = await import('../../sources/prune.js');
    const report = await prune({ locks: flags.lock, all: flags.all });
    if (!this.jsonEnabled()) {
      if (flags.all) this.log(`source directories cleared: ${report.removed}`);
      else {
        for (const file of report.lockFiles) this.log(`   counted ${file}`);
        this.log(`checkouts removed: ${report.removed}, kept by lock: ${report.keptByLock}, recently used: ${report.recentlyUsed}`);
      }
    }
    return report;
  }
}
