import { ClaimCommand } from '../../cli/claims.js';

export default class ClaimsGet extends ClaimCommand<typeof ClaimsGet> {
  static override summary = 'Show a claim and its amounts (estimates until COMPLETED)';
  static override examples = ['<%= config.bin %> claims get clm_…'];

  async run() {
    const claim = await this.storeRequest('GET', this.claimPath);
    this.output(claim, () => this.printClaim(claim));
  }
}
