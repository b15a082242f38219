// Who may call an operation: caller kinds, store roles, token scopes, a fresh login, the AI-agent policy
// (spec 01 §5.2, §5.6), and the 401 challenge that tells a client where to get a token.
import { protectedResourceMetadataUrl, type Principal } from '../kernel/identity.js';
import { roleAllows, tokenAllows } from '../kernel/scopes.js';
import { fail, type ApiError } from './errors.js';
import type { AgentPolicy, Ctx, Operation, RequestHooks, StoreContext } from './module.js';
import type { Services } from './services.js';

function callerKinds(p: Principal): string[] {
  if (p.kind !== 'login') return [p.kind];
  return p.storePlatform ? ['login', 'storePlatform'] : ['login'];
}

/**
 * Effective permission is the narrower of the store role and the token's scopes (spec 01 §5.2);
 * actions reserved to store-platform logins refuse other tokens with INSUFFICIENT_ROLE.
 */
export function authorize(services: Services, op: Operation, principal: Principal | null, store: StoreContext | null) {
  if (!principal) return;
  if (op.callers && !callerKinds(principal).some((k) => op.callers!.includes(k as never))) throw fail(403, 'INSUFFICIENT_ROLE');
  if (store) {
    if (op.roles && !op.roles.includes(store.role)) throw fail(403, 'INSUFFICIENT_ROLE');
    if (op.scope && !(roleAllows(store.role, op.scope) && tokenAllows(principal.scopes, op.scope))) throw fail(403, 'INSUFFICIENT_ROLE');
  } else if (op.scope && !principal.storePlatform && !tokenAllows(principal.scopes, op.scope)) {
    throw fail(403, 'INSUFFICIENT_SCOPE', { requiredScope: op.scope });
  }
  if (op.freshLoginSeconds !== undefined) {
    const oldest = services.clock.now() - op.freshLoginSeconds * 1000;
    if (principal.authTime === null || principal.authTime < oldest) throw fail(403, 'LOGIN_TOO_OLD', { maxAgeSeconds: op.freshLoginSeconds });
  }
}

export const APPROVAL_REASON = 'AI 에이전트의 이 작업은 상점 소유자 또는 관리자의 승인이 필요합니다.';

/** Spec 01 §5.6: denied operations fail here; approval-required ones report it (unless exempt). */
export async function agentNeedsApproval(services: Services, op: Operation, ctx: Ctx, storeNeverPublic: RequestHooks['storeNeverPublic']): Promise<boolean> {
  const policy: AgentPolicy = typeof op.agent === 'function' ? await op.agent(ctx) : (op.agent ?? 'direct');
  if (policy === 'denied') throw fail(403, 'AGENT_OPERATION_DENIED');
  if (policy !== 'approval') return false;
  return !(op.agentApprovalExemptWhilePrivate && ctx.store && (await storeNeverPublic(services, ctx.store.id)));
}

/**
 * `WWW-Authenticate` of a 401 (RFC 6750 §3): `error="invalid_token"` when a token was presented and
 * refused, no error code when none was sent (§3.1), and for account-token APIs the RFC 9728 §5.1
 * `resource_metadata` address that tells a client where to get a token.
 */
export function bearerChallenge(services: Services, op: Operation) {
  const { origin } = services.config;
  const metadata = op.auth === 'buyer' ? null : protectedResourceMetadataUrl(origin, op.path.startsWith('/v1/') ? '/v1' : '');
  const realm = op.auth === 'buyer' ? 'svc-storefront' : 'svc';
  return (err: ApiError, tokenPresented: boolean) => {
    const parts = [`realm="${realm}"`];
    if (tokenPresented) parts.push('error="invalid_token"', `error_description="${err.code}"`);
    if (metadata) parts.push(`resource_metadata="${metadata}"`);
    return `Bearer ${parts.join(', ')}`;
  };
}
