import { ApiCommand } from '../../cli/api-command.js';

export default class TokensList extends ApiCommand<typeof TokensList> {
  static override summary = 'List your access tokens (values are never shown again)';

  async run() {
    const data = await this.request('GET', '/auth/v1/access-tokens');
    this.outputList(data, (contents: any[]) =>
      this.table(
        contents.map((t: any) => ({
          ...t,
          scopes: t.scopes.join(','),
          stores: t.storeScope.all ? 'all' : t.storeScope.storeIds.join(','),
          agent: t.agent ? 'yes' : '',
        })),
        ['tokenId', 'name', 'status', 'scopes', 'stores', 'agent', 'expiresAt', 'lastUsedAt'],
      ),
    );
  }
}
