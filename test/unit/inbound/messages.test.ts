/**
 * SES's `Received` notification of the inbound receipt rule's S3 action, as the inbound topic
 * delivers it raw to the jobs queue, turned into the `inbound.received` job message: the stored
 * object's key, SES's message id and receipt time, the recipients and the verdicts, never the
 * message itself.
 */
import { describe, expect, it } from 'vitest';
import { sesEventNormalizer } from '../../../shared/email-events/messages';
import {
  INBOUND_RECEIVED_JOB,
  inboundNormalizer,
  inboundReceivedJobMessage,
} from '../../../shared/inbound/messages';
import { allNormalizers } from '../../../shared/jobs/catalog';
import { jobMessage } from '../../../shared/jobs/registry';
import { receivedNotification } from '../../integration/helpers/inbound';

describe('inboundNormalizer', () => {
  it('turns a Received notification of an S3 action into the inbound.received job message', () => {
    const messages = inboundNormalizer(receivedNotification());
    expect(messages).toEqual([
      {
        type: INBOUND_RECEIVED_JOB,
        key: 'inbound/o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g81',
        messageId: 'o3vrnil0e2ic28trm7dfhrc2v0clambda4nbp0g81',
        receivedAt: '2026-03-02T10:15:30.123Z',
        recipients: ['reply@inbound.acme.io'],
        verdicts: { spam: 'PASS', virus: 'PASS', spf: 'PASS', dkim: 'GRAY', dmarc: 'PASS' },
      },
    ]);
    // The job's own schema accepts it, and it carries nothing of the message's headers or body.
    const message = messages![0]!;
    expect(inboundReceivedJobMessage.schema.safeParse(message).success).toBe(true);
    expect(JSON.stringify(message)).not.toContain('Re: Hello');
  });

  it('keeps only the verdicts SES gave', () => {
    const body = receivedNotification();
    const { spfVerdict: _spf, dkimVerdict: _dkim, dmarcVerdict: _dmarc, ...receipt } = body.receipt;
    const [message] = inboundNormalizer({ ...body, receipt })!;
    expect((message as unknown as { verdicts: unknown }).verdicts).toEqual({ spam: 'PASS', virus: 'PASS' });
  });

  it('leaves other bodies to the other normalizers', () => {
    const body = receivedNotification();
    // An SNS action's notification (the message inside) is not the rule's; nor are other shapes.
    expect(
      inboundNormalizer({ ...body, receipt: { ...body.receipt, action: { type: 'SNS' } }, content: 'x' }),
    ).toBeUndefined();
    expect(inboundNormalizer({ ...body, notificationType: 'Bounce' })).toBeUndefined();
    expect(inboundNormalizer({ eventType: 'Delivery', mail: { messageId: 'm' } })).toBeUndefined();
    expect(inboundNormalizer({ type: 'import.run' })).toBeUndefined();
    for (const odd of [null, 'Received', [body], 42]) expect(inboundNormalizer(odd)).toBeUndefined();
    // And the SES event normalizer leaves received mail alone: the worker picks this one.
    expect(sesEventNormalizer(body)).toBeUndefined();
    const picked = allNormalizers.map((n) => n(body)).filter((m) => m !== undefined);
    expect(picked).toEqual([inboundNormalizer(body)]);
  });

  it('makes a notification missing a field a message the job refuses (dead-lettered, not guessed at)', () => {
    const body = receivedNotification();
    const { recipients: _recipients, ...receipt } = body.receipt;
    const messages = inboundNormalizer({ ...body, receipt });
    expect(messages).toHaveLength(1);
    expect(inboundReceivedJobMessage.schema.safeParse(messages![0]).success).toBe(false);
  });
});

describe('the inbound.received job message', () => {
  const valid = inboundNormalizer(receivedNotification())![0] as Record<string, unknown>;
  const { type: _type, ...input } = valid;

  it('names an object under inbound/ only, SES time, and at least one recipient', () => {
    expect(jobMessage(inboundReceivedJobMessage, input as never)).toEqual(valid);
    for (const bad of [
      { key: 'imports/p/1' },
      { key: 'inbound/' },
      { key: '../inbound/x' },
      { receivedAt: 'yesterday' },
      { recipients: [] },
      { messageId: '' },
    ]) {
      expect(
        () => jobMessage(inboundReceivedJobMessage, { ...input, ...bad } as never),
        JSON.stringify(bad),
      ).toThrow(/inbound\.received/);
    }
  });
});
