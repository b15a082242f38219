// Writes docs/cli.md from the oclif manifests of the CLI and its bundled plugins (made by `npm run build`):
// the CLI reference cannot drift from the commands. Run with `npm run docs`.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';

const root = new URL('..', import.meta.url);
const read = (path) => JSON.parse(readFileSync(new URL(path, root), 'utf8'));
const packages = ['', ...readdirSync(new URL('plugins/', root)).map((name) => `plugins/${name}/`)];
const topics = packages.flatMap((dir) => Object.entries(read(`${dir}package.json`).oclif.topics ?? {})).sort(([a], [b]) => a.localeCompare(b));
const commands = Object.assign({}, ...packages.map((dir) => read(`${dir}oclif.manifest.json`).commands));
const GLOBAL = new Set(['profile', 'store', 'json']);

const flagLine = (name, f) => {
  const short = f.char ? `-${f.char}, ` : '';
  const value = f.type === 'option' ? (f.options ? `=${f.options.join('|')}` : '=<value>') : '';
  const extra = [
    f.required ? 'required' : null,
    f.default !== undefined && f.default !== '' ? `default ${JSON.stringify(f.default)}` : null,
    f.multiple ? 'repeatable' : null,
  ].filter(Boolean);
  return `- \`${short}--${name}${value}\`${f.description ? ` — ${f.description}` : ''}${extra.length ? ` (${extra.join(', ')})` : ''}`;
};

const ids = Object.keys(commands).sort();
let out = `# svc CLI reference\n\nGenerated from the commands by \`npm run docs\`; do not edit by hand.\n\n`;
out +=
  'Every API command also takes the global flags `--profile`, `--store` (id or code) and `--json`, with the environment variables `SVC_PROFILE`, `SVC_STORE_ID`, `SVC_API_URL`, `SVC_TOKEN`. Exit codes: 0 success, 1 API error, 2 usage error.\n\n';
out += '## Topics\n\n' + topics.map(([t, v]) => `- \`svc ${t.replaceAll(':', ' ')}\` — ${v.description}`).join('\n') + '\n\n';
for (const id of ids) {
  const c = commands[id];
  const usage = [
    `svc ${id.replaceAll(':', ' ')}`,
    ...Object.values(c.args ?? {}).map((a) => (a.required ? `${a.name.toUpperCase()}` : `[${a.name.toUpperCase()}]`)),
  ].join(' ');
  out += `## \`${usage}\`\n\n${c.summary ?? ''}\n\n`;
  if (c.description) out += `${c.description}\n\n`;
  const args = Object.values(c.args ?? {});
  if (args.length)
    out += `Arguments:\n${args.map((a) => `- \`${a.name.toUpperCase()}\`${a.description ? ` — ${a.description}` : ''}${a.options ? ` (${a.options.filter((o) => o === o.toUpperCase()).join(', ')})` : ''}`).join('\n')}\n\n`;
  const flags = Object.entries(c.flags ?? {}).filter(([name]) => !GLOBAL.has(name));
  if (flags.length) out += `Flags:\n${flags.map(([name, f]) => flagLine(name, f)).join('\n')}\n\n`;
  if (c.examples?.length)
    out += `Examples:\n\`\`\`sh\n${c.examples.map((e) => (typeof e === 'string' ? e : e.command).replaceAll('<%= config.bin %>', 'svc')).join('\n')}\n\`\`\`\n\n`;
}
writeFileSync(new URL('docs/cli.md', root), out.trimEnd() + '\n');
console.log(`docs/cli.md: ${ids.length} commands`);
