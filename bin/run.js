#!/usr/bin/env node
// Entry of the svc CLI: oclif finds the bundled commands through package.json#oclif.
//
// The Node check runs before anything else loads, and is written in JavaScript any Node with ES modules can
// parse: on an older Node, oclif and the compiled commands fail confusingly (a ">=22" warning, then a crash),
// so the newcomer gets one line that says what to do instead. 24 matches package.json#engines and .nvmrc.
var major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  process.stderr.write(
    'svc needs Node.js 24 or newer (this is ' + process.versions.node + '). Install it: https://nodejs.org or `nvm install 24`\n',
  );
  process.exit(1);
}

// Node keeps the compiled code of what a start loads (in the OS temp folder; NODE_DISABLE_COMPILE_CACHE=1 turns it
// off), and the CLI runs from its bundle (scripts/bundle.mjs): @oclif/core, the commands and the service in a
// few files rather than hundreds (issue 31).
import('node:module')
  .then(function (module) {
    module.enableCompileCache();
    return import('../dist/bundle/cli.js');
  })
  .then(function (cli) {
    return cli.run(import.meta.url);
  });
