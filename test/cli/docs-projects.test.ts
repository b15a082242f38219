/**
 * The scaffolds' walks of docs/apps.md and docs/storefront.md, run as written (test/helpers/doc-commands.ts):
 * an app and a shop made, built, deployed and used from their own folders.
 */
import { test } from 'uvu';
import { PROJECT_DOCS, testDocs } from '../helpers/doc-commands.js';

testDocs((doc) => PROJECT_DOCS.includes(doc));

test.run();
