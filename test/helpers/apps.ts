import type { Api } from './service.js';
import { requiredFunctions, type Manifest } from '../../src/kernel/app-manifest.js';

export type ManifestInput = Partial<Manifest> & Record<string, unknown>;

let n = 0;
/** A unique handle per call, so tests in one service never collide. */
export const uniqueHandle = (base = 'app') => `${base}-${Date.now().toString(36)}${(n++).toString(36)}`;

/** A bundle defining every function the manifest needs; `code` is whatever the test runs. */
export function bundleFor(manifest: ManifestInput, code = 'var __app = {};', extra: string[] = []) {
  return { code, functions: [...requiredFunctions({ runtime: 'sandbox', scopes: [], ...manifest } as Manifest), ...extra] };
}

/** Registers the app when new, then uploads a version; returns the app id and the version number. */
export async function deploy(api: Api, manifest: ManifestInput, bundle: ReturnType<typeof bundleFor> & { adminPage?: string } = bundleFor(manifest)) {
  const found = await api('GET', '/v1/developer/apps', { storeId: null, query: { handle: String(manifest.handle) } });
  let appId: string = found.data?.contents?.[0]?.appId;
  if (!appId) {
    const created = await api('POST', '/v1/developer/apps', { storeId: null, body: { manifest } });
    if (created.status !== 201) throw new Error(`createApp: ${JSON.stringify(created.body)}`);
    appId = created.data.appId;
  }
  const version = await api('POST', `/v1/developer/apps/${appId}/versions`, { storeId: null, body: { manifest, bundle } });
  if (version.status !== 201) throw new Error(`createAppVersion: ${JSON.stringify(version.body)}`);
  return { appId, version: version.data.version as number };
}

export async function installApp(api: Api, handle: string) {
  const res = await api('POST', '/v1/apps/installations', { body: { handle } });
  if (res.status !== 201 && res.status !== 200) throw new Error(`installApp: ${JSON.stringify(res.body)}`);
  return res.data;
}
