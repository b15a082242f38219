/**
 * What the storefront commands take from the storefront module (through its index.ts): a project's files read and
 * packed as the service reads them, and the folder of the templates `svc storefront init` copies.
 */
export { packProject, projectFiles, templatesDir } from '../../modules/storefront/index.js';
