import { hkdfSync } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import { newSecret } from '../../db/ids.js';
import type { SigningKeys } from '../../kernel/identity.js';

const ALG = 'EdDSA';

/**
 * The Ed25519 key that signs every account token. Made on first start and kept in the data dir
 * (mode 0600), so tokens survive restarts; a new data dir means new keys and fresh logins.
 */
export async function loadSigningKeys(dataDir: string): Promise<SigningKeys> {
  const dir = join(dataDir, 'keys');
  const file = join(dir, 'signing.json');
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    const { privateKey } = await generateKeyPair(ALG, { crv: 'Ed25519', extractable: true });
    const jwk = { ...(await exportJWK(privateKey)), kid: newSecret(8), alg: ALG };
    // Several processes may share the data dir (svc serve on PostgreSQL): the first key written is everyone's.
    try {
      writeFileSync(file, JSON.stringify(jwk), { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  const jwk = JSON.parse(readFileSync(file, 'utf8')) as JWK & { kid: string };
  const { d: _private, ...publicJwk } = jwk;
  return {
    kid: jwk.kid,
    privateKey: (await importJWK(jwk, ALG)) as CryptoKey,
    publicKey: (await importJWK(publicJwk, ALG)) as CryptoKey,
    publicJwk: { ...publicJwk, use: 'sig' },
    formKey: Buffer.from(hkdfSync('sha256', Buffer.from(jwk.d!, 'base64url'), Buffer.alloc(0), 'svc page form tokens', 32)),
  };
}
