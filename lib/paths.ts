/** Filesystem anchors for bundling: manifest handler paths are relative to the repository root. */
import { fileURLToPath } from 'node:url';

export const repoRoot = fileURLToPath(new URL('..', import.meta.url));
