import { z } from 'zod';

/** Field schemas shared by operations' `response` declarations (contract.ts checks live answers against them). */

/** An instant as the API writes it: ISO 8601 in UTC (`2026-11-24T09:00:00.000Z`). */
export const instant = z.iso.datetime();
/** A calendar date (`2026-11-24`). */
export const calendarDate = z.iso.date();
/** An amount in won (integer). */
export const won = z.number().int();
