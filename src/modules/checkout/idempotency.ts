import { createHash } from 'node:crypto';
import type { Ctx, Reply } from '../../server/registry.js';
import { reply } from '../../server/registry.js';
import { ApiError, type FieldError } from '../../server/errors.js';
import { claimIdempotencyKey, settleIdempotencyKey } from '../../server/idempotency.js';

type Remembered =
  { ok: true; status: number; data: unknown } | { ok: false; status: number; code: string; details: Record<string, unknown> | null; fieldErrors: FieldError[] };

/** Errors of `idempotent`: a key reused for another request, or held by a request still running. */
export const IDEMPOTENCY_ERRORS = { 409: ['IDEMPOTENCY_KEY_REUSED', 'IDEMPOTENCY_KEY_IN_USE'] };

/**
 * `Idempotency-Key` for buyer requests, which carry no account token (guests carry none at all): the
 * pipeline's semantics and table (`src/server/idempotency.ts`, leases included), keyed on the resource the
 * buyer acts on (`checkout:<id>`, `payment:<id>`).
 */
export async function idempotent(ctx: Ctx, scope: string, run: () => Promise<Reply>): Promise<Reply> {
  const key = ctx.event.req.headers.get('idempotency-key');
  if (!key) return run();
  const { db } = ctx.services;
  // Hashed: the body holds the guest's order password and cash-receipt numbers, which must not rest in the table.
  const fingerprint = createHash('sha256')
    .update(`${ctx.event.req.method} ${ctx.event.url.pathname}\n${JSON.stringify(ctx.body ?? null)}`)
    .digest('base64url');
  const replay = await claimIdempotencyKey(db, scope, key, fingerprint, ctx.now);
  if (replay) {
    const remembered = JSON.parse(replay.body) as Remembered;
    if (remembered.ok) return reply(remembered.status, remembered.data, { headers: { 'idempotent-replayed': 'true' } });
    throw new ApiError(remembered.status, remembered.code, remembered.details, remembered.fieldErrors);
  }
  const settle = (remembered: Remembered) => settleIdempotencyKey(db, scope, key, { status: remembered.status, body: JSON.stringify(remembered) });
  try {
    const out = await run();
    await settle({ ok: true, status: out.status, data: out.data });
    return out;
  } catch (error) {
    if (error instanceof ApiError && error.status < 500)
      await settle({ ok: false, status: error.status, code: error.code, details: error.details, fieldErrors: error.fieldErrors });
    else await settle({ ok: false, status: 500, code: 'INTERNAL_ERROR', details: null, fieldErrors: [] });
    throw error;
  }
}
