import { buyerItemOperations } from './buyer-item-operations.js';
import { catalogueOperations } from './catalogue-operations.js';
import { sellerItemOperations } from './seller-item-operations.js';

/** The order-flow operations (authoring aside), in the order the OpenAPI document lists them. */
export const flowOperations = [...catalogueOperations, ...sellerItemOperations, ...buyerItemOperations];
