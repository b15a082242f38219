import openapiTS, { astToString } from 'openapi-typescript';

/** TypeScript declarations (`paths`, `components`, `operations`) for an OpenAPI 3.1 document object. */
export async function typesOf(document) {
  return astToString(await openapiTS(document));
}
