import type { Module } from '../../server/module.js';
import { addressChangeOperations } from './address-change.js';
import { orderOperations } from './operations.js';

export const ordersModule: Module = { name: 'orders', operations: [...orderOperations, ...addressChangeOperations] };
