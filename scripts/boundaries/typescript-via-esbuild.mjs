/**
 * Stands in for the `typescript` package inside dependency-cruiser: the project's TypeScript 7 is the native
 * compiler with no JavaScript API, which dependency-cruiser 18 cannot load (it supports TypeScript < 7). Its
 * acorn parser reads what `transpileModule` returns, so esbuild strips the types here instead.
 *
 * Type-only imports are architecture too (the kernel importing a module's `Principal` type is a dependency),
 * so they are turned into plain imports first and kept by `verbatimModuleSyntax`.
 */
import { transformSync } from 'esbuild';

export const version = '5.9.3';

/** Read when dependency-cruiser loads its TypeScript-AST extractor, which stays unused (`tsPreCompilationDeps: false`). */
export const SyntaxKind = {};

const TYPE_ONLY_IMPORT = /\b(import|export)\s+type\s+(?=[{*]|[\w$]+\s+from\b|[\w$]+\s*,)/g;

export function transpileModule(source, { fileName } = {}) {
  const valueImports = source.replace(TYPE_ONLY_IMPORT, '$1 ');
  const { code } = transformSync(valueImports, {
    loader: fileName?.endsWith('x') ? 'tsx' : 'ts',
    format: 'esm',
    sourcefile: fileName,
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true } },
  });
  return { outputText: code };
}

export default { version, SyntaxKind, transpileModule };
