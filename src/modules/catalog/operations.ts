import { productCalendarOperations } from './product-calendar-operations.js';
import { productDiscountOperations } from './product-discount-operations.js';
import { productRecordOperations } from './product-record-operations.js';

/** The operations on products, in the order the OpenAPI document lists them. */
export const productOperations = [...productRecordOperations, ...productCalendarOperations, ...productDiscountOperations];
