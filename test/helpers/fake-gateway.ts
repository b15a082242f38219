import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local stand-in for the gateways' public server APIs on 127.0.0.1: pg_one as Toss Payments
 * (`/v1/payments/...`, Basic auth with the secret key) and pg_two as PortOne V2 (`/payments/...`,
 * `Authorization: PortOne <secret>`). Tests seed payments, choose failures, and read the requests made.
 */
export interface FakePayment {
  /** pg_one: paymentKey; pg_two: payment id. */
  key: string;
  orderId: string;
  amount: number;
  status: string;
  method: string;
  canceled: number;
  /** Every cancel of this payment is refused with this answer (the merchant's balance, say) until cleared. */
  cancelRefusal?: { status: number; body: unknown };
}

/** A cash receipt the fake issued (pg_one `POST /v1/cash-receipts`, pg_two `POST /cash-receipts`). */
export interface FakeCashReceipt {
  /** What cancels it: pg_one's receiptKey; pg_two's payment id (ours). */
  key: string;
  pg: 'pg_one' | 'pg_two';
  /** Our id of the receipt: pg_one's `orderId`, pg_two's `paymentId`. */
  receiptId: string;
  amount: number;
  /** As the gateway names it: pg_one 소득공제/지출증빙, pg_two PERSONAL/CORPORATE. */
  type: string;
  identityNumber: string;
  issueNumber: string;
  status: 'ISSUED' | 'CANCELED';
}

export interface FakeGateway {
  url: string;
  pgOneSecret: string;
  pgTwoSecret: string;
  payments: Map<string, FakePayment>;
  cashReceipts: Map<string, FakeCashReceipt>;
  requests: { method: string; path: string; authorization: string | undefined; body: any }[];
  /** The next answer for a path prefix: a status with body, a dropped connection, or a delay before the normal answer. */
  script: Map<string, { status: number; body: unknown } | 'reset' | { delayMs: number }>;
  close(): Promise<void>;
}

async function readJson(req: IncomingMessage) {
  let text = '';
  for await (const chunk of req) text += chunk;
  return text ? JSON.parse(text) : null;
}

export async function startFakeGateway(pgOneSecret: string, pgTwoSecret: string): Promise<FakeGateway> {
  const payments = new Map<string, FakePayment>();
  const cashReceipts = new Map<string, FakeCashReceipt>();
  const issueReceipt = (r: Omit<FakeCashReceipt, 'issueNumber' | 'status'>) => {
    const receipt: FakeCashReceipt = { ...r, issueNumber: String(100000001 + cashReceipts.size), status: 'ISSUED' };
    cashReceipts.set(receipt.key, receipt);
    return receipt;
  };
  const receiptOf = (pg: FakeCashReceipt['pg'], receiptId: string) => [...cashReceipts.values()].find((r) => r.pg === pg && r.receiptId === receiptId);
  const requests: FakeGateway['requests'] = [];
  const script: FakeGateway['script'] = new Map();

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const tossPayment = (p: FakePayment) => ({
    paymentKey: p.key,
    orderId: p.orderId,
    status: p.status,
    method: p.method,
    totalAmount: p.amount,
    balanceAmount: p.amount - p.canceled,
  });
  const tossReceipt = (r: FakeCashReceipt) => ({
    receiptKey: r.key,
    issueNumber: r.issueNumber,
    issueStatus: 'COMPLETED',
    amount: r.amount,
    orderId: r.receiptId,
    type: r.type,
    transactionType: r.status === 'ISSUED' ? 'CONFIRM' : 'CANCEL',
    customerIdentityNumber: r.identityNumber,
  });
  const portonePayment = (p: FakePayment) => ({
    id: p.key,
    transactionId: `tx-${p.key}`,
    status: p.status,
    method: { type: p.method },
    amount: { total: p.amount, paid: p.amount, cancelled: p.canceled },
  });

  const server = createServer(async (req, res) => {
    const url = new URL(req.url!, 'http://fake');
    const body = req.method === 'POST' ? await readJson(req) : null;
    requests.push({ method: req.method!, path: url.pathname + url.search, authorization: req.headers.authorization, body });
    for (const [prefix, answer] of script) {
      if (!url.pathname.startsWith(prefix)) continue;
      if (answer === 'reset') {
        script.delete(prefix);
        req.socket.destroy();
        return;
      }
      if ('delayMs' in answer) {
        script.delete(prefix);
        await new Promise((r) => setTimeout(r, answer.delayMs));
        break;
      }
      script.delete(prefix);
      return send(res, answer.status, answer.body);
    }
    if (url.pathname.startsWith('/v1/')) {
      if (req.headers.authorization !== `Basic ${Buffer.from(`${pgOneSecret}:`).toString('base64')}`) {
        return send(res, 401, { code: 'UNAUTHORIZED_KEY', message: '인증되지 않은 시크릿 키 혹은 클라이언트 키 입니다.' });
      }
      if (req.method === 'POST' && url.pathname === '/v1/payments/confirm') {
        const p = payments.get(body.paymentKey);
        if (!p || p.orderId !== body.orderId)
          return send(res, 404, { code: 'NOT_FOUND_PAYMENT_SESSION', message: '결제 시간이 만료되어 결제 진행 데이터가 존재하지 않습니다.' });
        if (p.status === 'DONE') return send(res, 400, { code: 'ALREADY_PROCESSED_PAYMENT', message: '이미 처리된 결제 입니다.' });
        if (p.amount !== body.amount) return send(res, 400, { code: 'INVALID_REQUEST', message: '잘못된 요청입니다.' });
        if (p.status === 'REJECT') return send(res, 403, { code: 'REJECT_CARD_PAYMENT', message: '한도초과 혹은 잔액부족으로 결제에 실패했습니다.' });
        p.status = 'DONE';
        return send(res, 200, tossPayment(p));
      }
      const cancel = /^\/v1\/payments\/([^/]+)\/cancel$/.exec(url.pathname);
      if (req.method === 'POST' && cancel) {
        const p = payments.get(decodeURIComponent(cancel[1]));
        if (!p) return send(res, 404, { code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제 정보 입니다.' });
        if (p.cancelRefusal) return send(res, p.cancelRefusal.status, p.cancelRefusal.body);
        const amount = body.cancelAmount ?? p.amount - p.canceled;
        if (amount > p.amount - p.canceled) return send(res, 400, { code: 'NOT_CANCELABLE_AMOUNT', message: '취소 할 수 없는 금액 입니다.' });
        p.canceled += amount;
        p.status = p.canceled === p.amount ? 'CANCELED' : 'PARTIAL_CANCELED';
        return send(res, 200, tossPayment(p));
      }
      if (req.method === 'POST' && url.pathname === '/v1/cash-receipts') {
        // Toss answers a repeat under the same Idempotency-Key with the first answer.
        const earlier = receiptOf('pg_one', body.orderId);
        if (earlier && req.headers['idempotency-key'] === body.orderId) return send(res, 200, tossReceipt(earlier));
        const key = `rk_${body.orderId}`;
        const issued = issueReceipt({
          key,
          pg: 'pg_one',
          receiptId: body.orderId,
          amount: body.amount,
          type: body.type,
          identityNumber: body.customerIdentityNumber,
        });
        return send(res, 200, tossReceipt(issued));
      }
      const receiptCancel = /^\/v1\/cash-receipts\/([^/]+)\/cancel$/.exec(url.pathname);
      if (req.method === 'POST' && receiptCancel) {
        const r = cashReceipts.get(decodeURIComponent(receiptCancel[1]));
        if (!r) return send(res, 404, { code: 'NOT_FOUND_CASH_RECEIPT', message: '존재하지 않는 현금영수증 입니다.' });
        r.status = 'CANCELED';
        return send(res, 200, tossReceipt(r));
      }
      const byOrder = /^\/v1\/payments\/orders\/([^/]+)$/.exec(url.pathname);
      const byKey = /^\/v1\/payments\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && (byOrder || byKey)) {
        const p = byOrder ? [...payments.values()].find((x) => x.orderId === decodeURIComponent(byOrder[1])) : payments.get(decodeURIComponent(byKey![1]));
        return p ? send(res, 200, tossPayment(p)) : send(res, 404, { code: 'NOT_FOUND_PAYMENT', message: '존재하지 않는 결제 정보 입니다.' });
      }
    }
    if (url.pathname.startsWith('/payments/')) {
      if (req.headers.authorization !== `PortOne ${pgTwoSecret}`) return send(res, 401, { type: 'UNAUTHORIZED', message: 'Unauthorized' });
      const receipt = /^\/payments\/([^/]+)\/cash-receipt(\/cancel)?$/.exec(url.pathname);
      if (receipt) {
        const r = receiptOf('pg_two', decodeURIComponent(receipt[1]));
        if (!r) return send(res, 404, { type: 'CASH_RECEIPT_NOT_FOUND', message: 'not found' });
        if (req.method === 'GET')
          return send(res, 200, { status: r.status === 'ISSUED' ? 'ISSUED' : 'CANCELLED', issueNumber: r.issueNumber, amount: r.amount });
        r.status = 'CANCELED';
        return send(res, 200, { cancelledAmount: r.amount, cancelledAt: new Date().toISOString() });
      }
      const cancel = /^\/payments\/([^/]+)\/cancel$/.exec(url.pathname);
      if (req.method === 'POST' && cancel) {
        const p = payments.get(decodeURIComponent(cancel[1]));
        if (!p) return send(res, 404, { type: 'PAYMENT_NOT_FOUND', message: 'not found' });
        if (p.cancelRefusal) return send(res, p.cancelRefusal.status, p.cancelRefusal.body);
        const amount = body.amount ?? p.amount - p.canceled;
        if (amount > p.amount - p.canceled) return send(res, 409, { type: 'CANCELLABLE_AMOUNT_CONSISTENCY_BROKEN', message: 'amount' });
        p.canceled += amount;
        p.status = p.canceled === p.amount ? 'CANCELLED' : 'PARTIAL_CANCELLED';
        return send(res, 200, { cancellation: { status: 'SUCCEEDED', id: `c-${requests.length}`, totalAmount: amount, reason: body.reason } });
      }
      const get = /^\/payments\/([^/]+)$/.exec(url.pathname);
      if (req.method === 'GET' && get) {
        const p = payments.get(decodeURIComponent(get[1]));
        return p ? send(res, 200, portonePayment(p)) : send(res, 404, { type: 'PAYMENT_NOT_FOUND', message: 'not found' });
      }
    }
    if (req.method === 'POST' && url.pathname === '/cash-receipts') {
      if (req.headers.authorization !== `PortOne ${pgTwoSecret}`) return send(res, 401, { type: 'UNAUTHORIZED', message: 'Unauthorized' });
      if (receiptOf('pg_two', body.paymentId)?.status === 'ISSUED') return send(res, 409, { type: 'CASH_RECEIPT_ALREADY_ISSUED', message: 'already issued' });
      const r = issueReceipt({
        key: body.paymentId,
        pg: 'pg_two',
        receiptId: body.paymentId,
        amount: body.amount.total,
        type: body.type,
        identityNumber: body.customer.identityNumber,
      });
      return send(res, 200, { cashReceipt: { type: r.type, pgReceiptId: `pg-${r.key}`, issueNumber: r.issueNumber, totalAmount: r.amount, currency: 'KRW' } });
    }
    send(res, 404, { code: 'NOT_FOUND', message: 'no route' });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    pgOneSecret,
    pgTwoSecret,
    payments,
    cashReceipts,
    requests,
    script,
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}
