/**
 * English messages for zod issues. Bundled code uses `zod/mini` (a fraction of classic zod's size
 * and import time), which loads no locale: every issue without a message of its own would read
 * "Invalid input". The API's 422 details, the environment's errors and refused job messages quote
 * classic zod's English messages, so every module that reports issues imports this one first
 * (`http/validation.ts`, `config/env.ts`, `jobs/registry.ts`).
 */
import { en } from 'zod/locales';
import * as z from 'zod/mini';

z.config(en());
