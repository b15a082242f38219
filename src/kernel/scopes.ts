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

/** What a person reads for each resource on the consent screen, grouped as a seller thinks of them. */
const SCOPE_GROUPS: { group: string; resources: Record<string, string> }[] = [
  { group: '상품', resources: { product: '상품·옵션·재고', category: '카테고리', flow: '주문 흐름' } },
  {
    group: '주문과 고객',
    resources: { order: '주문·결제', claim: '취소·반품·교환', customer: '구매자', inquiry: '상품 문의', review: '리뷰', promotion: '쿠폰·포인트·할인' },
  },
  { group: '상점 운영', resources: { store: '상점 설정', member: '멤버', storefront: '쇼핑몰 사이트', webhook: '웹훅' } },
  { group: '데이터', resources: { analytics: '방문 분석', audit: '감사 기록·API 로그', settlement: '정산·결제 내역' } },
];
const ACCOUNT_SCOPE_LABELS: Record<string, string> = { 'stores:read': '내가 속한 상점 목록 보기', 'member:delegate': '구매자 대신 로그인(위임)' };

/**
 * Requested scopes as the consent screen lists them: by group, one line per resource with the highest
 * level asked (`보기` or `보기·변경`; `rw` includes `r`), then account scopes. Unknown scopes never reach
 * here (the request is refused first).
 */
export function describeScopes(scopes: string[]): { group: string; items: string[] }[] {
  const level = (resource: string) => (scopes.includes(`${resource}:rw`) ? '보기·변경' : scopes.includes(`${resource}:r`) ? '보기' : null);
  const groups = SCOPE_GROUPS.map(({ group, resources }) => ({
    group,
    items: Object.entries(resources).flatMap(([resource, label]) => {
      const asked = level(resource);
      return asked ? [`${label} — ${asked}`] : [];
    }),
  }));
  const account = scopes.filter((s) => s in ACCOUNT_SCOPE_LABELS).map((s) => ACCOUNT_SCOPE_LABELS[s]!);
  return [...groups, { group: '계정', items: account }].filter((g) => g.items.length > 0);
}
