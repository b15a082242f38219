import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const DEFAULT_API_URL = 'http://127.0.0.1:8787';
export const DEFAULT_PROFILE = 'default';

export interface Profile {
  /** The service root, e.g. http://127.0.0.1:8787 or https://api.example.com. */
  apiUrl: string;
  /** Store used when neither --store nor SVC_STORE_ID is given. */
  storeId?: string;
}

/**
 * A saved credential and the service it belongs to (`apiUrl`): it is sent to that service only, so another
 * server can neither see it nor cause it to be dropped. Credentials saved before the binding have no
 * `apiUrl` and belong to their profile's address.
 */
export type Credential =
  | { kind: 'login'; accessToken: string; refreshToken: string; expiresAt: number; clientId: string; apiUrl?: string }
  | { kind: 'token'; token: string; apiUrl?: string };

interface ConfigFile {
  currentProfile: string;
  profiles: Record<string, Profile>;
}

/** The user config dir (SVC_CONFIG_DIR, else $XDG_CONFIG_HOME/svc, else ~/.config/svc). */
export function configDir(): string {
  return process.env.SVC_CONFIG_DIR ?? join(process.env.XDG_CONFIG_HOME ?? join(homedir(), '.config'), 'svc');
}

/** A service address as compared: origin and path, without a trailing slash (`HTTP://Host:80/` is `http://host`). */
export function serviceAddress(url: string): string {
  try {
    const u = new URL(url);
    return `${u.origin}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    return url.replace(/\/+$/, '');
  }
}

export const sameService = (a: string, b: string) => serviceAddress(a) === serviceAddress(b);

function readJson<T>(file: string, fallback: T): T {
  if (!existsSync(file)) return fallback;
  return JSON.parse(readFileSync(file, 'utf8')) as T;
}

/** Written with mode 0600 (chmod too, for files that existed with a looser mode). */
function writePrivateJson(file: string, value: unknown) {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
}

const configFile = () => join(configDir(), 'config.json');
const credentialsFile = () => join(configDir(), 'credentials.json');

export function readConfig(): ConfigFile {
  const config = readJson<ConfigFile>(configFile(), { currentProfile: DEFAULT_PROFILE, profiles: {} });
  config.profiles[DEFAULT_PROFILE] ??= { apiUrl: DEFAULT_API_URL };
  return config;
}

export function writeConfig(config: ConfigFile) {
  writePrivateJson(configFile(), config);
}

export function readCredential(profile: string): Credential | undefined {
  return readJson<Record<string, Credential>>(credentialsFile(), {})[profile];
}

export function writeCredential(profile: string, credential: Credential | undefined) {
  const all = readJson<Record<string, Credential>>(credentialsFile(), {});
  if (credential) all[profile] = credential;
  else delete all[profile];
  writePrivateJson(credentialsFile(), all);
}

const LOCK_STALE_MS = 10_000;

/** Runs `fn` holding the credentials lock file (created exclusively; a lock older than 10 s is taken as abandoned). */
export async function withCredentialLock<T>(fn: () => Promise<T>): Promise<T> {
  mkdirSync(configDir(), { recursive: true, mode: 0o700 });
  const lock = join(configDir(), 'credentials.lock');
  for (;;) {
    try {
      closeSync(openSync(lock, 'wx', 0o600));
      break;
    } catch {
      try {
        if (Date.now() - statSync(lock).mtimeMs > LOCK_STALE_MS) rmSync(lock, { force: true });
      } catch {
        // The holder just released it: try again.
      }
      await sleep(25);
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { force: true });
  }
}

const listenSecretsFile = () => join(configDir(), 'listen-secrets.json');

/**
 * The signing secret `svc webhooks listen` forwards with, one per profile and store, kept across starts (as
 * `stripe listen` keeps its own) so a local receiver configured with it keeps verifying after a restart.
 * `make` is called the first time; the file is private like the credentials.
 */
export async function listenSecret(profile: string, store: string, make: () => string): Promise<string> {
  return withCredentialLock(async () => {
    const all = readJson<Record<string, string>>(listenSecretsFile(), {});
    const key = `${profile} ${store}`;
    if (!all[key]) {
      all[key] = make();
      writePrivateJson(listenSecretsFile(), all);
    }
    return all[key];
  });
}
