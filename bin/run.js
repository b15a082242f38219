#!/usr/bin/env node
// Entry of the svc CLI: oclif finds the compiled commands through package.json#oclif.
import { execute } from '@oclif/core';

await execute({ dir: import.meta.url });
