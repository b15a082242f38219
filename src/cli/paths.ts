/** Where this package is installed (templates, runtime, advisories): for commands and plugins, which import only src/cli. */
export { packageRoot } from '../paths.js';
