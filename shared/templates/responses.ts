/** The success answers of the template routes (see shared/http/answers.ts). */
import * as z from 'zod/mini';
import { id, instant, namedRef, offsetPageOf } from '../http/answers';
import { templateTypeSchema } from './schemas';

/** A template's content, which a campaign carries too. */
export const templateContentFields = {
  id,
  projectId: id,
  name: z.string(),
  description: z.nullable(z.string()),
  subject: z.string(),
  body: z.string(),
  from: z.string(),
  fromName: z.nullable(z.string()),
  replyTo: z.nullable(z.string()),
  type: templateTypeSchema,
};

export const templateAnswer = z.object({
  ...templateContentFields,
  createdAt: instant,
  updatedAt: instant,
});

export const templateListAnswer = offsetPageOf(templateAnswer);

export const templateUsageAnswer = z.object({
  templateId: id,
  campaigns: z.array(namedRef),
  workflows: z.array(z.extend(namedRef, { steps: z.array(z.object({ id, type: z.nullable(z.string()) })) })),
});

export const templateCopyAnswer = z.object({ id });

// Named once in the API reference's components, and referred to from every answer that holds one.
z.globalRegistry.add(templateAnswer, { id: 'Template' });
