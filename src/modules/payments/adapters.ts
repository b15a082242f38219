import { eq } from 'drizzle-orm';
import { fail } from '../../server/errors.js';
import type { Services } from '../../server/services.js';
import { requireOwned } from '../../server/tenancy.js';
import { openSecrets } from './crypto.js';
import type { Gateway, Pg } from './gateway.js';
import { liveApi, type VerifyResult } from './live.js';
import { liveCashReceipts } from './live-cash-receipts.js';
import { recordProviderFailure } from './records.js';
import { environmentOf, storeRouting, type CredentialRow, type ProviderRow } from './routing.js';
import { sandboxGateway, verifySandboxKeys } from './sandbox-gateways.js';
import { paymentCredentials } from './schema.js';

const unavailable = (details: Record<string, unknown>) => fail(503, 'PAYMENT_PROVIDER_UNAVAILABLE', { optionUnavailable: true, ...details });

export const credentialSecrets = (services: Services, credential: CredentialRow) => openSecrets(services, credential.id, credential.secrets);

/**
 * The gateway of one key set: test keys → sandbox simulator, live keys → the live server API. `provider` is
 * the provider row as the routing read it (the sandbox records its first success against it).
 */
function gatewayOf(services: Services, storeId: string, pg: Pg, credential: CredentialRow, provider?: ProviderRow | null): Gateway {
  if (credential.environment === 'TEST') return sandboxGateway(services, storeId, pg, credential, provider);
  const secrets = credentialSecrets(services, credential);
  const api = liveApi(pg, credential.publicConfig, secrets);
  return {
    ...liveCashReceipts(pg, credential.publicConfig, secrets),
    pg,
    sandbox: false,
    credentialId: credential.id,
    async prepareWindow(input) {
      const client = api.windowParams(input);
      if (!client) {
        await recordProviderFailure(services, storeId, { pg, method: input.method, easyPayProvider: input.provider, code: 'NO_CHANNEL_FOR_METHOD' });
        throw unavailable({ pg, method: input.method, reason: 'NO_CHANNEL_FOR_METHOD' });
      }
      return { pgPaymentKey: api.paymentKeyFor(input), sandbox: false, credentialId: credential.id, client };
    },
    async confirm(input) {
      const result = await api.confirm(input);
      if (result.failure?.optionUnavailable) {
        await recordProviderFailure(services, storeId, { pg, method: input.method, easyPayProvider: input.provider, code: result.failure.code });
      }
      return result;
    },
    cancel: (input) => api.cancel(input),
    lookup: (input) => api.lookup(input),
  };
}

/**
 * The gateway for new payments (the key set in use), or — with `credentialId` — the key set a payment
 * was made with, even archived since, for its confirm, cancels and look-ups (spec 01 §5.5).
 */
export async function gatewayFor(services: Services, storeId: string, pg: Pg, options: { credentialId?: string } = {}): Promise<Gateway> {
  const { db } = services;
  // The provider row and its active key sets come from the cached routing (no query on the payment path).
  const state = (await storeRouting(db, storeId)).providers.find((p) => p.provider === pg)!;
  if (options.credentialId) {
    const active = Object.values(state.credentials).find((c) => c.id === options.credentialId);
    if (active) return gatewayOf(services, storeId, pg, active, state.row);
    const credential = requireOwned(
      await db.select().from(paymentCredentials).where(eq(paymentCredentials.id, options.credentialId)).get(),
      storeId,
      'PAYMENT_CREDENTIAL_NOT_FOUND',
    );
    if (credential.provider !== pg) throw fail(404, 'PAYMENT_CREDENTIAL_NOT_FOUND');
    const gateway = gatewayOf(services, storeId, pg, credential);
    if (credential.status === 'ACTIVE') return gateway;
    // Archived keys serve only the payments already made with them: no new window (spec 01 §5.5).
    return {
      ...gateway,
      prepareWindow: async () => {
        throw unavailable({ pg, reason: 'CREDENTIAL_ARCHIVED' });
      },
    };
  }
  if (!state.row) throw unavailable({ pg, reason: 'NOT_CONNECTED' });
  const credential = state.credentials[environmentOf(state.row)];
  if (!credential) throw unavailable({ pg, reason: 'CREDENTIAL_MISSING' });
  return gatewayOf(services, storeId, pg, credential, state.row);
}

/** Connection check of one key set: the simulator for test keys, the gateway itself for live keys. */
export async function verifyKeys(
  services: Services,
  pg: Pg,
  credential: Pick<CredentialRow, 'environment' | 'publicConfig'>,
  secrets: Record<string, string>,
): Promise<VerifyResult> {
  if (credential.environment === 'TEST') return verifySandboxKeys(secrets);
  return liveApi(pg, credential.publicConfig, secrets).verify();
}
