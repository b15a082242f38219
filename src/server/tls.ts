import { readFileSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import { createSecureContext, type SecureContext } from 'node:tls';
import { PARSER_HEAD_LIMIT } from './request-guard.js';

/** svc serve's own TLS: the service's certificate (its hosts, a wildcard for the sites domain) as PEM files. */
export interface TlsOptions {
  port: number;
  certFile: string;
  keyFile: string;
}

export type DomainCertificate = { chain: string; key: string; issuedAt: number };

/**
 * An HTTPS listener beside the HTTP one: connected custom domains get their own certificate by SNI (looked
 * up per handshake, so a certificate issued or renewed by any process is served at once), every other name
 * the service's certificate.
 */
export function createTlsServer(
  options: TlsOptions,
  onRequest: (req: IncomingMessage, res: ServerResponse) => void,
  lookup: () => ((hostname: string) => Promise<DomainCertificate | undefined>) | null,
): Server {
  const contexts = new Map<string, { issuedAt: number; context: SecureContext }>();
  return createServer(
    {
      maxHeaderSize: PARSER_HEAD_LIMIT,
      cert: readFileSync(options.certFile),
      key: readFileSync(options.keyFile),
      SNICallback(servername, done) {
        const hostname = servername.toLowerCase();
        void (async () => lookup()?.(hostname))()
          .then((certificate) => {
            if (!certificate) {
              contexts.delete(hostname);
              return done(null, undefined);
            }
            let cached = contexts.get(hostname);
            if (cached?.issuedAt !== certificate.issuedAt) {
              cached = { issuedAt: certificate.issuedAt, context: createSecureContext({ cert: certificate.chain, key: certificate.key }) };
              contexts.set(hostname, cached);
            }
            done(null, cached.context);
          })
          .catch((error: Error) => done(error));
      },
    },
    onRequest,
  );
}
