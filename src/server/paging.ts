import { z } from 'zod';

// Every list operation asks for these fields, most with the same bounds: each schema is made once and shared
// (zod schemas are immutable), not once per operation at import — building zod schemas is most of what loading
// the service costs a start (issue 31).
const page = z.coerce.number().int().min(1).default(1);
const sizes = new Map<string, z.ZodDefault<z.ZodCoercedNumber<unknown>>>();
const count = z.number().int();

/** `page` (from 1) and `size` query fields of the paginated lists of spec 01 §1. */
export const pageQuery = (maxSize: number, defaultSize = 20) => {
  const key = `${maxSize}/${defaultSize}`;
  let size = sizes.get(key);
  if (!size) sizes.set(key, (size = z.coerce.number().int().min(1).max(maxSize).default(defaultSize)));
  return { page, size };
};

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
  z.object({ page: count, size: count, totalElements: count, totalPages: count, contents: z.array(item) });

/** Response schema of a cursor-paged list (`{ contents, nextCursor }`). */
export const cursorPageOf = <T extends z.ZodType>(item: T) => z.object({ contents: z.array(item), nextCursor: z.string().nullable() });
