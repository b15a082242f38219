/** OAuth clients the authorization server knows. Public clients only: PKCE (S256) replaces a secret. */
export interface OAuthClient {
  clientId: string;
  name: string;
  /** The service's own clients: their logins carry every scope the user's role allows. */
  firstParty: boolean;
  /** Logins of this client are AI-agent connections (spec 01 §5.6). */
  agent: boolean;
  allowsRedirect(uri: string): boolean;
}

/**
 * RFC 8252 §7.3: native apps listen on a loopback port chosen at run time, so any port is accepted — but
 * only the registered path, and no query or fragment.
 */
function loopbackRedirect(path: string) {
  return (uri: string): boolean => {
    try {
      const url = new URL(uri);
      const loopback = url.hostname === '127.0.0.1' || url.hostname === '[::1]' || url.hostname === 'localhost';
      return url.protocol === 'http:' && loopback && url.pathname === path && url.search === '' && !uri.includes('#') && url.username === '' && url.password === '';
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

export function findClient(clientId: string): OAuthClient | undefined {
  return clients.find((c) => c.clientId === clientId);
}
