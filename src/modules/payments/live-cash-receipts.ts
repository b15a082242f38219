import type { CashReceiptCancelResult, CashReceiptInput, CashReceiptResult, Gateway, Pg } from './gateway.js';
import {
  call,
  failureOf,
  PG_ONE_CONFIGURATION_CODES,
  PG_TWO_CONFIGURATION_CODES,
  pgOneEndpoint,
  pgTwoEndpoint,
  troubleOf,
  type GatewayAnswer,
} from './live.js';
import type { PgTwoConfig, PublicConfig, SecretFields } from './schema.js';

/**
 * Cash receipts at the live gateways (spec 01 §3.4). pg_one follows Toss Payments' cash receipt API
 * (`POST /v1/cash-receipts` with an `Idempotency-Key`, so a repeated issue answers the first one's receipt;
 * `POST /v1/cash-receipts/{receiptKey}/cancel`); pg_two follows PortOne V2 (`POST /cash-receipts` under a
 * payment id of ours, `GET` / `POST /payments/{id}/cash-receipt[/cancel]`). Neither API is ever called with
 * test keys. A 5xx or no answer is PENDING: the issuing job asks again with the same receipt id.
 */
type LiveCashReceipts = Required<Pick<Gateway, 'issueCashReceipt' | 'cancelCashReceipt'>>;

const pending = (answer: GatewayAnswer | null, code: string | undefined): CashReceiptResult => ({
  status: 'PENDING',
  receiptKey: null,
  issueNumber: null,
  failure: troubleOf(answer, code),
});

function pgOneCashReceipts(secrets: SecretFields): LiveCashReceipts {
  const { base, authorization } = pgOneEndpoint(secrets);
  return {
    async issueCashReceipt(input: CashReceiptInput) {
      const answer = await call(`${base}/v1/cash-receipts`, {
        method: 'POST',
        authorization,
        headers: { 'idempotency-key': input.receiptId },
        body: {
          amount: input.amount,
          orderId: input.receiptId,
          orderName: input.orderName,
          customerIdentityNumber: input.identityNumber,
          type: input.type === 'INCOME_DEDUCTION' ? '소득공제' : '지출증빙',
        },
      });
      if (!answer || answer.status >= 500) return pending(answer, answer?.body?.code);
      if (answer.status !== 200) {
        const failure = failureOf(answer, answer.body?.code, answer.body?.message, PG_ONE_CONFIGURATION_CODES);
        return { status: 'REFUSED', receiptKey: null, issueNumber: null, failure };
      }
      const receipt = answer.body ?? {};
      if (receipt.issueStatus === 'FAILED') {
        const failure = {
          code: receipt.failure?.code ?? 'CASH_RECEIPT_FAILED',
          message: receipt.failure?.message ?? '현금영수증 발급에 실패했습니다.',
          optionUnavailable: false,
        };
        return { status: 'REFUSED', receiptKey: null, issueNumber: null, failure };
      }
      // IN_PROGRESS is taken as issued: the gateway holds the receipt under this key and finishes it itself.
      return { status: 'ISSUED', receiptKey: String(receipt.receiptKey), issueNumber: receipt.issueNumber ?? null };
    },
    async cancelCashReceipt({ receiptKey }): Promise<CashReceiptCancelResult> {
      const answer = await call(`${base}/v1/cash-receipts/${encodeURIComponent(receiptKey)}/cancel`, { method: 'POST', authorization, body: {} });
      if (!answer || answer.status >= 500) return { status: 'PENDING', failure: troubleOf(answer, answer?.body?.code) };
      if (answer.status === 200 || String(answer.body?.code ?? '').startsWith('ALREADY_CANCELED')) return { status: 'CANCELED' };
      return { status: 'REFUSED', failure: failureOf(answer, answer.body?.code, answer.body?.message, PG_ONE_CONFIGURATION_CODES) };
    },
  };
}

function pgTwoCashReceipts(config: PgTwoConfig, secrets: SecretFields): LiveCashReceipts {
  const { base, authorization } = pgTwoEndpoint(secrets);
  const receiptUrl = (id: string, suffix = '') =>
    `${base}/payments/${encodeURIComponent(id)}/cash-receipt${suffix}?storeId=${encodeURIComponent(config.storeId)}`;
  // A receipt belongs to a channel: the one that takes bank transfers, the cash method (spec 01 §5.5 channel choice).
  const channel = config.channels.find((c) => c.methods.includes('BANK_TRANSFER')) ?? config.channels[0];
  return {
    async issueCashReceipt(input: CashReceiptInput) {
      const answer = await call(`${base}/cash-receipts`, {
        method: 'POST',
        authorization,
        body: {
          storeId: config.storeId,
          paymentId: input.receiptId,
          channelKey: channel?.channelKey,
          type: input.type === 'INCOME_DEDUCTION' ? 'PERSONAL' : 'CORPORATE',
          orderName: input.orderName,
          currency: 'KRW',
          amount: { total: input.amount },
          customer: { identityNumber: input.identityNumber },
        },
      });
      if (!answer || answer.status >= 500) return pending(answer, answer?.body?.type);
      if (answer.status === 200) return { status: 'ISSUED', receiptKey: input.receiptId, issueNumber: answer.body?.cashReceipt?.issueNumber ?? null };
      if (answer.body?.type === 'CASH_RECEIPT_ALREADY_ISSUED') {
        // An earlier try went through and its answer was lost: read the receipt back.
        const issued = await call(receiptUrl(input.receiptId), { method: 'GET', authorization });
        if (issued?.status === 200 && issued.body?.status === 'ISSUED')
          return { status: 'ISSUED', receiptKey: input.receiptId, issueNumber: issued.body.issueNumber ?? null };
        return pending(issued, undefined);
      }
      const failure = failureOf(answer, answer.body?.type, answer.body?.message, PG_TWO_CONFIGURATION_CODES);
      return { status: 'REFUSED', receiptKey: null, issueNumber: null, failure };
    },
    async cancelCashReceipt({ receiptKey }): Promise<CashReceiptCancelResult> {
      const answer = await call(receiptUrl(receiptKey, '/cancel'), { method: 'POST', authorization, body: {} });
      if (!answer || answer.status >= 500) return { status: 'PENDING', failure: troubleOf(answer, answer?.body?.type) };
      // NOT_ISSUED: nothing stands to cancel (an earlier try's cancel went through and its answer was lost).
      if (answer.status === 200 || answer.body?.type === 'CASH_RECEIPT_NOT_ISSUED') return { status: 'CANCELED' };
      return { status: 'REFUSED', failure: failureOf(answer, answer.body?.type, answer.body?.message, PG_TWO_CONFIGURATION_CODES) };
    },
  };
}

export const liveCashReceipts = (pg: Pg, config: PublicConfig, secrets: SecretFields): LiveCashReceipts =>
  pg === 'pg_one' ? pgOneCashReceipts(secrets) : pgTwoCashReceipts(config as PgTwoConfig, secrets);
