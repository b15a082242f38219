import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class ProductsList extends ApiCommand<typeof ProductsList> {
  static override summary = 'List products, newest first';
  static override examples = ['<%= config.bin %> products list --status ON_SALE,SOLD_OUT --size 50', '<%= config.bin %> products list --keyword 머그 --json'];
  static override flags = {
    ...pageFlags(),
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
    this.outputList(data, () => {
      this.table(data.contents, ['productId', 'productNo', 'name', 'salePrice', 'status', 'stockQuantity'], { money: ['salePrice'] });
      this.log(pageSummary(data, 'products'));
    });
  }
}
