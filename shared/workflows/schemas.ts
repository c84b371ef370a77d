/**
 * Input schemas of the workflow definition endpoints (docs/workflows.md); handlers, tests and
 * docs reuse them. Each step type's config has a schema of its own, and a bad config is one 422
 * naming every offending field under `config.` (`config.amount`, `config.recipient.email`).
 *
 * Liquid (a WEBHOOK's `url` and `body`) is checked apart, by `checkStepLiquid`: the renderer is
 * loaded on the first write that needs it, not at every cold start of the function.
 */
import * as z from 'zod/mini';
import { parseCondition } from '../conditions/parse';
import { checkDataPayloadSize, parseDataPatch } from '../contacts/data';
import { emailSchema } from '../contacts/email';
import { type FieldIssue, flatBadRequest, validationError } from '../errors';
import { MAX_EVENT_NAME_LENGTH } from '../events/names';
import { offsetPageQuery, parse, toFieldIssues, uuidId } from '../http/validation';
import {
  BRANCHES,
  type Branch,
  type DelayUnit,
  STEP_TYPES,
  type StepConfig,
  type StepType,
  TRIGGER_TYPES,
  type TriggerType,
  type WebhookConfig,
} from './model';
import { isReservedWebhookHeader } from './webhook-headers';

/** Name and description bounds (as segments). */
export const MAX_WORKFLOW_NAME_CHARS = 100;
export const MAX_WORKFLOW_DESCRIPTION_CHARS = 500;
export const MAX_STEP_NAME_CHARS = 100;
export const MAX_EXIT_REASON_CHARS = 500;
/** A workflow is one DynamoDB item (400 KB at most): steps are bounded, and so are their configs. */
export const MAX_STEPS = 100;
/** DELAY and WAIT_FOR_EVENT timeouts: at most 365 days. */
export const MAX_WAIT_SECONDS = 365 * 24 * 3600;
export const MAX_WEBHOOK_HEADERS = 50;
export const MAX_WEBHOOK_URL_CHARS = 2048;
export const MAX_WEBHOOK_BODY_CHARS = 64 * 1024;
/** As the custom header values of `/v1/send`. */
export const MAX_HEADER_VALUE_CHARS = 998;
export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

const UNIT_SECONDS: Readonly<Record<DelayUnit, number>> = { minutes: 60, hours: 3600, days: 86400 };

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** Runs a zod schema and answers its issues (paths under `prefix`) instead of throwing. */
function check<S extends z.ZodMiniType>(
  schema: S,
  value: unknown,
  prefix: readonly string[],
): { data?: z.output<S>; issues: FieldIssue[] } {
  const result = schema.safeParse(value, { reportInput: true });
  if (result.success) return { data: result.data, issues: [] };
  return { issues: toFieldIssues(result.error, prefix) };
}

// ---------------------------------------------------------------------------------------------
// Event names (triggers and WAIT_FOR_EVENT)

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it rejects
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const RESERVED_SHAPES: readonly RegExp[] = [
  /^email\..+$/,
  /^contact\.(subscribed|unsubscribed)$/,
  /^segment\.[a-z0-9-]+\.(entry|exit)$/,
];

/**
 * Why `name` cannot start or resume a workflow, or undefined when it can: any name a caller may
 * track (shared/events/names.ts: 1 to 100 characters, no control characters), or one the service
 * emits (`email.*`, `contact.subscribed`, `contact.unsubscribed`, `segment.<slug>.entry|exit`).
 * The service's names are lower case: `Email.Sent` or `segment.Pro.entry` would never match an
 * event, so they are refused rather than stored.
 */
export function eventNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'must not be empty';
  if (name.length > MAX_EVENT_NAME_LENGTH) return `must be at most ${MAX_EVENT_NAME_LENGTH} characters`;
  if (CONTROL.test(name)) return 'must not contain control characters';
  if (name !== name.trim()) return 'must not start or end with white space';
  const lower = name.toLowerCase();
  const reservedLike =
    lower.startsWith('email.') ||
    lower === 'contact.subscribed' ||
    lower === 'contact.unsubscribed' ||
    /^segment\..+\.(entry|exit)$/.test(lower);
  if (reservedLike && !RESERVED_SHAPES.some((re) => re.test(name))) {
    return 'names the service emits are written email.<name>, contact.subscribed, contact.unsubscribed or segment.<slug>.entry|exit (lower case; a slug as in the segment record)';
  }
  return undefined;
}

/** An event name as a trigger or a WAIT_FOR_EVENT step takes it (see `eventNameProblem`). */
export const workflowEventNameSchema = z.string({ message: 'eventName must be a string' }).check(
  z.superRefine((name, ctx) => {
    const problem = eventNameProblem(name);
    // Reported as `invalid_string` (zod 4's `invalid_format`), as every validation error is.
    if (problem)
      ctx.addIssue({
        code: 'invalid_format',
        format: 'event_name',
        message: `eventName ${problem}`,
        input: name,
      });
  }),
);

// ---------------------------------------------------------------------------------------------
// Workflows

const name = z.string({ message: 'name must be a string' }).check(
  z.trim(),
  z.minLength(1, { message: 'name must not be empty' }),
  z.maxLength(MAX_WORKFLOW_NAME_CHARS, {
    message: `name must be at most ${MAX_WORKFLOW_NAME_CHARS} characters`,
  }),
);
const description = z.string({ message: 'description must be a string' }).check(
  z.maxLength(MAX_WORKFLOW_DESCRIPTION_CHARS, {
    message: `description must be at most ${MAX_WORKFLOW_DESCRIPTION_CHARS} characters`,
  }),
);

export const createWorkflowSchema = z.object({
  name,
  description: z.nullish(description),
  eventName: z.nullish(workflowEventNameSchema),
});

export interface CreateWorkflowInput {
  readonly name: string;
  readonly description: string | null;
  readonly eventName: string | null;
}

/**
 * The `POST /workflows` body. A missing name (absent, null or empty) is the flat 400 of
 * creation endpoints; anything else is a 422. A body that is no object counts as `{}`.
 */
export function parseCreateWorkflow(raw: unknown): CreateWorkflowInput {
  const body = isObject(raw) ? raw : {};
  if (body.name === undefined || body.name === null || body.name === '')
    throw flatBadRequest('name is required');
  const input = parse(createWorkflowSchema, body);
  return { name: input.name, description: input.description ?? null, eventName: input.eventName ?? null };
}

export const patchWorkflowSchema = z.object({
  name: z.optional(name),
  description: z.nullish(description),
  triggerType: z.optional(
    z.enum(TRIGGER_TYPES, { message: `triggerType must be ${TRIGGER_TYPES.join(' or ')}` }),
  ),
  triggerConfig: z.optional(
    z.object(
      { eventName: z.nullish(workflowEventNameSchema) },
      { message: 'triggerConfig must be an object {eventName}' },
    ),
  ),
  enabled: z.optional(z.boolean({ message: 'enabled must be a boolean' })),
  allowReentry: z.optional(z.boolean({ message: 'allowReentry must be a boolean' })),
  entryStepId: z.nullish(uuidId('entryStepId must be a step id (a UUID)')),
});

export interface PatchWorkflowInput {
  readonly name?: string;
  /** null clears it. */
  readonly description?: string | null;
  readonly triggerType?: TriggerType;
  readonly triggerConfig?: { readonly eventName: string | null };
  readonly enabled?: boolean;
  readonly allowReentry?: boolean;
  /** null clears it; otherwise an existing step (checked by the service). */
  readonly entryStepId?: string | null;
}

/** `PATCH /workflows/{id}`: any subset; fields not named keep their value. */
export function parsePatchWorkflow(raw: unknown): PatchWorkflowInput {
  const body = isObject(raw) ? raw : {};
  const input = parse(patchWorkflowSchema, body);
  return {
    ...(input.name === undefined ? {} : { name: input.name }),
    ...(input.description === undefined ? {} : { description: input.description }),
    ...(input.triggerType === undefined ? {} : { triggerType: input.triggerType }),
    ...(input.triggerConfig === undefined
      ? {}
      : { triggerConfig: { eventName: input.triggerConfig.eventName ?? null } }),
    ...(input.enabled === undefined ? {} : { enabled: input.enabled }),
    ...(input.allowReentry === undefined ? {} : { allowReentry: input.allowReentry }),
    // Sent as null it clears; absent leaves it.
    ...(body.entryStepId === undefined ? {} : { entryStepId: input.entryStepId ?? null }),
  };
}

export const WORKFLOW_SORTS = ['name', 'createdAt', 'updatedAt'] as const;
export type WorkflowSort = (typeof WORKFLOW_SORTS)[number];

/** `GET /workflows`: the offset list of templates and campaigns, filtered by `enabled` and `triggerType`. */
export const listWorkflowsQuerySchema = z.object({
  ...offsetPageQuery,
  search: z.optional(z.string().check(z.trim(), z.maxLength(200))),
  enabled: z.optional(z.enum(['true', 'false'], { message: 'enabled must be true or false' })),
  triggerType: z.optional(
    z.enum(TRIGGER_TYPES, { message: `triggerType must be ${TRIGGER_TYPES.join(' or ')}` }),
  ),
  // Unknown sort or direction values fall back to the defaults, as for templates and campaigns.
  sort: z.pipe(
    z.optional(z.string()),
    z.transform(
      (s): WorkflowSort => (WORKFLOW_SORTS.includes(s as WorkflowSort) ? (s as WorkflowSort) : 'createdAt'),
    ),
  ),
  dir: z.pipe(
    z.optional(z.string()),
    z.transform((d): 'asc' | 'desc' => (d === 'asc' ? 'asc' : 'desc')),
  ),
});

export interface ListWorkflowsQuery {
  readonly page: number;
  readonly pageSize: number;
  readonly search?: string;
  readonly enabled?: boolean;
  readonly triggerType?: TriggerType;
  readonly sort: WorkflowSort;
  readonly dir: 'asc' | 'desc';
}

export function parseListWorkflowsQuery(raw: unknown): ListWorkflowsQuery {
  const q = parse(listWorkflowsQuerySchema, raw ?? {}, ['query']);
  return {
    page: q.page,
    pageSize: q.pageSize,
    ...(q.search ? { search: q.search } : {}),
    ...(q.enabled === undefined ? {} : { enabled: q.enabled === 'true' }),
    ...(q.triggerType === undefined ? {} : { triggerType: q.triggerType }),
    sort: q.sort,
    dir: q.dir,
  };
}

// ---------------------------------------------------------------------------------------------
// Path parameters

const uuid = (what: string) => uuidId(`${what} id must be a UUID`);

export const workflowIdSchema = z.object({ id: uuid('Workflow') });
export const stepParamsSchema = z.object({ id: uuid('Workflow'), stepId: uuid('Step') });
export const transitionParamsSchema = z.object({ id: uuid('Workflow'), transitionId: uuid('Transition') });
export const executionParamsSchema = z.object({ id: uuid('Workflow'), executionId: uuid('Execution') });

// ---------------------------------------------------------------------------------------------
// Step configs

const positiveInt = (field: string) =>
  z
    .number({ message: `${field} must be a number` })
    .check(
      z.int({ message: `${field} must be a whole number` }),
      z.gt(0, { message: `${field} must be positive` }),
    );

const sendEmailShape = z.object({
  templateId: uuidId('templateId must be a template id (a UUID)'),
  recipient: z._default(
    z.object(
      {
        type: z.enum(['CONTACT', 'CUSTOM'], { message: 'recipient.type must be CONTACT or CUSTOM' }),
        email: z.optional(z.unknown()),
      },
      { message: 'recipient must be an object {type, email?}' },
    ),
    { type: 'CONTACT' },
  ),
});

const delayShape = z.object({
  amount: positiveInt('amount'),
  unit: z.enum(['minutes', 'hours', 'days'], { message: 'unit must be minutes, hours or days' }),
});

const waitShape = z.object({
  eventName: workflowEventNameSchema,
  timeout: z.optional(
    positiveInt('timeout').check(
      z.lte(MAX_WAIT_SECONDS, { message: `timeout must be at most ${MAX_WAIT_SECONDS} seconds (365 days)` }),
    ),
  ),
});

/** RFC 7230 `token`: what a header name may be. */
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const webhookShape = z.object({
  url: z.string({ message: 'url must be a string' }).check(
    z.trim(),
    z.minLength(1, { message: 'url must not be empty' }),
    z.maxLength(MAX_WEBHOOK_URL_CHARS, {
      message: `url must be at most ${MAX_WEBHOOK_URL_CHARS} characters`,
    }),
  ),
  method: z._default(
    z.enum(WEBHOOK_METHODS, { message: `method must be one of ${WEBHOOK_METHODS.join(', ')}` }),
    'POST',
  ),
  headers: z._default(
    z.record(z.string(), z.string({ message: 'header values must be strings' }), {
      message: 'headers must be an object of header names to values',
    }),
    {},
  ),
  body: z.optional(
    z.string({ message: 'body must be a string (a Liquid template)' }).check(
      z.maxLength(MAX_WEBHOOK_BODY_CHARS, {
        message: `body must be at most ${MAX_WEBHOOK_BODY_CHARS} characters`,
      }),
    ),
  ),
});

const updateContactShape = z.object({
  data: z.optional(z.unknown()),
  subscribed: z.optional(z.boolean({ message: 'subscribed must be a boolean' })),
});

const exitShape = z.object({
  reason: z.optional(
    z.string({ message: 'reason must be a string' }).check(
      z.maxLength(MAX_EXIT_REASON_CHARS, {
        message: `reason must be at most ${MAX_EXIT_REASON_CHARS} characters`,
      }),
    ),
  ),
});

/** Whether a string holds Liquid (an output `{{ }}` or a tag `{% %}`). */
export const hasLiquid = (s: string) => s.includes('{{') || s.includes('{%');

/** The issues of a 422 thrown by a helper (parseCondition, parseDataPatch ...), or rethrows. */
function issuesOf(run: () => void): FieldIssue[] {
  try {
    run();
    return [];
  } catch (error) {
    const issues = (error as { extra?: { errors?: readonly FieldIssue[] } }).extra?.errors;
    if ((error as { statusCode?: number }).statusCode === 422 && issues) return [...issues];
    throw error;
  }
}

const issue = (field: string, message: string, code: string, received?: unknown): FieldIssue => ({
  field,
  message,
  code,
  ...(received === undefined ? {} : { received }),
});

/**
 * A step's config, checked for its type: the stored form, or one 422 naming every offending field
 * under `config.` (WEBHOOK Liquid is checked by `checkStepLiquid`). Unknown keys are dropped.
 */
export function parseStepConfig(type: StepType, raw: unknown): StepConfig {
  const at = ['config'];
  const value = raw === undefined || raw === null ? {} : raw;
  if (!isObject(value)) throw validationError([issue('config', 'config must be an object', 'invalid_type')]);
  switch (type) {
    case 'SEND_EMAIL': {
      const { data, issues } = check(sendEmailShape, value, at);
      if (data?.recipient.type === 'CUSTOM') {
        const email = check(emailSchema, data.recipient.email, ['config', 'recipient', 'email']);
        if (data.recipient.email === undefined || data.recipient.email === null)
          issues.push(
            issue(
              'config.recipient.email',
              'recipient.email is required for a CUSTOM recipient',
              'invalid_type',
            ),
          );
        else issues.push(...email.issues);
        if (issues.length > 0) throw validationError(issues);
        return { templateId: data.templateId, recipient: { type: 'CUSTOM', email: email.data as string } };
      }
      if (!data || issues.length > 0) throw validationError(issues);
      return { templateId: data.templateId, recipient: { type: 'CONTACT' } };
    }
    case 'DELAY': {
      const { data, issues } = check(delayShape, value, at);
      if (data && data.amount * UNIT_SECONDS[data.unit] > MAX_WAIT_SECONDS)
        issues.push(issue('config.amount', 'A delay is at most 365 days', 'too_big', data.amount));
      if (!data || issues.length > 0) throw validationError(issues);
      return { amount: data.amount, unit: data.unit };
    }
    case 'WAIT_FOR_EVENT': {
      const { data, issues } = check(waitShape, value, at);
      if (!data || issues.length > 0) throw validationError(issues);
      return { eventName: data.eventName, ...(data.timeout === undefined ? {} : { timeout: data.timeout }) };
    }
    case 'CONDITION': {
      if (value.condition === undefined || value.condition === null)
        throw validationError([issue('config.condition', 'condition is required', 'invalid_type')]);
      return { condition: parseCondition(value.condition, 'config.condition') };
    }
    case 'WEBHOOK': {
      const { data, issues } = check(webhookShape, value, at);
      if (data) issues.push(...webhookIssues(data));
      if (!data || issues.length > 0) throw validationError(issues);
      return {
        url: data.url,
        method: data.method,
        headers: data.headers,
        ...(data.body === undefined ? {} : { body: data.body }),
      };
    }
    case 'UPDATE_CONTACT': {
      const { data, issues } = check(updateContactShape, value, at);
      if (!data) throw validationError(issues);
      const payload = data.data ?? {};
      issues.push(...issuesOf(() => checkDataPayloadSize(payload, 'config.data')));
      if (issues.length === 0) {
        issues.push(
          ...issuesOf(() => {
            const patch = parseDataPatch(payload, 'config.data');
            const changes =
              Object.keys(patch.set).length + patch.remove.length + Object.keys(patch.transient).length;
            if (changes === 0 && data.subscribed === undefined)
              throw validationError([
                issue(
                  'config.data',
                  'An UPDATE_CONTACT step sets data (non-empty) or subscribed, or both',
                  'too_small',
                ),
              ]);
          }),
        );
      }
      if (issues.length > 0) throw validationError(issues);
      return {
        data: payload as Record<string, unknown>,
        ...(data.subscribed === undefined ? {} : { subscribed: data.subscribed }),
      };
    }
    case 'EXIT': {
      const { data, issues } = check(exitShape, value, at);
      if (!data || issues.length > 0) throw validationError(issues);
      return data.reason === undefined ? {} : { reason: data.reason };
    }
  }
}

/** What zod cannot say of a WEBHOOK: the URL's scheme, and header names and values. */
function webhookIssues(config: Omit<WebhookConfig, 'body'> & { body?: string }): FieldIssue[] {
  const out: FieldIssue[] = [];
  if (!hasLiquid(config.url)) {
    let url: URL | undefined;
    try {
      url = new URL(config.url);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:'))
      out.push(
        issue('config.url', 'url must be an absolute http or https URL', 'invalid_string', config.url),
      );
    else if (url.username || url.password)
      out.push(
        issue('config.url', 'url must not carry credentials; send them in a header', 'invalid_string'),
      );
  }
  const names = Object.keys(config.headers);
  if (names.length > MAX_WEBHOOK_HEADERS)
    out.push(issue('config.headers', `At most ${MAX_WEBHOOK_HEADERS} headers`, 'too_big', names.length));
  const seen = new Set<string>();
  for (const [name, value] of Object.entries(config.headers)) {
    const at = `config.headers.${name}`;
    const lower = name.toLowerCase();
    if (!HEADER_NAME.test(name) || name.length > 100)
      out.push(
        issue(at, 'Header names are 1 to 100 characters of an HTTP token (RFC 7230)', 'invalid_string', name),
      );
    else if (isReservedWebhookHeader(lower))
      out.push(issue(at, `${name} is set by the service and cannot be overridden`, 'reserved_header', name));
    else if (seen.has(lower))
      out.push(issue(at, `${name} is given twice (names are case-insensitive)`, 'duplicate'));
    seen.add(lower);
    if (/[\r\n\0]/.test(value))
      out.push(issue(at, 'Header values must not contain CR, LF or NUL characters', 'invalid_string'));
    else if (value.length > MAX_HEADER_VALUE_CHARS)
      out.push(
        issue(at, `Header values are at most ${MAX_HEADER_VALUE_CHARS} characters`, 'too_big', value.length),
      );
  }
  if (config.method === 'GET' && config.body !== undefined)
    out.push(issue('config.body', 'A GET request has no body', 'invalid_type'));
  return out;
}

/**
 * 422 when a WEBHOOK's url or body is not valid Liquid (code `invalid_liquid`). Other step types
 * hold no Liquid. The renderer is imported here, on the first write that needs it.
 */
export async function checkStepLiquid(type: StepType, config: StepConfig): Promise<void> {
  if (type !== 'WEBHOOK') return;
  const webhook = config as WebhookConfig;
  const { compileAllAsync } = await import('../rendering');
  await compileAllAsync([
    { field: 'config.url', source: webhook.url, kind: 'text' },
    ...(webhook.body === undefined
      ? []
      : [{ field: 'config.body', source: webhook.body, kind: 'text' as const }]),
  ]);
}

const stepName = z.nullish(
  z
    .string({ message: 'name must be a string' })
    .check(
      z.trim(),
      z.maxLength(MAX_STEP_NAME_CHARS, { message: `name must be at most ${MAX_STEP_NAME_CHARS} characters` }),
    ),
);

export interface AddStepInput {
  readonly type: StepType;
  readonly name: string | null;
  readonly config: StepConfig;
}

/** `POST /workflows/{id}/steps`, for the API reference: `config` is checked by the step type. */
export const addStepSchema = z.object({
  type: z.enum(STEP_TYPES),
  name: stepName,
  config: z.optional(z.record(z.string(), z.unknown())),
});

/** `POST /workflows/{id}/steps` `{type, name?, config}`: one 422 for a bad type or name, then the config's. */
export function parseAddStep(raw: unknown): AddStepInput {
  const body = isObject(raw) ? raw : {};
  const head = check(
    z.object({
      type: z.enum(STEP_TYPES, { message: `type must be one of ${STEP_TYPES.join(', ')}` }),
      name: stepName,
    }),
    body,
    [],
  );
  if (!head.data) throw validationError(head.issues);
  return {
    type: head.data.type,
    name: head.data.name ? head.data.name : null,
    config: parseStepConfig(head.data.type, body.config),
  };
}

export interface PatchStepInput {
  /** null (or empty) clears it. */
  readonly name?: string | null;
  /** Checked against the step's type by the service (`parseStepConfig`). */
  readonly config?: unknown;
  /** Sent only to be refused when it differs from the step's. */
  readonly type?: unknown;
}

/** `PATCH /workflows/{id}/steps/{stepId}`: zod checks the name; the config is the step type's. */
const patchStepHead = z.object({ name: stepName });
export const patchStepSchema = z.extend(patchStepHead, {
  config: z.optional(z.record(z.string(), z.unknown())),
  type: z.optional(z.string()),
});

/** `PATCH /workflows/{id}/steps/{stepId}` `{name?, config?}`: the config replaces the step's whole config. */
export function parsePatchStep(raw: unknown): PatchStepInput {
  const body = isObject(raw) ? raw : {};
  const head = parse(patchStepHead, body);
  return {
    ...(body.name === undefined ? {} : { name: head.name ? head.name : null }),
    ...(body.config === undefined ? {} : { config: body.config }),
    ...(body.type === undefined ? {} : { type: body.type }),
  };
}

/** `DELETE /workflows/{id}/steps/{stepId}?splice=true|false` (default false). */
export const deleteStepQuerySchema = z.object({
  splice: z.pipe(
    z.optional(z.enum(['true', 'false'], { message: 'splice must be true or false' })),
    z.transform((s) => s === 'true'),
  ),
});

export const parseDeleteStepQuery = (raw: unknown): { splice: boolean } =>
  parse(deleteStepQuerySchema, raw ?? {}, ['query']);

const ALL_BRANCHES = [...new Set(Object.values(BRANCHES).flat())] as Branch[];

export const addTransitionSchema = z.object({
  fromStepId: uuidId('fromStepId must be a step id (a UUID)'),
  toStepId: uuidId('toStepId must be a step id (a UUID)'),
  branch: z.nullish(z.enum(ALL_BRANCHES, { message: `branch must be one of ${ALL_BRANCHES.join(', ')}` })),
});

export interface AddTransitionInput {
  readonly fromStepId: string;
  readonly toStepId: string;
  readonly branch: Branch | null;
}

/** `POST /workflows/{id}/transitions`; whether the branch fits the step is the service's check. */
export function parseAddTransition(raw: unknown): AddTransitionInput {
  const input = parse(addTransitionSchema, isObject(raw) ? raw : {});
  return { fromStepId: input.fromStepId, toStepId: input.toStepId, branch: input.branch ?? null };
}

/** `GET /workflows/fields?eventName=` or `?workflowId=` (its trigger's event). */
export const fieldsQuerySchema = z.object({
  eventName: z.optional(workflowEventNameSchema),
  workflowId: z.optional(uuid('Workflow')),
});
export type FieldsQuery = z.output<typeof fieldsQuerySchema>;

export const parseFieldsQuery = (raw: unknown): FieldsQuery => parse(fieldsQuerySchema, raw ?? {}, ['query']);
