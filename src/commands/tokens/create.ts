import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { UsageError } from '../../cli/usage-error.js';

export default class TokensCreate extends ApiCommand<typeof TokensCreate> {
  static override summary = 'Create an access token (needs a login at most 10 minutes old); the value is shown once';
  static override examples = [
    '<%= config.bin %> tokens create --name ci --scopes product:rw,order:r --stores dev-store',
    '<%= config.bin %> tokens create --name reporting --scopes stores:read,analytics:r --stores all --expires-in-days 30 --json',
  ];
  static override flags = {
    name: Flags.string({ description: 'A name to recognise the token by (prompted for at a terminal)' }),
    scopes: Flags.string({ description: 'Comma-separated scopes, e.g. product:rw,order:r,stores:read (prompted for at a terminal)' }),
    stores: Flags.string({ description: '"all" (every store, including ones joined later) or comma-separated store ids or codes', default: 'all' }),
    'expires-in-days': Flags.integer({ description: 'Lifetime in days (1–365)', default: 90 }),
    agent: Flags.boolean({ description: 'Mark as an AI-agent token (cannot be changed later)' }),
    'buyer-delegation': Flags.boolean({ description: 'Allow buyer delegation' }),
  };

  async run() {
    const f = this.flags;
    const name = f.name ?? (await this.ask('name', 'Token name'));
    const scopes = f.scopes ?? (await this.ask('scopes', 'Scopes (comma-separated, e.g. product:rw,order:r)'));
    const token = await this.request('POST', '/auth/v1/access-tokens', {
      body: {
        name,
        scopes: scopes
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean),
        storeScope:
          f.stores === 'all'
            ? { all: true }
            : {
                storeIds: await this.storeIdsOf(
                  f.stores
                    .split(',')
                    .map((s) => s.trim())
                    .filter(Boolean),
                ),
              },
        expiresInDays: f['expires-in-days'],
        agent: f.agent,
        buyerDelegation: f['buyer-delegation'],
      },
    });
    this.output(token, () => {
      this.log(`Created access token ${token.tokenId} (${token.name}), expires ${token.expiresAt}.`);
      this.log('Copy it now — it is not shown again:');
      this.log(token.token);
    });
  }

  /** Store ids of `--stores`, whose entries may be codes: a token's store scope is kept as ids. */
  private async storeIdsOf(names: string[]): Promise<string[]> {
    if (names.every((n) => n.startsWith('st_'))) return names;
    const { contents } = await this.request<{ contents: { storeId: string; code: string }[] }>('GET', '/v1/me/stores');
    return names.map((n) => {
      if (n.startsWith('st_')) return n;
      const store = contents.find((s) => s.code === n);
      if (!store) throw new UsageError(`--stores: no store with code "${n}" among yours (svc stores list)`);
      return store.storeId;
    });
  }
}
