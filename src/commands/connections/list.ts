import { ApiCommand } from '../../cli/api-command.js';

export default class ConnectionsList extends ApiCommand<typeof ConnectionsList> {
  static override summary = 'List the apps (OAuth clients) your account is connected to';

  async run() {
    const data = await this.request('GET', '/auth/v1/connections');
    this.outputList(data, (contents: any[]) =>
      this.table(
        contents.map((c: any) => ({ ...c, scopes: c.scopes.join(',') || '-', stores: 'all', agent: c.agent ? 'yes' : '' })),
        ['clientId', 'clientName', 'scopes', 'stores', 'agent', 'sessions', 'lastUsedAt'],
      ),
    );
  }
}
