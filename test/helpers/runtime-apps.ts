import { buildSync } from 'esbuild';
import type { InvokeRequest } from '../../src/runtime-host/index.js';

/** Bundles app source the way `svc app build` does (runtime/README.md): one IIFE exposing `__app`. */
export function bundle(source: string): { code: string; map: string } {
  const out = buildSync({
    stdin: { contents: source, loader: 'ts', sourcefile: 'src/app.ts' },
    bundle: true,
    format: 'iife',
    globalName: '__app',
    platform: 'neutral',
    target: 'es2023',
    sourcemap: 'external',
    outfile: 'bundle.js',
    write: false,
    logLevel: 'silent',
  });
  const file = (suffix: string) => new TextDecoder().decode(out.outputFiles.find((f) => f.path.endsWith(suffix))!.contents);
  return { code: file('bundle.js'), map: file('bundle.js.map') };
}

let n = 0;
/** A tool call request for a one-off app whose `tools` are the given source. */
export function toolCall(source: string, name: string, input: unknown = {}, extra: Partial<InvokeRequest> = {}): InvokeRequest {
  const { code, map } = bundle(source);
  n += 1;
  return {
    installationId: `inst_${n}`,
    appId: `app_${n}`,
    bundleId: `bundle_${n}`,
    bundleCode: code,
    sourceMap: map,
    kind: 'tool',
    name,
    input,
    context: { storeId: 'store_1' },
    ...extra,
  };
}
