import { JsonCommand } from '../../cli/json-command.js';
import type { ResidentStatus } from '../../cli/resident.js';

export default class ResidentStatusCommand extends JsonCommand {
  static override summary = "Show the working directory's resident checker: running or not, since when, what it follows.";
  static override description = 'check asks the resident checker of the working directory when one runs; one is started in the background by ' +
    'check --resident, or by a check of 1,000 objects or more (not in CI). ' +
    'This says whether one runs for this directory, this build of package-sdk and this cache directory, and when none does, why the ' +
    'last one could not start if it could not. Exit status 0 either way.';
  static override examples = ['<%= config.bin %> <%= command.id %>', '<%= config.bin %> <%= command.id %> --json'];
  static override enableJsonFlag = true;

  async run(): Promise<{ running: boolean; socket: string; status?: ResidentStatus; startFailure?: string }> {
    await this.parse(ResidentStatusCommand);
    const { askResident, recentStartFailure, residentSocket } = await import('../../cli/resident.js');
    const socket = residentSocket();
    const answer = await askResident(socket, { status: true }, 10_000);
    if (answer !== undefined && 'status' in answer) {
      const { status } = answer;
      this.log(`a resident checker runs for ${status.root}: pid ${status.pid}, package-sdk ${status.version}, since ${status.startedAt}`);
      this.log(`  ${status.requests} checks answered, the last at ${status.lastRequestAt ?? '—'}; exits after ${status.idleMinutes} idle minutes`);
      this.log(`  follows ${status.watchedFolders} folders and holds the stats of ${status.knownStats} files and folders`);
      if (status.unfollowed !== undefined) this.log(`  a folder is not followed (its files are stat'ed at every check): ${status.unfollowed}`);
      return { running: true, socket, status };
    }
    const startFailure = recentStartFailure(socket);
    this.log(`no resident checker runs for ${process.cwd()}${startFailure !== undefined ? `; the last could not start: ${startFailure}` : ''}`);
    return { running: false, socket, ...(startFailure !== undefined ? { startFailure } : {}) };
  }
}
