/**
 * The operator's switch of a project (`npm run sesame -- project disable|enable`, bin/admin.ts;
 * docs/accounts.md, "Disabled projects").
 *
 * The project item's `disabled`, `disabledBy`, `disabledAt` (and the operator's
 * `disabledReason`) are shared with billing (shared/billing/subscription.ts): billing disables
 * with `disabledBy: 'billing'` and enables again only what it disabled itself. So:
 * - an operator disable records `disabledBy: 'operator'`, over a billing disable too (billing's
 *   later re-enable then leaves the project disabled);
 * - an operator enable clears the flag whoever set it.
 * A project being deleted is no project here.
 */
import * as z from 'zod/mini';
import { accountId } from '../http/validation';
import type { Deps } from '../ports';
import type { StoreDeps } from '../store/store';
import { keys } from '../table';

export type OperatorDeps = StoreDeps & Pick<Deps, 'clock'>;

/** What the project looks like after the command. */
export interface OperatorResult {
  readonly id: string;
  readonly name: string;
  readonly disabled: boolean;
  readonly disabledBy: string | null;
  readonly disabledAt: string | null;
  readonly disabledReason: string | null;
  /** Who had disabled it before the command (null: it was enabled). */
  readonly wasDisabledBy: string | null;
}

/** Refused input (exit 1, one line). */
export class OperatorInputError extends Error {
  override readonly name = 'OperatorInputError';
}

const projectId = accountId('project must be a project id');
const reason = z
  .string()
  .check(z.trim(), z.maxLength(500, { message: 'reason must be at most 500 characters' }));

const str = (v: unknown) => (typeof v === 'string' ? v : null);

function resultOf(
  item: Record<string, unknown>,
  before: Record<string, unknown> | undefined,
): OperatorResult {
  return {
    id: String(item.id),
    name: String(item.name),
    disabled: item.disabled === true,
    disabledBy: str(item.disabledBy),
    disabledAt: str(item.disabledAt),
    disabledReason: str(item.disabledReason),
    wasDisabledBy: before?.disabled === true ? (str(before.disabledBy) ?? 'unknown') : null,
  };
}

function check<T>(schema: z.ZodMiniType<T>, value: unknown): T {
  const parsed = schema.safeParse(value);
  if (!parsed.success) throw new OperatorInputError(parsed.error.issues[0]?.message ?? 'invalid input');
  return parsed.data;
}

const notFound = (id: string) => new OperatorInputError(`no project ${id}`);

/** Disables the project for the operator, with an optional reason. */
export async function disableProject(
  deps: OperatorDeps,
  input: { readonly projectId: string; readonly reason?: string },
): Promise<OperatorResult> {
  const id = check(projectId, input.projectId);
  const why = input.reason === undefined ? '' : check(reason, input.reason);
  const before = await deps.store.get(keys.project(id), { consistent: true });
  const out = await update(deps, id, {
    expression: why
      ? 'SET disabled = :true, disabledBy = :operator, disabledAt = :now, disabledReason = :reason'
      : 'SET disabled = :true, disabledBy = :operator, disabledAt = :now REMOVE disabledReason',
    values: {
      ':true': true,
      ':operator': 'operator',
      ':now': deps.clock.now().toISOString(),
      ...(why ? { ':reason': why } : {}),
    },
  });
  return resultOf(out, before);
}

/** Enables the project, whoever disabled it (an operator or billing). */
export async function enableProject(
  deps: OperatorDeps,
  input: { readonly projectId: string },
): Promise<OperatorResult> {
  const id = check(projectId, input.projectId);
  const before = await deps.store.get(keys.project(id), { consistent: true });
  const out = await update(deps, id, {
    expression: 'SET disabled = :false REMOVE disabledBy, disabledAt, disabledReason',
    values: { ':false': false },
  });
  return resultOf(out, before);
}

async function update(
  deps: OperatorDeps,
  id: string,
  change: { readonly expression: string; readonly values: Record<string, unknown> },
): Promise<Record<string, unknown>> {
  try {
    const item = await deps.store.write({
      update: keys.project(id),
      expression: change.expression,
      values: change.values,
      if: 'attribute_exists(pk) AND attribute_not_exists(deletedAt)',
      returnNew: 'all',
    });
    if (!item) throw notFound(id);
    return item;
  } catch (error) {
    if (error instanceof Error && error.name === 'ConditionalCheckFailedException') throw notFound(id);
    throw error;
  }
}
