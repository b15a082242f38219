import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Services } from '../../server/services.js';
import type { SecretFields } from './schema.js';

/**
 * Gateway secrets are stored AES-256-GCM encrypted with a key kept beside the database
 * (`payment-secrets.key`, mode 0600): a copied or leaked database file alone reveals no secret.
 * The row id is the additional data, so a ciphertext moved onto another row fails to open.
 */
const KEY_FILE = 'payment-secrets.key';
const keys = new WeakMap<Services, Buffer>();

function dataKey(services: Services): Buffer {
  let key = keys.get(services);
  if (key) return key;
  const file = join(services.config.dataDir, KEY_FILE);
  try {
    writeFileSync(file, randomBytes(32).toString('base64'), { flag: 'wx', mode: 0o600 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  key = Buffer.from(readFileSync(file, 'utf8').trim(), 'base64');
  if (key.length !== 32) throw new Error(`${file} does not hold a 32-byte key`);
  keys.set(services, key);
  return key;
}

export function sealSecrets(services: Services, rowId: string, fields: SecretFields): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey(services), iv).setAAD(Buffer.from(rowId));
  const body = Buffer.concat([cipher.update(JSON.stringify(fields), 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), body.toString('base64url')].join('.');
}

export function openSecrets(services: Services, rowId: string, sealed: string): SecretFields {
  const [version, iv, tag, body] = sealed.split('.');
  if (version !== 'v1') throw new Error(`unknown secret envelope ${version}`);
  const decipher = createDecipheriv('aes-256-gcm', dataKey(services), Buffer.from(iv, 'base64url'))
    .setAAD(Buffer.from(rowId))
    .setAuthTag(Buffer.from(tag, 'base64url'));
  return JSON.parse(Buffer.concat([decipher.update(Buffer.from(body, 'base64url')), decipher.final()]).toString('utf8'));
}

/** Only the first 4 characters of a secret are ever shown (spec 01 §5.5). */
export const maskSecret = (value: string) => `${value.slice(0, 4)}${'*'.repeat(8)}`;
