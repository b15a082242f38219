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
 * An agent's write that always waits for approval (spec 01 §5.6, e.g. cash receipt reissue) may ask for a
 * store-platform-only operation: it runs only once a person approves it, and approval decisions are
 * store-platform OWNER/ADMIN logins (the approver is authorized for the operation too), so that person
 * stands in for the login. Role and scope still apply to the agent; nothing it sends runs directly.
 */
const heldForPlatformApprover = (op: Operation, principal: Principal) => principal.agent && op.agent === 'approval' && !op.agentApprovalExemptWhilePrivate;

/**
 * Effective permission is the narrower of the store role and the token's scopes (spec 01 §5.2);
 * actions reserved to store-platform logins refuse other tokens with INSUFFICIENT_ROLE. Its `details` say
 * what was short, so a person knows whom to ask or which token to make: the caller kind, the role, or the
 * scope (with the role when no token of this person could have it, else the token's scopes).
 */
export function authorize(services: Services, op: Operation, principal: Principal | null, store: StoreContext | null) {
  if (!principal) return;
  const kinds = callerKinds(principal);
  if (op.callers && !heldForPlatformApprover(op, principal) && !kinds.some((k) => op.callers!.includes(k as never)))
    throw fail(403, 'INSUFFICIENT_ROLE', { requiredCaller: op.callers, actualCaller: kinds.at(-1) });
  const scopes = op.scope ? [op.scope, ...(op.alsoScope ? [op.alsoScope] : [])] : [];
  if (store) {
    if (op.roles && !op.roles.includes(store.role)) throw fail(403, 'INSUFFICIENT_ROLE', { requiredRole: op.roles, actualRole: store.role });
    if (op.scope && !scopes.some((scope) => roleAllows(store.role, scope) && tokenAllows(principal.scopes, scope))) {
      const roleShort = !scopes.some((scope) => roleAllows(store.role, scope));
      throw fail(
        403,
        'INSUFFICIENT_ROLE',
        roleShort ? { requiredScope: op.scope, actualRole: store.role } : { requiredScope: op.scope, tokenScopes: [...(principal.scopes ?? [])].sort() },
      );
    }
  } else if (op.scope && !principal.storePlatform && !scopes.some((scope) => tokenAllows(principal.scopes, scope))) {
    throw fail(403, 'INSUFFICIENT_SCOPE', { requiredScope: op.scope });
  }
  if (op.freshLoginSeconds !== undefined) {
    const oldest = services.clock.now() - op.freshLoginSeconds * 1000;
    if (principal.authTime === null || principal.authTime < oldest) throw fail(403, 'LOGIN_TOO_OLD', { maxAgeSeconds: op.freshLoginSeconds });
  }
}

export const APPROVAL_REASON = 'AI 에이전트의 이 작업은 상점 소유자 또는 관리자의 승인이 필요합니다.';

/** What a dry run reports an agent's write would meet (spec 01 §5.6). */
export type AgentDecision = 'ALLOW' | 'APPROVAL_REQUIRED' | 'DENIED';

/** The refusal a denied agent write gets: the operation's own code where the spec names one (buyer delegation). */
export const agentDenied = (op: Operation) => fail(403, op.agentDeniedCode ?? 'AGENT_OPERATION_DENIED');

/** Why a dry run's decision is what it is: the message of the real call's refusal, or of the approval hold. */
export function decisionReason(op: Operation, decision: AgentDecision): string | null {
  if (decision === 'APPROVAL_REQUIRED') return APPROVAL_REASON;
  return decision === 'DENIED' ? agentDenied(op).message : null;
}

/** Spec 01 §5.6: denied, approval required (unless the store is exempt while private) or allowed. */
export async function agentDecision(services: Services, op: Operation, ctx: Ctx, storeNeverPublic: RequestHooks['storeNeverPublic']): Promise<AgentDecision> {
  const policy: AgentPolicy = typeof op.agent === 'function' ? await op.agent(ctx) : (op.agent ?? 'direct');
  if (policy === 'denied') return 'DENIED';
  if (policy !== 'approval') return 'ALLOW';
  return op.agentApprovalExemptWhilePrivate && ctx.store && (await storeNeverPublic(services, ctx.store.id)) ? 'ALLOW' : 'APPROVAL_REQUIRED';
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
