import { Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { pageFlags, pageSummary } from '../../cli/paging.js';

export default class OrdersList extends ApiCommand<typeof OrdersList> {
  static override summary = 'List orders, newest first (default: ordered in the last 30 days)';
  static override examples = [
    '<%= config.bin %> orders list',
    '<%= config.bin %> orders list --order-no 20261121-000001',
    '<%= config.bin %> orders list --keyword 김구매 --test-payment false --json',
    '<%= config.bin %> orders list --last-changed-from 2026-11-21T00:00:00+09:00',
  ];
  static override flags = {
    ...pageFlags(),
    'order-no': Flags.string({ description: 'Order number (14 digits, hyphen allowed); no period needed' }),
    keyword: Flags.string({ description: 'Order number, buyer, receiver or product name contains' }),
    'test-payment': Flags.option({ options: ['true', 'false'] as const, description: 'Only test (sandbox) or only real orders' })(),
    from: Flags.string({ description: 'Ordered from (YYYY-MM-DD, Korean date; period at most 92 days)' }),
    to: Flags.string({ description: 'Ordered to (YYYY-MM-DD, inclusive)' }),
    'last-changed-from': Flags.string({ description: 'Changed at or after this ISO 8601 instant (reconcile after webhook gaps)' }),
  };

  async run() {
    const f = this.flags;
    const data = await this.storeRequest('GET', '/v1/orders', {
      query: {
        page: f.page,
        size: f.size,
        orderNo: f['order-no'],
        keyword: f.keyword,
        testPayment: f['test-payment'],
        orderedFrom: f.from,
        orderedTo: f.to,
        lastChangedFrom: f['last-changed-from'],
      },
    });
    this.outputList(data, () => {
      this.table(
        data.contents.map((o: any) => ({
          ...o,
          total: o.amounts.totalAmount,
          items: o.items.length,
          buyer: o.buyer.name,
          test: o.testPayment ? 'test' : '',
        })),
        ['orderNo', 'orderId', 'status', 'total', 'items', 'buyer', 'test', 'orderedAt'],
        { money: ['total'] },
      );
      this.log(`${pageSummary(data, 'orders')}${data.orderedFrom ? ` ordered ${data.orderedFrom}..${data.orderedTo}` : ''}`);
    });
  }
}
