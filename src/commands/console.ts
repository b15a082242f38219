import { Flags } from '@oclif/core';
import { ApiCommand } from '../cli/api-command.js';
import { openBrowser } from '../cli/open-browser.js';

export default class Console extends ApiCommand<typeof Console> {
  static override summary = "Open the console, the service's web screen (svc dev serves it at /console/; svc serve with --console)";
  static override description =
    "Prints the console's address for the profile's service and opens it in the browser when one can be opened. The console signs in through the service's own login page.";
  static override examples = ['<%= config.bin %> console', '<%= config.bin %> console --profile prod --no-browser'];
  static override flags = {
    'no-browser': Flags.boolean({ description: 'Only print the address; do not try to open a browser' }),
  };

  async run() {
    const url = `${this.apiUrl.replace(/\/$/, '')}/console/`;
    this.output({ url }, () => this.log(`The console: ${url}`));
    if (!this.flags['no-browser'] && !this.flags.json) await openBrowser(url);
  }
}
