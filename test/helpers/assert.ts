import * as assert from 'uvu/assert';
import type { ApiResponse } from './service.js';

/** The answer is this error: code first, so a failure message shows the whole body. Returns the body. */
export function fails(res: ApiResponse, status: number, code: string) {
  assert.is(res.body?.error?.code, code, JSON.stringify(res.body));
  assert.is(res.status, status);
  return res.body;
}

/** The answer succeeded with this status; returns its data. */
export function ok(res: ApiResponse, status = 200) {
  assert.is(res.status, status, JSON.stringify(res.body));
  return res.data;
}
