// Writes dist/fresh.db after tsc (npm run build): an empty SQLite database with every migration applied, which a
// new data dir starts from instead of replaying the migrations (src/db/client.ts, issue 31).
import { writeFreshDatabase } from '../dist/src/db/client.js';
import { freshDatabaseTemplate } from '../dist/src/paths.js';

writeFreshDatabase(freshDatabaseTemplate);
