import { existsSync, readFileSync } from 'node:fs';
import { Flags } from '@oclif/core';
import { JsonCommand } from '../cli/json-command.js';
import type { LockReport } from '../lock/lock.js';
import { Refusal } from '../fs/refusal.js';

export default class Lock extends JsonCommand {
  static override summary = 'Pin the sources of an installation in packages.lock.';
  static override description = 'Fetches the tag of every git source, extracts the package at that commit and writes ' +
    'packages.lock next to the installation file: the commit and the contentHash of every package, in dependency ' +
    'order. With --check nothing is written: the command exits 1 with a diff when packages.lock is out of date.';
  static override examples = [
    '<%= config.bin %> <%= command.id %> --install packages.yaml',
    '<%= config.bin %> <%= command.id %> --install packages.yaml --check',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    install: Flags.file({ required: true, summary: 'Installation file (packages.lock is written next to it).' }),
    check: Flags.boolean({ summary: 'Write nothing; exit 1 with a diff when packages.lock is out of date (for CI).' }),
  };

  async run(): Promise<LockReport> {
    const { flags } = await this.parse(Lock);
    if (!existsSync(flags.install)) throw new Refusal('file_not_found', `no installation file ${flags.install}`, { exitCode: 2 });
    const { lock } = await import('../lock/lock.js');
    const progress = process.stderr.isTTY && !this.jsonEnabled();
    const report = await lock({
      install: flags.install,
      check: flags.check,
      onFetch: progress ? (source) => process.stderr.write(`fetching ${source.git} (${source.ref})…\n`) : undefined,
      onWait: progress ? (owner) => process.stderr.write(`waiting for ${owner}, which holds the cache…\n`) : undefined,
    });
    if (report.status === 'failed' || report.status === 'outdated') process.exitCode = 1;
    if (!this.jsonEnabled()) await this.render(report);
    return report;
  }

  private async render(report: LockReport): Promise<void> {
    const [{ renderFinding }, { paintFor }] = await Promise.all([import('../report/text.js'), import('../report/paint.js')]);
    const paint = paintFor(process.stderr);
    for (const finding of report.findings) this.logToStderr(renderFinding(finding, sourceOf(finding.file), paint));
    if (report.status === 'failed') return;
    for (const entry of report.document?.packages ?? []) {
      const where = 'git' in entry.source ? entry.source.git : entry.source.path;
      const commit = entry.commit ? ` ${entry.commit.slice(0, 12)}` : '';
      this.log(`   ${entry.key} ${entry.version}: ${where}${commit} ${entry.contentHash.slice(0, 19)}…`);
    }
    if (report.status === 'written') this.log(`written ${report.lockFile}`);
    else if (report.status === 'current') this.log(`${report.lockFile} is up to date`);
    else this.log(`${report.lockFile} is out of date — run package-sdk lock:\n${report.diff}`);
  }
}

function sourceOf(file: string): string | undefined {
  try {
    return file.endsWith('.yaml') || file.endsWith('.yml') ? readFileSync(file, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
