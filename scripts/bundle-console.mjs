// Builds the console (console/, issue 33) into dist/console after the CLI bundle (npm run build): ES modules
// split by route (each page a chunk loaded on first visit, the graph and chart libraries only on theirs),
// every file named by its content hash under dist/console/assets, and an index.html that loads the entry and
// the stylesheet by their hashed names (no inline script: the console's CSP allows none). The service reads
// the folder once at start (src/server/console.ts).
import { build } from 'esbuild';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { basename, join } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const outdir = join(root, 'dist', 'console');
const started = performance.now();

const result = await build({
  absWorkingDir: root,
  entryPoints: { main: 'console/main.tsx', style: 'console/style.css' },
  outdir: join(outdir, 'assets'),
  entryNames: '[name]-[hash]',
  chunkNames: 'chunk-[hash]',
  assetNames: '[name]-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'browser',
  target: ['chrome120', 'firefox120', 'safari17'],
  jsx: 'automatic',
  minify: true,
  define: { 'process.env.NODE_ENV': '"production"' },
  loader: { '.svg': 'file' },
  metafile: true,
  write: false,
  logLevel: 'warning',
});

rmSync(outdir, { recursive: true, force: true });
mkdirSync(join(outdir, 'assets'), { recursive: true });
const named = (prefix, ext) => basename(result.outputFiles.find((f) => basename(f.path).startsWith(prefix) && f.path.endsWith(ext)).path);
let entryGzip = 0;
for (const file of result.outputFiles) {
  writeFileSync(file.path, file.contents);
  if (basename(file.path).startsWith('main-') && file.path.endsWith('.js')) entryGzip += gzipSync(file.contents).length;
}
// What the first page loads besides the entry: its static imports (the shared chunks).
const entryOutput = Object.entries(result.metafile.outputs).find(([path]) => basename(path) === named('main-', '.js'))[1];
for (const imported of entryOutput.imports.filter((i) => i.kind === 'import-statement')) {
  entryGzip += gzipSync(result.outputFiles.find((f) => f.path.endsWith(basename(imported.path))).contents).length;
}
const html = `<!doctype html>
<html lang="ko">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>svc 콘솔</title>
<link rel="stylesheet" href="/_svc/fonts/noto-sans-kr/index.css">
<link rel="stylesheet" href="/console/assets/${named('style-', '.css')}">
<script type="module" src="/console/assets/${named('main-', '.js')}"></script>
</head>
<body>
<div id="root"><p class="boot">콘솔을 불러오는 중…</p></div>
</body>
</html>
`;
writeFileSync(join(outdir, 'index.html'), html);
writeFileSync(join(outdir, 'meta.json'), JSON.stringify({ firstPageJsGzipBytes: entryGzip, metafile: result.metafile }));
console.log(
  `dist/console: the console built in ${Math.round(performance.now() - started)} ms (first page JavaScript ${(entryGzip / 1024).toFixed(1)} KB gzip)`,
);
