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

/**
 * `fn` fails, whether it throws or its promise rejects (SQLite's statements throw at once, PostgreSQL's
 * reject), with an error whose message matches `expects` or that passes it; uvu/assert's `throws` for async work.
 */
export async function rejects(fn: () => Promise<unknown>, expects: RegExp | ((error: any) => boolean)) {
  try {
    await fn();
  } catch (error) {
    if (expects instanceof RegExp) assert.match((error as Error).message, expects);
    else assert.ok(expects(error), `unexpected error: ${(error as Error).message}`);
    return;
  }
  assert.unreachable('expected an error');
}
