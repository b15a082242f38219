import type { Module } from '../../server/module.js';
import { reviewOperations } from './operations.js';

/** Reviews of received items: written by members, answered and moderated by sellers, REVIEW.CREATED per review. */
export const reviewsModule: Module = { name: 'reviews', operations: reviewOperations };
