import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class ReviewsHide extends ApiCommand<typeof ReviewsHide> {
  static override summary = 'Hide a review from buyers (it stays in svc reviews list)';
  static override examples = ['<%= config.bin %> reviews hide rev_…'];
  static override args = { reviewId: Args.string({ required: true, description: 'Review id (rev_…)' }) };

  async run() {
    const review = await this.storeRequest('POST', `/v1/reviews/${encodeURIComponent(this.args.reviewId)}/hide`);
    this.output(review, () => this.log(`${review.reviewId} is hidden from buyers.`));
  }
}
