import { Flags } from '@oclif/core';
import { setTimeout as sleep } from 'node:timers/promises';
import { UsageError } from '../../../../src/cli/usage-error.js';
import { AppCommand } from '../../../../src/cli/app/app-command.js';

export default class AppLogs extends AppCommand<typeof AppLogs> {
  static override summary = "Runs of the app's functions in every store: status, duration, console output, errors (kept 7 days)";
  static override examples = ['<%= config.bin %> app logs', '<%= config.bin %> app logs --follow', '<%= config.bin %> app logs --limit 200 --json'];
  static override flags = {
    limit: Flags.integer({ description: 'How many recent runs', default: 20, min: 1, max: 200 }),
    follow: Flags.boolean({ char: 'f', description: 'Keep printing new runs until Ctrl-C' }),
  };

  async run() {
    const handle = this.project().manifest.handle;
    const appId = await this.appIdOf(handle);
    if (!appId) throw new UsageError(`${handle} was never deployed: run svc app deploy`);
    // One --json list like every other: the service's page, newest first, with its nextCursor.
    if (this.flags.json && !this.flags.follow)
      return this.outputList(await this.request('GET', `/v1/developer/apps/${appId}/logs`, { query: { limit: this.flags.limit } }), () => undefined);
    const recent = await this.logsSince(appId, null, this.flags.limit);
    let last: string | null = null;
    const show = (runs: typeof recent) => {
      for (const x of runs) {
        if (this.flags.json) this.log(JSON.stringify(x));
        else this.printExecution(x);
        last = x.executionId;
      }
    };
    show(recent);
    while (this.flags.follow) {
      await sleep(1000);
      show(await this.logsSince(appId, last));
    }
  }
}
