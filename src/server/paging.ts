import { z } from 'zod';

/** `page` (from 1) and `size` query fields of the paginated lists of spec 01 §1. */
export const pageQuery = (maxSize: number, defaultSize = 20) => ({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(maxSize).default(defaultSize),
});

/** Paginated `data` of spec 01 §2.1. */
export const paginated = <T>(contents: T[], page: number, size: number, totalElements: number) => ({
  page,
  size,
  totalElements,
  totalPages: Math.ceil(totalElements / size),
  contents,
});

/** Response schema of a paginated list (`data` of spec 01 §2.1), for an operation's `response`. */
export const pageOf = <T extends z.ZodType>(item: T) =>
  z.object({ page: z.number().int(), size: z.number().int(), totalElements: z.number().int(), totalPages: z.number().int(), contents: z.array(item) });

/** Response schema of a cursor-paged list (`{ contents, nextCursor }`). */
export const cursorPageOf = <T extends z.ZodType>(item: T) => z.object({ contents: z.array(item), nextCursor: z.string().nullable() });
