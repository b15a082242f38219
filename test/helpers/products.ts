import * as assert from 'uvu/assert';
import type { Api, ApiResponse } from './service.js';

/** Creates a product and returns its data; fails the test on anything but 201. */
export async function createProduct(api: Api, body: Record<string, unknown> = {}) {
  const res = await api('POST', '/v1/products', { body: { name: '테스트 상품', salePrice: 10000, ...body } });
  assert.is(res.status, 201, JSON.stringify(res.body));
  return res.data;
}

/** Asserts an error envelope with status and code. */
export function fails(res: ApiResponse, status: number, code: string) {
  assert.is(res.status, status, JSON.stringify(res.body));
  assert.is(res.body.error?.code, code, JSON.stringify(res.body));
  assert.is(res.body.meta.isSuccess, false);
}

/** A product read, to show a refused request changed nothing. */
export const read = async (api: Api, productId: string) => (await api('GET', `/v1/products/${productId}`)).data;
