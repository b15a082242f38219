// Writes oclif.manifest.json after the build, using @oclif/core's own command loader — for the core CLI
// and for each plugin of plugins/ (at the plugin's root): with the manifests, `svc --help` and every
// command start without importing all command modules (TOOLCHAIN.md).
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Config } from '@oclif/core';

const root = new URL('..', import.meta.url).pathname;
const config = await Config.load({ root, ignoreManifest: true });
for (const name of [config.pjson.name, ...(config.pjson.oclif.plugins ?? [])]) {
  const plugin = config.plugins.get(name);
  if (!plugin) throw new Error(`oclif plugin ${name} did not load: run npm install (plugins/ are linked as dependencies)`);
  writeFileSync(join(plugin.root, 'oclif.manifest.json'), `${JSON.stringify(plugin.manifest)}\n`);
  console.log(`${name}: oclif.manifest.json with ${Object.keys(plugin.manifest.commands).length} commands`);
}
