import type { Module } from '../../server/module.js';
import { mountFiles, uploadOperations } from './operations.js';

export const uploadsModule: Module = { name: 'uploads', operations: uploadOperations, mount: mountFiles };

export { foreignUploads, ORDER_INPUT, requireProductImages, uploadUrl } from './service.js';
export { storeUploadInTransaction } from './service.js';
