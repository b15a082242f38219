import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { SignJWT } from 'jose';
import { newSecret } from '../../db/ids.js';
import type { Services } from '../../server/services.js';
import type { SigningKeys } from '../../kernel/identity.js';
import { loadSigningKeys } from '../accounts/index.js';
import { createGuardedFetch, RuntimeCallbackError, type InvocationKind as RuntimeKind } from '../../runtime-host/index.js';

/** What an app's functions are called for (the runtime also runs storefront sites, which are not apps). */
type InvocationKind = Exclude<RuntimeKind, 'site'>;
import { issueInstallationToken } from './installation-tokens.js';
import type { ExecutionKind } from './schema.js';
import { runInSandbox } from './isolates.js';
import { recordExecution } from './executions.js';
import type { FunctionContext, InvokeOutcome, InvokeTarget } from './invocation.js';

export type { FunctionContext, InvokeOutcome, InvokeTarget };

const EXECUTION_KIND: Record<InvocationKind, ExecutionKind> = {
  tool: 'TOOL',
  notification: 'NOTIFICATION',
  schedule: 'SCHEDULE',
  route: 'HTTP',
  event: 'EVENT',
};

/** Tool results and every other function result: at most 64 KB of JSON (spec 02 §8). */
const RESULT_MAX_BYTES = 64 * 1024;
const EXTERNAL_DEADLINE_MS = 10_000;

/** Per-call context: `invocationId` stays the same on every retry of one delivery (flow notifications). */
export interface CallOptions {
  invocationId?: string;
}

/** What every function receives besides its input: which store, its settings, and an API client's credentials. */
async function functionContext(services: Services, t: InvokeTarget, call: CallOptions = {}): Promise<FunctionContext> {
  const { token, expiresAt } = await issueInstallationToken(services, t.installation.id);
  return {
    ...(call.invocationId ? { invocationId: call.invocationId } : {}),
    storeId: t.installation.storeId,
    installationId: t.installation.id,
    app: { appId: t.app.id, handle: t.app.handle, version: t.version.version },
    settings: t.installation.settings,
    api: { baseUrl: services.urls.admin, token, tokenExpiresAt: new Date(expiresAt).toISOString() },
  };
}

export async function invoke(
  services: Services,
  t: InvokeTarget,
  kind: InvocationKind,
  name: string,
  input: unknown,
  call: CallOptions = {},
): Promise<InvokeOutcome> {
  const context = await functionContext(services, t, call);
  if (t.version.manifest.runtime === 'external') return callExternal(services, t, kind, name, input, context);
  return runInSandbox(services, t, kind, name, input, context);
}

/** Thrown by an `accept` of invokeAndRecord: the function answered something its caller cannot use. */
export class UnusableAnswer extends Error {}

/**
 * Runs one function and keeps its execution record (and the app's failure run, for suspension). `accept`
 * turns the answer into what the caller needs; an answer it refuses (UnusableAnswer) is the app's error,
 * recorded as `INVALID_RESPONSE`.
 */
export async function invokeAndRecord<T = unknown>(
  services: Services,
  t: InvokeTarget,
  kind: InvocationKind,
  name: string,
  input: unknown,
  accept: (value: unknown) => T = (value) => value as T,
  call: CallOptions = {},
): Promise<InvokeOutcome<T>> {
  const outcome = accepted(await invoke(services, t, kind, name, input, call), accept);
  await recordExecution(
    services,
    {
      app: t.app,
      installation: t.installation,
      kind: EXECUTION_KIND[kind],
      name,
      status: outcome.ok ? 'SUCCEEDED' : 'FAILED',
      appError: !outcome.ok && outcome.appError,
      errorCode: outcome.ok ? null : outcome.code,
      errorMessage: outcome.ok ? null : outcome.message,
      logs: outcome.logs,
      durationMs: outcome.durationMs,
    },
    services.clock.now(),
  );
  return outcome;
}

function accepted<T>(outcome: InvokeOutcome, accept: (value: unknown) => T): InvokeOutcome<T> {
  if (!outcome.ok) return outcome;
  try {
    return { ...outcome, value: accept(outcome.value) };
  } catch (error) {
    if (!(error instanceof UnusableAnswer)) throw error;
    return { ok: false, code: 'INVALID_RESPONSE', message: error.message, appError: true, logs: outcome.logs, durationMs: outcome.durationMs };
  }
}

// ——— external runtime ———

const appKeys = new WeakMap<Services, Promise<SigningKeys>>();
/** Calls to external runtimes are signed with their own key (kept apart from the account-token key). */
export function appSigningKeys(services: Services): Promise<SigningKeys> {
  let keys = appKeys.get(services);
  if (!keys) {
    keys = loadSigningKeys(join(services.config.dataDir, 'apps'));
    appKeys.set(services, keys);
  }
  return keys;
}

/**
 * `x-svc-signature`: a compact JWS (EdDSA, keys at /.well-known/svc-apps-jwks.json) whose claims bind the
 * call to its receiver (`aud`), installation (`sub`), time (5 minutes) and exact body (`bodySha256`).
 */
async function signExternalCall(services: Services, url: string, installationId: string, body: string): Promise<string> {
  const keys = await appSigningKeys(services);
  const nowS = Math.floor(services.clock.now() / 1000);
  return new SignJWT({ bodySha256: createHash('sha256').update(body).digest('base64url') })
    .setProtectedHeader({ alg: 'EdDSA', kid: keys.kid, typ: 'svc-app-call+jwt' })
    .setIssuer(services.config.origin)
    .setAudience(url)
    .setSubject(installationId)
    .setJti(newSecret(12))
    .setIssuedAt(nowS)
    .setExpirationTime(nowS + 300)
    .sign(keys.privateKey);
}

/**
 * One call to a `runtime: external` app, through the same guarded client as sandbox `fetch`: only the
 * declared host, https and public addresses checked at connect time (webhook rules), no redirects.
 */
async function callExternal(
  services: Services,
  t: InvokeTarget,
  kind: InvocationKind,
  name: string,
  input: unknown,
  context: FunctionContext,
): Promise<InvokeOutcome> {
  const url = t.version.manifest.external!.url;
  const started = performance.now();
  const failure = (code: string, message: string): InvokeOutcome => ({
    ok: false,
    code,
    message,
    appError: true,
    logs: [],
    durationMs: Math.round(performance.now() - started),
  });
  const send = createGuardedFetch({
    hosts: [new URL(url).hostname],
    allowHosts: services.config.unsafeWebhookHosts,
    timeoutMs: EXTERNAL_DEADLINE_MS,
    // The answer wraps the result; a little room for `{"result":…}`.
    maxResponseBytes: RESULT_MAX_BYTES + 1024,
  });
  const body = JSON.stringify({ kind, name, input, context });
  let response;
  try {
    response = await send({
      url,
      method: 'POST',
      headers: [
        ['content-type', 'application/json'],
        ['x-svc-signature', await signExternalCall(services, url, t.installation.id, body)],
      ],
      body,
    });
  } catch (error) {
    if (!(error instanceof RuntimeCallbackError)) throw error;
    return failure(error.code === 'FETCH_BLOCKED' ? 'EXTERNAL_URL_BLOCKED' : 'EXTERNAL_CALL_FAILED', error.message);
  }
  let parsed: { result?: unknown; error?: { message?: string } };
  try {
    parsed = JSON.parse(response.body);
  } catch {
    return failure('APP_ERROR', `answer is not JSON (HTTP ${response.status})`);
  }
  if (response.status < 200 || response.status > 299) return failure('APP_ERROR', parsed.error?.message ?? `HTTP ${response.status}`);
  if (Buffer.byteLength(JSON.stringify(parsed.result ?? null)) > RESULT_MAX_BYTES) return failure('RESULT_TOO_LARGE', `result over ${RESULT_MAX_BYTES} bytes`);
  return { ok: true, value: parsed.result ?? null, logs: [], durationMs: Math.round(performance.now() - started) };
}
