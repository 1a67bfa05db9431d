import countries from 'i18n-iso-countries';

/** An ISO 3166-1 alpha-2 country code, upper case (`US`, `DE`); the list is i18n-iso-countries'. */
export function isCountry(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && countries.isValid(code);
}
