/**
 * Public API route group (`/v1/*`): send, track, verify, and the public subscription pages.
 * Each domain module exports its route implementations; this file only composes them.
 */
import { lambdaEntry } from '../../../shared/http/lambda';
import { httpGroup } from '../../../shared/http/stack';
import type { Deps } from '../../../shared/ports';

export const createHandler = (deps: Deps) => httpGroup(deps, 'public', []);

export const handler = lambdaEntry(createHandler);
