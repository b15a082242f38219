import { transaction } from '../../db/client.js';
import { ApiError } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import {
  createGuardedFetch,
  RuntimeCallbackError,
  RuntimeHost,
  type InvocationKind,
  type RuntimeCallbacks,
  type RuntimeErrorCode,
} from '../../runtime-host/index.js';
import type { FunctionContext, InvokeOutcome, InvokeTarget } from './invocation.js';
import { findInstallation } from './app-records.js';
import { deleteItem, listItems, readItem, storageKey, writeItem } from './storage.js';

/** Failures the app's own code causes; they count towards suspension. The rest are the platform's. */
const APP_FAULTS = new Set<RuntimeErrorCode>(['APP_ERROR', 'TIMEOUT', 'CPU_LIMIT', 'MEMORY_LIMIT', 'RESULT_TOO_LARGE', 'FETCH_BLOCKED', 'HANDLER_MISSING']);

const hosts = new WeakMap<Services, RuntimeHost>();

/** One runtime host (and so one worker process) per running service, started on the first call. */
function runtimeHost(services: Services): RuntimeHost {
  let host = hosts.get(services);
  if (!host) {
    host = new RuntimeHost({
      onCallbackError: (error, where) => console.error(`[svc] app ${where.op} callback failed (installation ${where.installationId}):`, error),
    });
    hosts.set(services, host);
  }
  return host;
}

export async function closeRuntime(services: Services) {
  await hosts.get(services)?.close();
  hosts.delete(services);
}

/** Uninstall: calls of the installation still queued or running fail at once. */
export function evictInstallation(services: Services, installationId: string) {
  hosts.get(services)?.evictInstallation(installationId);
}

/** ApiErrors of the storage rules reach the guest with their code and message (quota details included). */
function asGuestError(error: unknown): never {
  if (error instanceof ApiError)
    throw new RuntimeCallbackError(error.code, error.details ? `${error.message} ${JSON.stringify(error.details)}` : error.message);
  throw error;
}

/** What the guest's `fetch`, `storage` and `api` do for one installation. */
function callbacks(services: Services, t: InvokeTarget, token: string): RuntimeCallbacks {
  const installationId = t.installation.id;
  const live = async () => {
    if ((await findInstallation(services.db, installationId))?.status !== 'ACTIVE')
      throw new RuntimeCallbackError('INSTALLATION_ENDED', 'the app was uninstalled');
  };
  const key = (k: string) => {
    if (!storageKey.safeParse(k).success) throw new RuntimeCallbackError('VALIDATION_FAILED', 'storage keys are 1–200 characters without control characters');
    return k;
  };
  const { db } = services;
  return {
    fetch: createGuardedFetch({ hosts: t.version.manifest.network?.hosts ?? [], allowHosts: services.config.unsafeWebhookHosts }),
    storage: {
      async get(k) {
        await live();
        try {
          return (await readItem(db, installationId, key(k))).value;
        } catch (error) {
          if (error instanceof ApiError && error.code === 'APP_STORAGE_KEY_NOT_FOUND') return null;
          return asGuestError(error);
        }
      },
      async set(k, value) {
        await live();
        try {
          await transaction(services.db, () => writeItem(db, installationId, key(k), value, services.clock.now()));
        } catch (error) {
          asGuestError(error);
        }
      },
      async delete(k) {
        await live();
        try {
          await deleteItem(db, installationId, key(k));
          return true;
        } catch (error) {
          if (error instanceof ApiError && error.code === 'APP_STORAGE_KEY_NOT_FOUND') return false;
          return asGuestError(error);
        }
      },
      async list(options) {
        await live();
        return listItems(db, installationId, { prefix: options.prefix, cursor: options.cursor, limit: Math.min(Math.max(options.limit ?? 100, 1), 1000) });
      },
    },
    // The admin API as the installation: the server's own pipeline applies the consented scopes.
    async api(request) {
      // Checked after resolution: `/v1/../_dev/…` must not reach the dev helpers or the auth server.
      const url = new URL(request.path, services.config.origin);
      if (!request.path.startsWith('/') || url.origin !== new URL(services.config.origin).origin || !url.pathname.startsWith('/v1/')) {
        throw new RuntimeCallbackError('INVALID_REQUEST', 'api paths start with /v1/');
      }
      const response = await fetch(url, {
        method: request.method,
        headers: {
          authorization: `Bearer ${token}`,
          'x-store-id': t.installation.storeId,
          ...(request.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: request.body === undefined ? undefined : JSON.stringify(request.body),
      });
      return { status: response.status, body: await response.json().catch(() => null) };
    },
  };
}

/** Runs app code in the isolated-vm runtime worker (src/runtime-host). */
export async function runInSandbox(
  services: Services,
  t: InvokeTarget,
  kind: InvocationKind,
  name: string,
  input: unknown,
  context: FunctionContext,
): Promise<InvokeOutcome> {
  const result = await runtimeHost(services).invoke(
    {
      installationId: t.installation.id,
      appId: t.app.id,
      bundleId: t.version.id,
      bundleCode: t.version.bundle.code,
      sourceMap: t.version.bundle.map,
      kind,
      name,
      input,
      context,
    },
    callbacks(services, t, context.api.token),
  );
  const logs = result.logs.map((l) => `${l.level}: ${l.message}`);
  if (result.ok) return { ok: true, value: result.result, logs, durationMs: result.durationMs } satisfies InvokeOutcome;
  const { code, message, stack } = result.error;
  return { ok: false, code, message, appError: APP_FAULTS.has(code), logs: stack ? [...logs, `error: ${stack}`] : logs, durationMs: result.durationMs };
}
