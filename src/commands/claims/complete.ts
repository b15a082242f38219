import { ClaimCommand } from '../../cli/claims.js';

export default class ClaimsComplete extends ClaimCommand<typeof ClaimsComplete> {
  static override summary = 'Finish a claim: a return refunds (stock back), an exchange closes';
  static override examples = ['<%= config.bin %> claims complete clm_…'];

  async run() {
    await this.step('complete');
  }
}
