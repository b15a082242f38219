/**
 * Makes dependency-cruiser load ./typescript-via-esbuild.mjs as `typescript` (see there why). Load it before
 * dependency-cruiser: `node --import ./scripts/boundaries/register.mjs node_modules/.bin/depcruise …`.
 */
import { registerHooks } from 'node:module';

const standIn = new URL('./typescript-via-esbuild.mjs', import.meta.url).href;
const manifest = new URL('./typescript-version.json', import.meta.url).href;

registerHooks({
  resolve(specifier, context, nextResolve) {
    if (context.parentURL?.includes('/node_modules/dependency-cruiser/')) {
      if (specifier === 'typescript') return { url: standIn, format: 'module', shortCircuit: true };
      if (specifier === 'typescript/package.json') return { url: manifest, format: 'json', shortCircuit: true };
    }
    return nextResolve(specifier, context);
  },
});
