import { getRouterParams, type H3Event } from 'h3';
import { onPostgres, transaction } from '../db/client.js';
import { newId } from '../db/ids.js';
import { markedAsAgent, type Principal } from '../kernel/identity.js';
import { agentDecision, agentDenied, APPROVAL_REASON, authorize, bearerChallenge, decisionReason, type AgentDecision } from './access.js';
import { AGENT_HEADER } from '../mcp-server/headers.js';
import { checkError, checkingContracts, checkSuccess } from './contract.js';
import { acceptsGzip, errorOutgoing, newTraceId, RawJson, successOutgoing, toApiError, toHttp, type Outgoing } from './envelope.js';
import { fail } from './errors.js';
import { isReply, type Ctx, type Operation, type Preview, type RawRequest, type StoreContext, type StoreCtx, type Target } from './registry.js';
import { claimIdempotencyKey, settleIdempotencyKey, type Remembered } from './idempotency.js';
import { requestHooks, type RequestResult } from './module.js';
import type { Services } from './services.js';
import { readBodyText, requireJsonContentType } from './body.js';
import { parseBody, parseQuery, readMultipart, requestFingerprint, type Multipart } from './request-input.js';
import { parseWith, queryObject } from './validation.js';
import { StoreQueues } from './store-queues.js';

const DEFAULT_MAX_BODY = 1024 * 1024;
/** Query parameters every operation accepts: `lang` picks the message language (only Korean is offered). */
const GLOBAL_QUERY = new Set(['lang']);

export const DRY_RUN_HEADER = 'x-svc-dry-run';

/** Builds the one request handler of an operation: everything but the business rules happens here. */
export function operationHandler(services: Services, op: Operation) {
  const isWrite = op.method !== 'GET';
  const audited = isWrite && op.auth === 'store';
  // Keys belong to a token; the buyer API keys guest requests on its own records (checkout, payment).
  const honoursIdempotency = isWrite && op.idempotent !== false && (op.auth === 'account' || op.auth === 'store');
  const docsBase = `${services.config.origin}/docs/errors`;
  const challenge = bearerChallenge(services, op);
  const { principalOf, storeAccess, buyerOf, storeNeverPublic, assertAiActionsLeft, holdForApproval, aiActionDone, requestAnswered, requestFinished } =
    requestHooks(services.modules);
  // Store requests go to the API log (spec 01 §7, §8); the others name no store to keep them under.
  const logged = op.auth === 'store';

  return (event: H3Event) => settle(answer(event));

  function* answer(event: H3Event): Generator<unknown, Response, unknown> {
    const startedAt = logged ? performance.now() : 0;
    const traceId = newTraceId();
    const requestId = newId('req');
    const headers = event.req.headers;
    let principal: Principal | null = null;
    let store: StoreContext | null = null;
    let target: Target | null = null;
    let ctx: Ctx | null = null;
    const idempotencyKey = honoursIdempotency ? headers.get('idempotency-key') : null;

    const audit = (statusCode: number, result: RequestResult, errorCode: string | null, approvalId: string | null = null) => {
      if (!audited || !principal || !store) return;
      return requestAnswered(services, {
        storeId: store.id,
        kind: 'REQUEST',
        actor: { type: principal.actorType, id: principal.userId, name: principal.userName },
        source: principal.source,
        action: op.operationId,
        target,
        statusCode,
        result,
        errorCode,
        requestId,
        traceId,
        idempotencyKey,
        approvalId,
        metadata: {
          ...(principal.clientId ? { clientId: principal.clientId, tokenKind: principal.kind } : { tokenKind: principal.kind }),
          ...ctx?.auditMetadata,
        },
      });
    };
    // Only once the store is known: a request refused before that (401, another store's) is nobody's to see.
    const logFinished = (status: number, errorCode: string | null) => {
      if (!logged || !store) return;
      requestFinished(services, {
        storeId: store.id,
        operationId: op.operationId,
        method: op.method,
        path: event.url.pathname,
        status,
        errorCode,
        durationMs: Math.round(performance.now() - startedAt),
        actor: { type: principal!.actorType, id: principal!.userId },
        traceId,
        requestId,
        idempotencyKey,
        at: services.clock.now(),
      });
    };
    const finish = (out: Outgoing, replayed = false, errorCode: string | null = null) => {
      logFinished(out.status, errorCode);
      return toHttp(
        out,
        replayed ? { 'x-request-id': requestId, 'x-trace-id': traceId, 'idempotent-replayed': 'true' } : { 'x-request-id': requestId, 'x-trace-id': traceId },
        out.gzip !== undefined && acceptsGzip(headers.get('accept-encoding')),
      );
    };

    try {
      if (op.auth === 'account' || op.auth === 'store')
        principal = markedAsAgent((yield principalOf(services, headers.get('authorization'))) as Principal, headers.get(AGENT_HEADER));
      if (op.auth === 'store') store = (yield storeAccess(services, principal!, headers.get('x-store-id'))) as StoreContext;
      const buyer = op.auth === 'buyer' ? ((yield buyerOf(services, headers.get('x-store-id'), headers.get('authorization'))) as Ctx['buyer']) : undefined;
      const dryRun = isWrite && headers.get(DRY_RUN_HEADER) === '1';
      // An agent is told its operation is denied to agents before any other refusal (spec 01 §5.6, §7);
      // a dry run goes on to validate the request and reports the denial as its decision.
      if (principal?.agent && isWrite && op.agent === 'denied' && !dryRun) throw agentDenied(op);
      authorize(services, op, principal, store);

      const raw: RawRequest = {
        params: getRouterParams(event, { decode: true }),
        query: event.url.search === '' ? {} : queryObject(event.url.searchParams, GLOBAL_QUERY),
        body: isWrite && !op.multipart && !op.ignoresBody ? ((yield readBodyText(event, op.maxBodyBytes ?? DEFAULT_MAX_BODY)) as string) : '',
      };
      requireJsonContentType(event, raw.body);
      const multipart = op.multipart ? ((yield readMultipart(event, op.multipart.maxBytes)) as Multipart) : null;
      ctx = buildCtx(services, op, raw, { principal, store, buyer, requestId, traceId, event, form: multipart?.form });
      target = ((yield op.target?.(ctx)) as Target | null | undefined) ?? null;
      if (op.precheck) yield op.precheck(ctx);
      // A multipart upload's precheck stores what it read and names it in the body: an approval replays that.
      if (op.multipart) raw.body = JSON.stringify(ctx.body ?? {});

      const agentWrite = Boolean(principal?.agent && isWrite);
      const decision = agentWrite ? ((yield agentDecision(services, op, ctx, storeNeverPublic)) as AgentDecision) : 'ALLOW';

      if (dryRun) {
        const preview = ((yield op.preview?.(ctx)) as Preview | undefined) ?? { changes: [] };
        yield audit(200, 'DRY_RUN', null);
        return finish(
          successOutgoing(
            200,
            {
              dryRun: true,
              decision,
              reason: decisionReason(op, decision),
              preview: { operationId: op.operationId, target, changes: preview.changes, facts: preview.facts ?? {}, targetName: preview.targetName ?? null },
            },
            'DRY_RUN',
          ),
        );
      }

      if (decision === 'DENIED') throw agentDenied(op);
      if (agentWrite && store && !op.tradeProcessing) yield assertAiActionsLeft(services, store.id, ctx.now);
      const fingerprint = idempotencyKey ? requestFingerprint(op, event, multipart ? multipart.digest : raw.body) : '';

      if (decision === 'APPROVAL_REQUIRED') {
        // Approval requests belong to a store's approvers: an operation outside a store cannot wait for one.
        if (!store) throw fail(403, 'AGENT_OPERATION_DENIED');
        const out = (yield holdForApproval(services, {
          op,
          ctx: ctx as StoreCtx,
          raw,
          target,
          reason: APPROVAL_REASON,
          idempotencyKey,
          fingerprint,
        })) as Outgoing & { approvalId: string };
        yield audit(out.status, out.status === 202 ? 'PENDING_APPROVAL' : 'SUCCEEDED', null, out.approvalId);
        return finish(out);
      }

      if (idempotencyKey) {
        const replay = (yield claimIdempotencyKey(services.db, principal!.tokenId, idempotencyKey, fingerprint, ctx.now)) as Remembered | null;
        if (replay) {
          const errorCode = replay.status < 400 ? null : ((JSON.parse(replay.body).meta?.code as string | undefined) ?? null);
          yield audit(replay.status, replay.status < 400 ? 'SUCCEEDED' : 'FAILED', errorCode);
          return finish({ status: replay.status, body: replay.body }, true, errorCode);
        }
      }

      // The answer is remembered in the handler's own transaction where there is one, so a process killed
      // in between cannot leave a committed change without its remembered answer.
      const remember = idempotencyKey ? (answer: Outgoing) => settleIdempotencyKey(services.db, principal!.tokenId, idempotencyKey, answer) : undefined;
      // A success's audit record commits with the change it records (one commit, not a second for the record
      // alone); only an operation that runs without the pipeline's transaction (`async`) writes it after.
      const inTransaction = audited && !op.async;
      let out: Outgoing | Response;
      try {
        out = (yield execute(
          services,
          op,
          ctx,
          inTransaction
            ? async (answer) => {
                await remember?.(answer);
                await audit(answer.status, 'SUCCEEDED', null);
              }
            : remember,
        )) as Outgoing | Response;
      } catch (error) {
        const err = toApiError(error, traceId);
        yield remember?.(errorOutgoing(err, traceId, docsBase));
        throw err;
      }
      // A stream answers as it is: it is a read, so it has nothing to remember or count.
      if (out instanceof Response) {
        logFinished(out.status, null);
        return out;
      }
      if (remember && op.async) yield remember(out);
      if (agentWrite && store) yield aiActionDone(services, store.id, ctx.now);
      if (!inTransaction) yield audit(out.status, 'SUCCEEDED', null);
      return finish(out);
    } catch (error) {
      const err = checkingContracts ? checkError(op, toApiError(error, traceId)) : toApiError(error, traceId);
      yield audit(err.status, err.status === 403 ? 'DENIED' : 'FAILED', err.code);
      const out = errorOutgoing(err, traceId, docsBase);
      if (err.status === 401) out.headers = { ...out.headers, 'www-authenticate': challenge(err, headers.get('authorization') !== null) };
      return finish(out, false, err.code);
    }
  }
}

/**
 * Drives a request pipeline written as a generator that yields what it waits for: a plain value resumes
 * it at once, a promise is awaited. A request with nothing to wait for (a cached read) is so answered
 * synchronously, with no promise and no microtask turn between it and the socket.
 */
function settle<T>(steps: Generator<unknown, T, unknown>): T | Promise<T> {
  let step = steps.next();
  while (!step.done) {
    if (step.value instanceof Promise) return settleAsync(steps, step.value);
    step = steps.next(step.value);
  }
  return step.value;
}

async function settleAsync<T>(steps: Generator<unknown, T, unknown>, pending: Promise<unknown>): Promise<T> {
  let step = await resume(steps, pending);
  while (!step.done) step = step.value instanceof Promise ? await resume(steps, step.value) : steps.next(step.value);
  return step.value;
}

/** A rejection is thrown into the generator, where its own try/catch answers it. */
const resume = <T>(steps: Generator<unknown, T, unknown>, pending: Promise<unknown>) =>
  pending.then(
    (value) => steps.next(value),
    (error: unknown) => steps.throw(error),
  );

/** Validates a raw request against the operation's schemas and assembles the handler's context. */
export function buildCtx(
  services: Services,
  op: Operation,
  raw: RawRequest,
  who: Pick<Ctx, 'principal' | 'store' | 'buyer' | 'requestId' | 'traceId' | 'event' | 'form'>,
): Ctx {
  return {
    services,
    db: services.db,
    clock: services.clock,
    now: services.clock.now(),
    params: op.params ? parseWith(op.params, raw.params) : raw.params,
    query: parseQuery(op, raw.query),
    body: parseBody(op, raw.body),
    ...who,
  };
}

type AfterCommit = ((out: Outgoing) => Promise<void>) | undefined;

/** The transactions of `oneWriterPerStore` operations, one at a time per store. */
const storeWriters = new StoreQueues();

/**
 * Runs the handler — writes inside one transaction unless the operation is `async` — and wraps its
 * result; `inTransaction` (remembering the answer of an idempotent request, the audit record) runs inside that transaction.
 * A read whose handler answers at once (a cached read model on SQLite) is answered at once.
 */
export function execute(services: Services, op: Operation, ctx: Ctx, inTransaction?: AfterCommit): Outgoing | Response | Promise<Outgoing | Response> {
  if (op.method !== 'GET' && !op.async) {
    const run = () =>
      transaction(services.db, async () => {
        const out = wrapResult(op, await op.handler(ctx));
        if (inTransaction && !(out instanceof Response)) await inTransaction(out);
        return out;
      });
    // Only a transaction of its own waits its turn: one already open (an approval's) runs the write inside it.
    const queued = op.oneWriterPerStore && ctx.store && onPostgres(services.db) && !services.db.$client.inTransaction;
    return queued ? storeWriters.run(ctx.store!.id, run) : run();
  }
  const result = op.handler(ctx);
  return result instanceof Promise ? result.then((r) => wrapResult(op, r)) : wrapResult(op, result);
}

function wrapResult(op: Operation, result: unknown): Outgoing | Response {
  if (result instanceof Response) return result;
  if (checkingContracts) {
    const [status, data] = isReply(result) ? [result.status, result.data] : [op.status ?? 200, result];
    checkSuccess(op, status, data instanceof RawJson ? JSON.parse(data.json) : data);
  }
  return isReply(result) ? successOutgoing(result.status, result.data, result.code ?? 'OK', result.headers) : successOutgoing(op.status ?? 200, result);
}
