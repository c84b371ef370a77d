import { describe, expect, it } from 'vitest';
import { CATALOGUE, DEFAULT_LANGUAGE } from '../../../shared/i18n/catalogue';
import { languageOf, languageOfAcceptLanguage, messagesOf } from '../../../shared/i18n/locale';

describe('the message catalogue', () => {
  it('ships English, French, German, Spanish, Portuguese, Italian and Dutch', () => {
    expect(Object.keys(CATALOGUE).sort()).toEqual(['de', 'en', 'es', 'fr', 'it', 'nl', 'pt']);
    expect(DEFAULT_LANGUAGE).toBe('en');
  });

  it('has every key of English in every language, none empty, none left in English', () => {
    const en = CATALOGUE.en!;
    for (const [tag, messages] of Object.entries(CATALOGUE)) {
      expect(Object.keys(messages).sort(), tag).toEqual(Object.keys(en).sort());
      for (const [key, text] of Object.entries(messages)) {
        expect(text.trim(), `${tag}.${key}`).not.toBe('');
        // Address placeholders survive translation.
        expect(text.includes('{email}'), `${tag}.${key}`).toBe(
          en[key as keyof typeof en].includes('{email}'),
        );
      }
      // A translation is a translation: its sentences differ from English's.
      if (tag !== 'en')
        for (const key of ['footer', 'titleManage', 'linkInvalid'] as const)
          expect(messages[key]).not.toBe(en[key]);
    }
  });
});

describe('languageOf (a contact data.locale)', () => {
  it.each([
    ['fr', 'fr'],
    ['FR', 'fr'],
    ['fr-CA', 'fr'],
    ['pt-BR', 'pt'],
    ['de-Latn-DE', 'de'],
    ['nl-BE', 'nl'],
    ['es-419', 'es'],
    ['it', 'it'],
    ['en-GB', 'en'],
    ['ja', 'en'],
    ['zz-not a tag', 'en'],
    ['', 'en'],
  ])('%j is %s', (tag, language) => {
    expect(languageOf(tag)).toBe(language);
  });

  it('is English for a value that is not a string, or none', () => {
    for (const value of [undefined, null, 42, true, ['fr'], { fr: 1 }]) expect(languageOf(value)).toBe('en');
  });
});

describe('languageOfAcceptLanguage', () => {
  it.each([
    [undefined, 'en'],
    ['', 'en'],
    ['de-DE,de;q=0.9,en;q=0.8', 'de'],
    ['ja,fr;q=0.5,en;q=0.4', 'fr'],
    ['en;q=0.2, nl;q=0.9', 'nl'],
    ['*', 'en'],
    ['fr;q=0, es', 'es'],
    ['pt-BR;q=0.7, it;q=0.7', 'pt'],
    ['garbage;;;', 'en'],
  ])('%j is %s', (header, language) => {
    expect(languageOfAcceptLanguage(header)).toBe(language);
  });
});

describe('messagesOf', () => {
  it('answers English for a language the catalogue does not have', () => {
    expect(messagesOf('ja')).toBe(CATALOGUE.en);
    expect(messagesOf('fr')).toBe(CATALOGUE.fr);
  });
});
