import { operationErrors } from './contract.js';
import { errorMessage } from './messages.js';
import { ref } from './openapi-schemas.js';
import type { Operation } from './registry.js';

const meta = (isSuccess: boolean) => ({
  type: 'object',
  required: ['status', 'code', 'message', 'isSuccess'],
  properties: { status: { type: 'integer' }, code: { type: 'string' }, message: { type: 'string' }, isSuccess: { type: 'boolean', const: isSuccess } },
});

/** The parts of the envelope (spec 01 §2.1) every answer of the document refers to. */
export const ENVELOPE_SCHEMAS = {
  SuccessMeta: meta(true),
  ErrorMeta: meta(false),
  FieldError: {
    type: 'object',
    required: ['field', 'code', 'message'],
    properties: { field: { type: 'string' }, code: { type: 'string' }, message: { type: 'string' } },
  },
  Error: {
    type: 'object',
    required: ['code', 'message', 'details', 'fieldErrors', 'docs', 'traceId'],
    properties: {
      code: { type: 'string' },
      message: { type: 'string' },
      details: { type: 'object' },
      fieldErrors: { type: 'array', items: ref('FieldError') },
      docs: { type: 'string', format: 'uri' },
      traceId: { type: 'string' },
    },
  },
  ErrorEnvelope: { type: 'object', required: ['meta', 'data', 'error'], properties: { meta: ref('ErrorMeta'), data: { type: 'null' }, error: ref('Error') } },
};

/** `ORDER_ITEM_NOT_FOUND` → `OrderItemNotFound`. */
const pascalCode = (code: string) =>
  code
    .toLowerCase()
    .split('_')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join('');

function errorResponse(status: number, codes: readonly string[]) {
  return {
    description: codes.map((code) => `\`${code}\`: ${errorMessage(code, status)}`).join('\n\n'),
    ...(status === 401 ? { headers: { 'WWW-Authenticate': { description: 'RFC 6750 bearer challenge', schema: { type: 'string' } } } } : {}),
    ...(status === 429 ? { headers: { 'Retry-After': { description: 'Seconds to wait, when the limit has a window', schema: { type: 'integer' } } } } : {}),
    content: {
      'application/json': {
        schema: {
          allOf: [
            ref('ErrorEnvelope'),
            {
              type: 'object',
              required: ['error'],
              properties: { error: { type: 'object', required: ['code'], properties: { code: { type: 'string', enum: codes } } } },
            },
          ],
        },
      },
    },
  };
}

/**
 * The document's error answers as shared `components/responses`, one per status and list of codes: most
 * operations answer the same ones (every operation 413, 414, 415, 431 and 500; every token 401), and each
 * written out per operation was half the document. The list most operations answer with a status is named
 * after the status (`Error404`: STORE_NOT_FOUND); one that adds codes to it after them (`Error404_OrderNotFound`);
 * one without some of its codes after all of its own (`Error404_Only_AppNotFound`, for an account operation).
 */
export class ErrorResponses {
  readonly responses: Record<string, ReturnType<typeof errorResponse>> = {};
  /** The component name of each status and list of codes (`404 STORE_NOT_FOUND,ORDER_NOT_FOUND`). */
  readonly #names = new Map<string, string>();

  constructor(operations: readonly Operation[]) {
    const uses = new Map<string, number>();
    for (const op of operations)
      for (const [status, codes] of Object.entries(operationErrors(op))) uses.set(`${status} ${codes}`, (uses.get(`${status} ${codes}`) ?? 0) + 1);
    const usual = new Map<string, string[]>();
    const most = new Map<string, number>();
    for (const [key, count] of uses) {
      const [status, codes] = key.split(' ');
      if (count > (most.get(status) ?? 0)) {
        most.set(status, count);
        usual.set(status, codes.split(','));
      }
    }
    for (const key of [...uses.keys()].sort()) {
      const [status, list] = key.split(' ');
      const codes = list.split(',');
      const usualCodes = usual.get(status) ?? [];
      const addsToUsual = usualCodes.every((code) => codes.includes(code));
      const parts = [`Error${status}`, ...(addsToUsual ? [] : ['Only']), ...codes.filter((code) => !addsToUsual || !usualCodes.includes(code)).map(pascalCode)];
      let name = parts.join('_');
      // The same codes in another order: a list of its own.
      for (let n = 2; name in this.responses; n++) name = `${parts.join('_')}_${n}`;
      this.#names.set(key, name);
      this.responses[name] = errorResponse(Number(status), codes);
    }
  }

  /** `op`'s error answers by status, each a `$ref` to its shared response. */
  of(op: Operation): Record<string, { $ref: string }> {
    const out: Record<string, { $ref: string }> = {};
    for (const [status, codes] of Object.entries(operationErrors(op)).sort(([a], [b]) => Number(a) - Number(b)))
      out[status] = { $ref: `#/components/responses/${this.#names.get(`${status} ${codes}`)}` };
    return out;
  }
}
