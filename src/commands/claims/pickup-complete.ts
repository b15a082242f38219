import { ClaimCommand } from '../../cli/claims.js';

export default class ClaimsPickupComplete extends ClaimCommand<typeof ClaimsPickupComplete> {
  static override summary = 'The returned or exchanged goods arrived back';
  static override examples = ['<%= config.bin %> claims pickup-complete clm_…'];

  async run() {
    await this.step('pickup-complete');
  }
}
