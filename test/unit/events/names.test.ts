import { describe, expect, it } from 'vitest';
import { eventNameSchema, isReservedEventName, MAX_EVENT_NAME_LENGTH } from '../../../shared/events/names';
import { referencesEvent } from '../../../shared/events/service';

describe('reserved event names', () => {
  it.each([
    'email.sent',
    'email.delivered',
    'email.bounced',
    'email.anything.else',
    'Email.Opened',
    'EMAIL.CLICKED',
    'contact.subscribed',
    'CONTACT.UNSUBSCRIBED',
    'segment.vip.entry',
    'segment.vip.exit',
    'Segment.Big-Spenders.Entry',
    'segment.a.b.exit',
    ' email.sent ',
  ])('%j is reserved', (name) => {
    expect(isReservedEventName(name)).toBe(true);
  });

  it.each([
    'email',
    'emails.sent',
    'my.email.sent',
    'contact.subscribed.twice',
    'contact.created',
    'segment.vip',
    'segment..entry',
    'segment.vip.entered',
    'signup',
  ])('%j is not reserved', (name) => {
    expect(isReservedEventName(name)).toBe(false);
  });
});

describe('event name shape', () => {
  it('trims and accepts 1 to 100 characters, unicode included', () => {
    expect(eventNameSchema.parse('  Purchase Completed ')).toBe('Purchase Completed');
    expect(eventNameSchema.parse('n'.repeat(MAX_EVENT_NAME_LENGTH))).toHaveLength(100);
    expect(eventNameSchema.parse('achat effectué ✓')).toBe('achat effectué ✓');
  });

  it.each([[''], ['   '], ['n'.repeat(101)], ['tab\there'], ['nul\u0000'], [42]])('refuses %j', (value) => {
    expect(eventNameSchema.safeParse(value).success).toBe(false);
  });
});

describe('references to an event in definitions', () => {
  const tree = (field: string) => ({
    logic: 'OR',
    groups: [{ filters: [{ field, operator: 'triggered' }] }],
  });

  it('finds event.<name> filters at any depth and eventName settings', () => {
    expect(referencesEvent(tree('event.signup'), 'signup')).toBe(true);
    expect(referencesEvent({ steps: [{ config: { condition: tree('event.signup') } }] }, 'signup')).toBe(
      true,
    );
    expect(referencesEvent({ triggerConfig: { eventName: 'signup' } }, 'signup')).toBe(true);
    expect(referencesEvent({ config: { eventName: 'segment.vip.entry' } }, 'segment.vip.entry')).toBe(true);
  });

  it('matches the exact name only', () => {
    expect(referencesEvent(tree('event.signup.done'), 'signup')).toBe(false);
    expect(referencesEvent(tree('event.Signup'), 'signup')).toBe(false);
    expect(referencesEvent(tree('data.signup'), 'signup')).toBe(false);
    expect(referencesEvent({ triggerConfig: { eventName: 'signups' } }, 'signup')).toBe(false);
    expect(referencesEvent({ name: 'signup' }, 'signup')).toBe(false);
  });
});
