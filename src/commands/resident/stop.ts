import { JsonCommand } from '../../cli/json-command.js';

export default class ResidentStopCommand extends JsonCommand {
  static override summary = "Stop the working directory's resident checker.";
  static override description = 'The resident checker that check asks exits on its own after 30 idle minutes ' +
    '(PACKAGE_SDK_RESIDENT_IDLE_MINUTES); this stops it now. The next check --resident, or check of 1,000 objects or more, starts another. Exit status 0 ' +
    'whether one ran or not.';
  static override examples = ['<%= config.bin %> <%= command.id %>'];
  static override enableJsonFlag = true;

  async run(): Promise<{ stopped: boolean }> {
    await this.parse(ResidentStopCommand);
    const { askResident, residentSocket } = await import('../../cli/resident.js');
    const answer = await askResident(residentSocket(), { stop: true }, 10_000);
    const stopped = answer !== undefined && 'stopped' in answer;
    this.log(stopped ? `the resident checker of ${process.cwd()} stopped` : `no resident checker runs for ${process.cwd()}`);
    return { stopped };
  }
}
