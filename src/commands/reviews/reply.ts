import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class ReviewsReply extends ApiCommand<typeof ReviewsReply> {
  static override summary = 'Reply to a review (a new reply replaces the last)';
  static override examples = ['<%= config.bin %> reviews reply rev_… --text "소중한 후기 감사합니다!"'];
  static override args = { reviewId: Args.string({ required: true, description: 'Review id (rev_…)' }) };
  static override flags = { text: Flags.string({ required: true, description: 'The reply (2,000 characters)' }) };

  async run() {
    const review = await this.storeRequest('POST', `/v1/reviews/${encodeURIComponent(this.args.reviewId)}/reply`, { body: { text: this.flags.text } });
    this.output(review, () => this.log(`Replied to ${review.reviewId} (${review.rating}★).`));
  }
}
