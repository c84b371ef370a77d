/**
 * Enqueueing a job parses its message with the job's own schema first: what the worker would
 * refuse is refused when it is sent, and never reaches the queue.
 */
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import * as z from 'zod/mini';
import {
  defineJob,
  defineJobMessage,
  enqueue,
  InvalidJobMessageError,
  JOBS_MAX_RECEIVES,
  type JobMeta,
  jobMessage,
  jobsWorker,
  scheduleJob,
} from '../../../shared/jobs/registry';
import { defaults, manifest } from '../../../shared/manifest';
import type { Deps, QueueMessage, ScheduleInput } from '../../../shared/ports';

const resize = defineJobMessage({
  type: 'image.resize',
  schema: z.object({
    type: z.literal('image.resize'),
    projectId: z.string().check(z.minLength(1)),
    width: z.number().check(z.int(), z.positive()),
    mode: z._default(z.enum(['fit', 'fill']), 'fit'),
  }),
});

function recordingDeps() {
  const sent: { queue: string; message: QueueMessage; options: unknown }[] = [];
  const scheduled: ScheduleInput[] = [];
  const deps = {
    queue: {
      send: async (queue: string, message: QueueMessage, options?: unknown) => {
        sent.push({ queue, message, options });
      },
    },
    scheduler: {
      scheduleAt: async (input: ScheduleInput) => {
        scheduled.push(input);
      },
      cancel: async () => {},
    },
  } as unknown as Pick<Deps, 'queue' | 'scheduler'>;
  return { deps, sent, scheduled };
}

describe('enqueue', () => {
  it('sends the parsed message, with the job type, to the jobs queue', async () => {
    const { deps, sent } = recordingDeps();
    await enqueue(deps, resize, { projectId: 'p1', width: 300 }, { delaySeconds: 5 });
    expect(sent).toEqual([
      {
        queue: 'jobs',
        message: { type: 'image.resize', projectId: 'p1', width: 300, mode: 'fit' },
        options: { delaySeconds: 5 },
      },
    ]);
  });

  it('takes a message that already names its type (a continuation built from the one running)', async () => {
    const { deps, sent } = recordingDeps();
    const running = { type: 'image.resize' as const, projectId: 'p1', width: 300, mode: 'fill' as const };
    await enqueue(deps, resize, { ...running, width: 150 });
    expect(sent.map((s) => s.message)).toEqual([{ ...running, width: 150 }]);
  });

  it('refuses a message that fails the schema, and sends nothing', async () => {
    const { deps, sent } = recordingDeps();
    // @ts-expect-error width is required
    await expect(enqueue(deps, resize, { projectId: 'p1' })).rejects.toThrow(InvalidJobMessageError);
    await expect(enqueue(deps, resize, { projectId: '', width: 3 })).rejects.toThrow(
      /Refused to enqueue an invalid image\.resize message/,
    );
    // @ts-expect-error width is a number
    await expect(enqueue(deps, resize, { projectId: 'p1', width: '3' })).rejects.toThrow(
      InvalidJobMessageError,
    );
    expect(sent).toEqual([]);
  });

  it('refuses a message that names another type instead of renaming it', async () => {
    const { deps, sent } = recordingDeps();
    const other = { type: 'image.crop', projectId: 'p1', width: 3 };
    await expect(enqueue(deps, resize, other as never)).rejects.toThrow(InvalidJobMessageError);
    expect(sent).toEqual([]);
  });

  it('names the job and the failing fields in the error', () => {
    try {
      jobMessage(resize, { projectId: 'p1', width: -1 });
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidJobMessageError);
      expect((error as InvalidJobMessageError).jobType).toBe('image.resize');
      expect((error as InvalidJobMessageError).issues.map((i) => i.path)).toEqual([['width']]);
    }
  });

  it('accepts a whole job definition as well as a message declaration', async () => {
    const { deps, sent } = recordingDeps();
    const job = defineJob({ ...resize, run: async () => {} });
    await enqueue(deps, job, { projectId: 'p2', width: 1 });
    expect(sent.map((s) => s.message.projectId)).toEqual(['p2']);
  });
});

describe('scheduleJob', () => {
  it('arranges a one-off schedule of the parsed message on the jobs queue', async () => {
    const { deps, scheduled } = recordingDeps();
    const at = new Date('2030-01-01T00:15:00Z');
    await scheduleJob(deps, resize, { projectId: 'p1', width: 10 }, { name: 'resize-1', at });
    expect(scheduled).toEqual([
      {
        name: 'resize-1',
        at,
        queue: 'jobs',
        message: { type: 'image.resize', projectId: 'p1', width: 10, mode: 'fit' },
      },
    ]);
  });

  it('refuses an invalid message without scheduling anything', async () => {
    const { deps, scheduled } = recordingDeps();
    await expect(
      scheduleJob(deps, resize, { projectId: 'p1', width: 0 }, { name: 'resize-2', at: new Date() }),
    ).rejects.toThrow(InvalidJobMessageError);
    expect(scheduled).toEqual([]);
  });
});

describe('meta.lastAttempt', () => {
  const record = (messageId: string, receiveCount: number): SQSRecord =>
    ({
      messageId,
      body: JSON.stringify({ type: 'image.resize', projectId: 'p', width: 1 }),
      attributes: { ApproximateReceiveCount: String(receiveCount) },
    }) as unknown as SQSRecord;

  function seenBy(options: { maxReceiveCount?: number }) {
    const seen: Pick<JobMeta, 'receiveCount' | 'lastAttempt'>[] = [];
    const job = defineJob({
      ...resize,
      run: async (_deps, _m, meta) => {
        seen.push({ receiveCount: meta.receiveCount, lastAttempt: meta.lastAttempt });
      },
    });
    return { seen, worker: jobsWorker({} as Deps, [job], [], options) };
  }

  it("is set once the receive count reaches the queue's maxReceiveCount", async () => {
    const { seen, worker } = seenBy({ maxReceiveCount: 3 });
    for (const n of [1, 2, 3, 4]) await worker({ Records: [record(`m${n}`, n)] } as SQSEvent);
    expect(seen).toEqual([
      { receiveCount: 1, lastAttempt: false },
      { receiveCount: 2, lastAttempt: false },
      { receiveCount: 3, lastAttempt: true },
      { receiveCount: 4, lastAttempt: true },
    ]);
  });

  it("defaults to the jobs queue's maxReceiveCount in the manifest", async () => {
    const jobsQueue = manifest.queues.find((q) => q.name === 'jobs');
    expect(JOBS_MAX_RECEIVES).toBe(jobsQueue?.maxReceiveCount ?? defaults.maxReceiveCount);
    const { seen, worker } = seenBy({});
    await worker({
      Records: [record('a', JOBS_MAX_RECEIVES - 1), record('b', JOBS_MAX_RECEIVES)],
    } as SQSEvent);
    expect(seen.map((s) => s.lastAttempt)).toEqual([false, true]);
  });
});
