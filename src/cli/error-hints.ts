/**
 * What to do next after an API error, in the CLI's language. The CLI speaks English (its help, flags and its
 * own lines); an error's `message` is the service's, Korean as the spec's API speaks, and is printed as it
 * came after its code, so the code is what a person searches for and this line is what they do. This file is
 * where that choice lives: codes without a hint here print none.
 */
export interface ErrorForHint {
  code: string;
  details?: Record<string, unknown> | null;
  docs?: string | null;
}

export interface HintContext {
  profile: string;
  /** The store as the command named it, if it did. */
  store: string | undefined;
}

const list = (value: unknown) => (Array.isArray(value) ? value.join(' or ') : String(value));

const HINTS: Record<string, (details: Record<string, unknown>, ctx: HintContext) => string | null> = {
  UNAUTHORIZED: (_d, { profile }) => `log in again (svc login --profile ${profile}) or set SVC_TOKEN to a valid access token`,
  TOKEN_REVOKED: (_d, { profile }) => `this token was revoked: log in again (svc login --profile ${profile}) or make a new one (svc tokens create)`,
  INSUFFICIENT_ROLE: (d) => {
    if (d.requiredCaller) return 'this action needs a store-platform login, not an access token: svc login, then run it without SVC_TOKEN';
    if (d.requiredRole) return `this action needs the role ${list(d.requiredRole)} (you are ${String(d.actualRole)}): ask the store's OWNER`;
    if (d.requiredScope && d.actualRole)
      return `your role ${String(d.actualRole)} does not reach ${String(d.requiredScope)}: ask the store's OWNER for a role that has it`;
    if (d.requiredScope) return `use a token with the scope ${String(d.requiredScope)}: svc tokens create --scopes ${String(d.requiredScope)},…`;
    return null;
  },
  INSUFFICIENT_SCOPE: (d) => `use a token with the scope ${String(d.requiredScope ?? '')}: svc tokens create --scopes ${String(d.requiredScope ?? '…')},…`,
  LOGIN_TOO_OLD: (_d, { profile }) => `this needs a recent login: svc login --profile ${profile}, then try again`,
  NOT_A_MEMBER: () => 'you are not a member of that store: pick one of yours (svc stores list) or ask its OWNER to invite you',
  STORE_NOT_GRANTED: () => "that store is outside this token's store scope: use a token made for it (svc tokens create --stores …)",
  STORE_NOT_FOUND: (_d, { store }) => `no such store${store ? ` "${store}"` : ''} among the stores this token works in (svc stores list)`,
  VALIDATION_FAILED: () => 'fix the fields listed above and run it again',
};

/** The "next:" line for an error, or null where there is nothing better than the error's docs link. */
export function nextStep(error: ErrorForHint, ctx: HintContext): string | null {
  return HINTS[error.code]?.(error.details ?? {}, ctx) ?? (error.docs ? `see ${error.docs}` : null);
}
