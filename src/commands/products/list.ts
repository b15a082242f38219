import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class ProductsList extends ApiCommand<typeof ProductsList> {
  static override summary = 'List products, newest first';
  static override examples = ['<%= config.bin %> products list --status ON_SALE,SOLD_OUT --size 50', '<%= config.bin %> products list --keyword 머그 --json'];
  static override flags = {
    page: Flags.integer({ description: 'Page, from 1', default: 1, min: 1 }),
    size: Flags.integer({ description: 'Page size (at most 100)', default: 20, min: 1, max: 100 }),
    keyword: Flags.string({ description: 'Name contains' }),
    status: Flags.string({ description: 'Comma-separated statuses (ON_SALE, SOLD_OUT, SUSPENDED, ENDED)' }),
    'product-no': Flags.integer({ description: 'Product number' }),
    category: Flags.string({ description: 'Category id' }),
  };

  async run() {
    const f = this.flags;
    const data = await this.storeRequest('GET', '/v1/products', {
      query: { page: f.page, size: f.size, keyword: f.keyword, status: f.status, productNo: f['product-no'], categoryId: f.category },
    });
    this.output(data, () => {
      this.table(data.contents, ['productId', 'productNo', 'name', 'salePrice', 'status', 'stockQuantity']);
      this.log(`page ${data.page}/${Math.max(data.totalPages, 1)} · ${data.totalElements} products`);
    });
  }
}
