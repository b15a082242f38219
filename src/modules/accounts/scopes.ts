import type { Role } from '../stores/schema.js';

/** Role permissions of spec 01 §5.2, as the highest level each role reaches per resource. */
const ROLE_LEVELS: Record<string, Record<Role, 'rw' | 'r' | null>> = {
  product: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'rw' },
  category: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'rw' },
  order: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'rw' },
  claim: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'rw' },
  inquiry: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'rw' },
  review: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'rw' },
  customer: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'r' },
  promotion: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'r' },
  webhook: { OWNER: 'rw', ADMIN: 'rw', STAFF: null },
  store: { OWNER: 'rw', ADMIN: 'rw', STAFF: null },
  member: { OWNER: 'rw', ADMIN: 'rw', STAFF: null },
  storefront: { OWNER: 'rw', ADMIN: 'rw', STAFF: null },
  // flow: named outside the table; treated like the catalog it drives (decisions.md).
  flow: { OWNER: 'rw', ADMIN: 'rw', STAFF: 'r' },
  analytics: { OWNER: 'r', ADMIN: 'r', STAFF: null },
  audit: { OWNER: 'r', ADMIN: 'r', STAFF: null },
  settlement: { OWNER: 'r', ADMIN: null, STAFF: null },
};

export const ACCOUNT_SCOPES = ['stores:read', 'member:delegate'] as const;

/** Every scope a token may be given: resource scopes at their possible levels, then account scopes. */
export const ALL_SCOPES: string[] = [
  ...Object.entries(ROLE_LEVELS).flatMap(([resource, levels]) =>
    Object.values(levels).includes('rw') ? [`${resource}:r`, `${resource}:rw`] : [`${resource}:r`],
  ),
  ...ACCOUNT_SCOPES,
];

const SCOPE_PATTERN = /^([a-z]+):(r|rw)$/;

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/** `rw` includes `r`. */
function levelCovers(granted: 'r' | 'rw' | null | undefined, needed: string): boolean {
  return granted === 'rw' || (granted === 'r' && needed === 'r');
}

export function roleAllows(role: Role, scope: string): boolean {
  const m = SCOPE_PATTERN.exec(scope);
  if (!m) return false;
  return levelCovers(ROLE_LEVELS[m[1]]?.[role], m[2]);
}

/** `granted` null means every scope (first-party logins). */
export function tokenAllows(granted: ReadonlySet<string> | null, scope: string): boolean {
  if (granted === null) return true;
  if (granted.has(scope)) return true;
  const m = SCOPE_PATTERN.exec(scope);
  return m !== null && m[2] === 'r' && granted.has(`${m[1]}:rw`);
}
