import { eq } from 'drizzle-orm';
import type { Db } from '../../db/client.js';
import { oauthClients } from './schema.js';

/** OAuth clients the authorization server knows. Public clients only: PKCE (S256) replaces a secret. */
export interface OAuthClient {
  clientId: string;
  name: string;
  /** The service's own clients: their logins carry every scope the user's role allows. */
  firstParty: boolean;
  /** Logins of this client are AI-agent connections (spec 01 §5.6). */
  agent: boolean;
  /** `origin` is the service's own (its public URL): a client served by the service itself redirects there. */
  allowsRedirect(uri: string, origin: string): boolean;
}

/**
 * RFC 8252 §7.3: native apps listen on a loopback port chosen at run time, so any port is accepted — but
 * only the registered path, and no query or fragment.
 */
function loopbackRedirect(path: string) {
  return (uri: string): boolean => {
    try {
      const url = new URL(uri);
      const loopback = isLoopbackHost(url.hostname);
      return (
        url.protocol === 'http:' && loopback && url.pathname === path && url.search === '' && !uri.includes('#') && url.username === '' && url.password === ''
      );
    } catch {
      return false;
    }
  };
}

const isLoopbackRedirect = loopbackRedirect('/callback');

export const STORE_PLATFORM_CLIENT = 'svc-store-platform';
export const CLI_CLIENT = 'svc-cli';

const clients: OAuthClient[] = [
  { clientId: STORE_PLATFORM_CLIENT, name: 'svc 상점 플랫폼', firstParty: true, agent: false, allowsRedirect: isLoopbackRedirect },
  { clientId: CLI_CLIENT, name: 'svc CLI', firstParty: true, agent: false, allowsRedirect: isLoopbackRedirect },
  { clientId: 'svc-mcp', name: 'svc 원격 MCP', firstParty: false, agent: true, allowsRedirect: isLoopbackRedirect },
];

/**
 * A first-party client that the composition root adds (a screen the service serves itself): a public client
 * (PKCE) whose only redirect address is `redirectPath` on the service's own origin.
 */
export function registerFirstPartyClient(client: { clientId: string; name: string; redirectPath: string }) {
  if (clients.some((c) => c.clientId === client.clientId)) return;
  clients.push({
    clientId: client.clientId,
    name: client.name,
    firstParty: true,
    agent: false,
    allowsRedirect: (uri, origin) => uri === `${origin}${client.redirectPath}`,
  });
}

/** Registered clients start with this prefix, so the built-in ones are found without a database read. */
export const REGISTERED_CLIENT_PREFIX = 'mcpc_';

export async function findClient(db: Db, clientId: string): Promise<OAuthClient | undefined> {
  if (!clientId.startsWith(REGISTERED_CLIENT_PREFIX)) return clients.find((c) => c.clientId === clientId);
  const row = await db.select().from(oauthClients).where(eq(oauthClients.id, clientId)).get();
  if (!row) return undefined;
  return { clientId: row.id, name: row.name, firstParty: false, agent: true, allowsRedirect: registeredRedirect(row.redirectUris) };
}

/**
 * A registered client's redirect address must be one it registered, exactly — except a loopback one's port,
 * which native apps pick at run time (RFC 8252 §7.3).
 */
function registeredRedirect(registered: string[]) {
  return (uri: string): boolean =>
    registered.some((r) => {
      if (r === uri) return true;
      try {
        const [a, b] = [new URL(r), new URL(uri)];
        return (
          a.protocol === 'http:' &&
          isLoopbackHost(a.hostname) &&
          b.protocol === 'http:' &&
          a.hostname === b.hostname &&
          a.pathname === b.pathname &&
          a.search === b.search &&
          !uri.includes('#')
        );
      } catch {
        return false;
      }
    });
}

export const isLoopbackHost = (host: string) => host === '127.0.0.1' || host === '[::1]' || host === 'localhost';

/**
 * Native MCP clients whose own scheme predates RFC 8252's reverse-domain rule, each known by name (Cursor
 * registers `cursor://anysphere.cursor-retrieval/oauth/callback`).
 */
const NAMED_APP_SCHEMES = new Set(['cursor:']);

/**
 * Redirect addresses a client may register: https, loopback http (RFC 8252 §7.3) or a native app's
 * private-use scheme, which RFC 8252 §7.1 names by reverse domain (`com.example.app:/cb`). Only these are
 * allowed, not all but a list: any other scheme may be a browser's own (`view-source:`, `chrome:`,
 * `about:`) or run code (`javascript:`, `data:`). Never a fragment or user info.
 */
export function registrableRedirect(uri: string): boolean {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return false;
  }
  if (uri.includes('#') || url.username || url.password) return false;
  if (url.protocol === 'https:') return true;
  if (url.protocol === 'http:') return isLoopbackHost(url.hostname);
  return /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/.test(url.protocol) || NAMED_APP_SCHEMES.has(url.protocol);
}
