// Lists promise uses that are likely bugs after the async conversion, in files under the given prefixes.
import { project } from './lib.mjs';
import { scan } from './scan.mjs';
import { readFileSync, unlinkSync } from 'node:fs';
const root = '/work/async';
const prefixes = process.argv.slice(2);
const baseline = JSON.parse(readFileSync('/work/codemod/baseline.json', 'utf8'));
const baseKeys = new Map();
for (const b of baseline) { const k = `${b.fileName}|${b.kind}|${b.text}`; baseKeys.set(k, (baseKeys.get(k) ?? 0) + 1); }
const p = project(root);
const files = [...p.files.keys()].filter((f) => prefixes.some((x) => f.startsWith(`${root}/${x}`)));
const counts = new Map();
for (const f of scan(p.service, files)) {
  const rel = f.fileName.replace(root + '/', '');
  const k = `${rel}|${f.kind}|${f.text}`;
  const n = (counts.get(k) ?? 0) + 1; counts.set(k, n);
  if (n <= (baseKeys.get(k) ?? 0)) continue;
  if (f.kind === 'assigned') continue;
  console.log(`${rel}:${f.line} [${f.kind}] ${f.text}`);
}
unlinkSync(`${root}/tsconfig.codemod.${process.pid}.json`);
