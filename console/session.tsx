/** Who is signed in, in which store, with which role and scopes: what every screen may show. */
import { createContext, useContext } from 'react';

export type Role = 'OWNER' | 'ADMIN' | 'STAFF' | string;

export interface Me {
  userId: string;
  email: string;
  name: string;
  token: { scopes: string[] | null; clientId: string | null };
}

export interface StoreMembership {
  storeId: string;
  code: string;
  name: string;
  role: Role;
}

export interface Session {
  me: Me;
  stores: StoreMembership[];
  store: StoreMembership;
  setStore(storeId: string): void;
  /** Whether the token carries `scope` (`x:rw` also grants `x:r`) and, when given, the role is one of `roles`. */
  can(scope: string | null, roles?: Role[]): boolean;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside the signed-in shell');
  return session;
}

export function canWith(me: Me, role: Role, scope: string | null, roles?: Role[]): boolean {
  if (roles && !roles.includes(role)) return false;
  if (scope === null || me.token.scopes === null) return true;
  const scopes = me.token.scopes;
  return scopes.includes(scope) || (scope.endsWith(':r') && scopes.includes(`${scope.slice(0, -2)}:rw`));
}
