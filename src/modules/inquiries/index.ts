import type { Module } from '../../server/module.js';
import { inquiryOperations } from './operations.js';

/** Buyers' questions about products (INQUIRY.CREATED) and one-to-one, answered by the seller. */
export const inquiriesModule: Module = { name: 'inquiries', operations: inquiryOperations };
