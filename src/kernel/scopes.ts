import type { Role } from './identity.js';

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

export function isKnownScope(scope: string): boolean {
  return ALL_SCOPES.includes(scope);
}

/** Every scope each role reaches (`rw` includes `r`), worked out once: checked on every request. */
const scopesOf = (role: Role): ReadonlySet<string> =>
  new Set(
    Object.entries(ROLE_LEVELS).flatMap(([resource, levels]) =>
      levels[role] === 'rw' ? [`${resource}:r`, `${resource}:rw`] : levels[role] === 'r' ? [`${resource}:r`] : [],
    ),
  );
const ROLE_SCOPES: Record<Role, ReadonlySet<string>> = { OWNER: scopesOf('OWNER'), ADMIN: scopesOf('ADMIN'), STAFF: scopesOf('STAFF') };

export function roleAllows(role: Role, scope: string): boolean {
  return ROLE_SCOPES[role].has(scope);
}

/** `granted` null means every scope (first-party logins); a granted `x:rw` covers `x:r`. */
export function tokenAllows(granted: ReadonlySet<string> | null, scope: string): boolean {
  return granted === null || granted.has(scope) || (scope.endsWith(':r') && granted.has(`${scope}w`));
}
