import { sql, type Column, type SQL } from 'drizzle-orm';

/** `column` contains `value` as typed: LIKE with its wildcards escaped, so `%` and `_` match themselves. */
export const contains = (column: Column | SQL, value: string) => sql`${column} like ${`%${value.replace(/[\\%_]/g, '\\$&')}%`} escape '\\'`;
