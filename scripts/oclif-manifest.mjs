// Writes oclif.manifest.json after the build, using @oclif/core's own command loader: with the manifest,
// `svc --help` and every command start without importing all command modules (TOOLCHAIN.md).
import { writeFileSync } from 'node:fs';
import { Config } from '@oclif/core';

const root = new URL('..', import.meta.url).pathname;
const config = await Config.load({ root, ignoreManifest: true });
const plugin = config.plugins.get(config.pjson.name);
writeFileSync(new URL('../oclif.manifest.json', import.meta.url), `${JSON.stringify(plugin.manifest)}\n`);
console.log(`oclif.manifest.json: ${Object.keys(plugin.manifest.commands).length} commands`);
