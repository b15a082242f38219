import { z } from 'zod';

/** `page` (from 1) and `size` query fields of the paginated lists of spec 01 §1. */
export const pageQuery = (maxSize: number, defaultSize = 20) => ({
  page: z.coerce.number().int().min(1).default(1),
  size: z.coerce.number().int().min(1).max(maxSize).default(defaultSize),
});

/** Paginated `data` of spec 01 §2.1. */
export const paginated = <T>(contents: T[], page: number, size: number, totalElements: number) =>
  ({ page, size, totalElements, totalPages: Math.ceil(totalElements / size), contents });
