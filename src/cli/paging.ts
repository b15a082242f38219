import { Flags } from '@oclif/core';

/** `--page` and `--size` of the commands that list a paginated resource (spec 01 §1: page from 1). */
export const pageFlags = (maxSize = 100) => ({
  page: Flags.integer({ description: 'Page, from 1', default: 1, min: 1 }),
  size: Flags.integer({ description: `Page size (at most ${maxSize})`, default: 20, min: 1, max: maxSize }),
});

/** The footer under a listed page: `page 2/5 · 87 orders`. */
export const pageSummary = (data: { page: number; totalPages: number; totalElements: number }, noun: string) =>
  `page ${data.page}/${Math.max(data.totalPages, 1)} · ${data.totalElements} ${noun}`;
