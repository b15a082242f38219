import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class TokensRevoke extends ApiCommand<typeof TokensRevoke> {
  static override summary = 'Revoke an access token; it stops working at once';
  static override args = { tokenId: Args.string({ required: true }) };

  async run() {
    const token = await this.request('DELETE', `/auth/v1/access-tokens/${encodeURIComponent(this.args.tokenId)}`);
    this.output(token, () => this.log(`Revoked ${token.tokenId} (${token.name}).`));
  }
}
