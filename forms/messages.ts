/**
 * The default sentences a form shows under a field, in one place. A sender's own words
 * (`errorMessages: {required, invalid}` on the property) always come first; these are the fallback.
 * `required` is the sentence for a missing value, everything else is a broken shape (`invalid`).
 */
export const MESSAGES = {
  required: 'This field is required.',
  chooseOne: 'Choose at least one option.',
  email: 'Enter a valid email address',
  date: 'Enter a valid date, such as 2025-03-31.',
  dateMin: (min: string) => `Enter a date on or after ${min}.`,
  dateMax: (max: string) => `Enter a date on or before ${max}.`,
  dateTime: 'Enter a valid date and time.',
  uri: 'Enter a valid URL, such as https://example.com.',
  number: 'Enter a number.',
  integer: 'Enter a whole number.',
  min: (min: string) => `Enter a number of at least ${min}.`,
  max: (max: string) => `Enter a number of at most ${max}.`,
  minLength: (n: number) => `Enter at least ${n} ${n === 1 ? 'character' : 'characters'}.`,
  maxLength: (n: number) => `Enter at most ${n} ${n === 1 ? 'character' : 'characters'}.`,
  json: 'Enter valid JSON.',
  /** Shown at the top of a form when the server refuses an answer without naming a field. */
  refused: 'The answer was not accepted.',
} as const;
