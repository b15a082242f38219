import type { Module } from '../../server/module.js';
import { storeOperations } from './operations.js';

export const storesModule: Module = { name: 'stores', operations: storeOperations };
