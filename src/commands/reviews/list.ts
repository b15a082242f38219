import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class ReviewsList extends ApiCommand<typeof ReviewsList> {
  static override summary = "List the store's reviews, newest first (hidden ones included)";
  static override examples = ['<%= config.bin %> reviews list', '<%= config.bin %> reviews list --product prd_… --rating 1 --json'];
  static override flags = {
    ...pageFlags(),
    product: Flags.string({ description: 'Only reviews of this product' }),
    rating: Flags.integer({ min: 1, max: 5, description: 'Only reviews with this rating' }),
  };

  async run() {
    const data = await this.storeRequest('GET', '/v1/reviews', {
      query: { page: this.flags.page, size: this.flags.size, productId: this.flags.product, rating: this.flags.rating },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((r: any) => ({
          ...r,
          stars: '★'.repeat(r.rating) + '☆'.repeat(5 - r.rating),
          text: r.text.length > 40 ? `${r.text.slice(0, 39)}…` : r.text,
          replied: r.reply ? 'yes' : '',
          hidden: r.hidden ? 'hidden' : '',
        })),
        ['reviewId', 'stars', 'text', 'replied', 'hidden', 'createdAt'],
      );
      this.log(pageSummary(data, 'reviews'));
    });
  }
}
