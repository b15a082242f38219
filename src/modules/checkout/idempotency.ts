import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Ctx, Reply } from '../../server/registry.js';
import { reply } from '../../server/registry.js';
import { ApiError, fail, type FieldError } from '../../server/errors.js';
import { idempotencyKeys } from '../../server/schema.js';

type Remembered = { ok: true; status: number; data: unknown } | { ok: false; status: number; code: string; details: Record<string, unknown> | null; fieldErrors: FieldError[] };

/**
 * `Idempotency-Key` for buyer requests, which carry no account token (guests carry none at all): the same
 * semantics as the pipeline's (same key → first answer again, another request under it → 409
 * IDEMPOTENCY_KEY_REUSED, one still running → 409 IDEMPOTENCY_KEY_IN_USE, 5xx not remembered), keyed on
 * the resource the buyer acts on (`checkout:<id>`, `payment:<id>`) in the same table.
 */
export async function idempotent(ctx: Ctx, scope: string, run: () => Promise<Reply>): Promise<Reply> {
  const key = ctx.event.req.headers.get('idempotency-key');
  if (!key) return run();
  const { services } = ctx;
  const where = and(eq(idempotencyKeys.tokenId, scope), eq(idempotencyKeys.key, key));
  // Hashed: the body holds the guest's order password and cash-receipt numbers, which must not rest in the table.
  const fingerprint = createHash('sha256').update(`${ctx.event.req.method} ${ctx.event.url.pathname}\n${JSON.stringify(ctx.body ?? null)}`).digest('base64url');
  const replay = services.sqlite.transaction(() => {
    const row = services.db.select().from(idempotencyKeys).where(where).get();
    if (!row) {
      services.db.insert(idempotencyKeys).values({ tokenId: scope, key, fingerprint, state: 'IN_PROGRESS', status: null, body: null, createdAt: ctx.now }).run();
      return null;
    }
    if (row.fingerprint !== fingerprint) throw fail(409, 'IDEMPOTENCY_KEY_REUSED');
    if (row.state === 'IN_PROGRESS') throw fail(409, 'IDEMPOTENCY_KEY_IN_USE');
    return JSON.parse(row.body!) as Remembered;
  })();
  if (replay) {
    if (replay.ok) return reply(replay.status, replay.data, { headers: { 'idempotent-replayed': 'true' } });
    throw new ApiError(replay.status, replay.code, replay.details, replay.fieldErrors);
  }
  const settle = (remembered: Remembered | null) => {
    if (remembered) services.db.update(idempotencyKeys).set({ state: 'DONE', status: remembered.status, body: JSON.stringify(remembered) }).where(where).run();
    else services.db.delete(idempotencyKeys).where(where).run();
  };
  try {
    const out = await run();
    settle({ ok: true, status: out.status, data: out.data });
    return out;
  } catch (error) {
    settle(error instanceof ApiError && error.status < 500 ? { ok: false, status: error.status, code: error.code, details: error.details, fieldErrors: error.fieldErrors } : null);
    throw error;
  }
}
