import { ApiCommand } from '../../cli/api-command.js';
import { readConfig, readCredential } from '../../client/config.js';

export default class ProfilesList extends ApiCommand<typeof ProfilesList> {
  static override summary = 'List profiles';

  async run() {
    const config = readConfig();
    const rows = Object.entries(config.profiles).map(([name, p]) => ({
      name,
      current: name === config.currentProfile,
      apiUrl: p.apiUrl,
      storeId: p.storeId ?? null,
      credential: readCredential(name)?.kind ?? null,
    }));
    this.outputList({ contents: rows }, () =>
      this.table(
        rows.map((r) => ({ ...r, current: r.current ? '*' : '' })),
        ['current', 'name', 'apiUrl', 'storeId', 'credential'],
      ),
    );
  }
}
