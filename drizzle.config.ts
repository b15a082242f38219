import { defineConfig } from 'drizzle-kit';

// Every domain module keeps its tables in its own schema.ts; one migration history covers them all.
export default defineConfig({
  dialect: 'sqlite',
  schema: ['./src/modules/*/schema.ts', './src/server/schema.ts'],
  out: './drizzle',
});
