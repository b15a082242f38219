import { z } from 'zod';

/**
 * Field schemas shared by operations' `response` declarations (contract.ts checks live answers against them).
 * A schema with an `id` (`.meta({ id })`, here and on a module's views) is written once in the OpenAPI document,
 * as `components/schemas/<id>`, and referred to everywhere else: the document and clients' types stay small.
 */

/** An instant as the API writes it: ISO 8601 in UTC (`2026-11-24T09:00:00.000Z`). */
export const instant = z.iso.datetime().meta({ id: 'Instant' });
/** A calendar date (`2026-11-24`). */
export const calendarDate = z.iso.date().meta({ id: 'CalendarDate' });
/** An amount in won (integer). */
export const won = z.number().int();
