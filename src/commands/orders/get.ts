import { Args } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';
import { won } from '../../cli/format.js';

/** An order for people: the lines `svc orders get` and `svc checkout try` print. */
export function printOrder(cmd: Pick<ApiCommand<any>, 'log'>, order: any) {
  cmd.log(`Order ${order.orderNo} (${order.orderId}) · ${order.status}${order.testPayment ? ' · TEST payment' : ''} · ${order.orderedAt}`);
  cmd.log(`  buyer    ${order.buyer.name ?? '-'}${order.buyer.guest ? ' (guest)' : ''}${order.buyer.email ? ` <${order.buyer.email}>` : ''}`);
  if (order.shippingAddress)
    cmd.log(
      `  ship to  ${order.shippingAddress.receiverName}, ${order.shippingAddress.zipCode} ${order.shippingAddress.address1} ${order.shippingAddress.address2}`.trimEnd(),
    );
  for (const item of order.items) {
    const options = item.optionValues.length ? ` [${item.optionValues.join(' / ')}]` : '';
    const stay = item.stay ? ` ${item.stay.checkIn}→${item.stay.checkOut}` : '';
    cmd.log(
      `  ${item.orderItemNo}  ${item.productName}${options}${stay} × ${item.quantity}  ${won(item.amount)}  ${item.fulfillmentSnapshot.type}  ${item.status}  ${item.orderItemId}`,
    );
  }
  const a = order.amounts;
  cmd.log(
    `  items ${won(a.itemsAmount)} + shipping ${won(a.deliveryAmount)}${a.remoteSurcharge ? ` + remote ${won(a.remoteSurcharge)}` : ''} = ${won(a.totalAmount)}`,
  );
  const p = order.payment;
  cmd.log(
    `  paid     ${won(p.amount)} by ${p.approvedMethod}${p.approvedMethod !== p.method ? ` (method ${p.method})` : ''}${p.pg ? ` via ${p.pg}` : ''} · payment ${p.paymentId}`,
  );
  if (p.cashReceipt) cmd.log(`  cash receipt ${p.cashReceipt.type} ${p.cashReceipt.identityNumber} · ${p.cashReceipt.status}`);
}

export default class OrdersGet extends ApiCommand<typeof OrdersGet> {
  static override summary = 'Show an order: items, amounts, payment and cash receipt';
  static override args = { orderId: Args.string({ required: true, description: 'Order id (ord_…)' }) };

  async run() {
    const order = await this.storeRequest('GET', `/v1/orders/${encodeURIComponent(this.args.orderId)}`);
    this.output(order, () => printOrder(this, order));
  }
}
