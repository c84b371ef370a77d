/**
 * The version of Sesame that runs: package.json's `version`, answered by `GET /config`.
 *
 * Imported by name, so bundling keeps that one field: esbuild drops the top-level properties of a
 * JSON module nobody imports (test/unit/http/config.test.ts bundles the config function to
 * check), and the local runtime and the tests read the same file.
 */
import { version } from '../package.json';

export const VERSION: string = version;
