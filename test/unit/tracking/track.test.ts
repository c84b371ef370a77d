import { describe, expect, it } from 'vitest';
import { parseDataPatch } from '../../../shared/contacts/data';
import { AppError } from '../../../shared/errors';
import { parseTrackBody } from '../../../shared/tracking/routes';
import { eventDataOf } from '../../../shared/tracking/service';

const issuesOf = (body: unknown) => {
  try {
    parseTrackBody(body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    return (error as AppError).extra.errors?.map((e) => `${e.field}:${e.code}`);
  }
  throw new Error('expected a validation error');
};

describe('track body', () => {
  it('parses a valid body, trimming the email and the event name', () => {
    const parsed = parseTrackBody({
      email: ' a@b.io ',
      event: ' signup ',
      subscribed: false,
      data: { x: 1 },
    });
    expect(parsed).toMatchObject({ email: 'a@b.io', event: 'signup', subscribed: false });
    expect(parsed.patch.set).toEqual({ x: 1 });
  });

  it('reports a reserved name with code reserved_event, alongside other problems', () => {
    expect(issuesOf({ email: 'a@b.io', event: 'Email.Sent' })).toEqual(['event:reserved_event']);
    expect(issuesOf({ email: 'bad', event: 'contact.subscribed', subscribed: 1 })).toEqual(
      expect.arrayContaining(['email:invalid_string', 'subscribed:invalid_type', 'event:reserved_event']),
    );
  });

  it('refuses a body that is not an object', () => {
    expect(issuesOf(undefined)).toEqual([':invalid_type']);
    expect(issuesOf([])).toEqual([':invalid_type']);
  });

  it('checks data with the custom-data rules', () => {
    expect(issuesOf({ email: 'a@b.io', event: 'e', data: { 'a.b': 1 } })).toEqual(['data.a.b:invalid_key']);
  });
});

describe('event data', () => {
  it('holds every value sent, persistent or not, without removals or empty strings', () => {
    const patch = parseDataPatch({
      plan: 'pro',
      gone: null,
      empty: '',
      coupon: { value: 'X', persistent: false },
      nested: { a: 1, b: { value: 2, persistent: false } },
    });
    expect(eventDataOf(patch)).toEqual({ plan: 'pro', coupon: 'X', nested: { a: 1, b: 2 } });
  });

  it('refuses more than 32 KB', () => {
    const patch = parseDataPatch({ big: { value: 'x'.repeat(33 * 1024), persistent: false } });
    expect(() => eventDataOf(patch)).toThrow(AppError);
  });
});
