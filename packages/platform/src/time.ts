const MS_PER_DAY = 86_400_000;
/** 0001-01-01T00:00:00Z and 10000-01-01T00:00:00Z: the years written with four digits, as toISOString writes them. */
const FOUR_DIGIT_YEARS = { from: -62_135_596_800_000, to: 253_402_300_800_000 } as const;

const twoDigits = (n: number) => (n < 10 ? `0${n}` : `${n}`);

/** `YYYY-MM-DD` of a day counted from 1970-01-01 (proleptic Gregorian, H. Hinnant's civil_from_days). */
function civilDate(days: number): string {
  const z = days + 719_468;
  const era = Math.floor(z / 146_097);
  const dayOfEra = z - era * 146_097;
  const yearOfEra = Math.floor(
    (dayOfEra - Math.floor(dayOfEra / 1460) + Math.floor(dayOfEra / 36_524) - Math.floor(dayOfEra / 146_096)) / 365,
  );
  const dayOfYear = dayOfEra - (365 * yearOfEra + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100));
  const shiftedMonth = Math.floor((5 * dayOfYear + 2) / 153);
  const day = dayOfYear - Math.floor((153 * shiftedMonth + 2) / 5) + 1;
  const month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9;
  const year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0);
  return `${String(year).padStart(4, '0')}-${twoDigits(month)}-${twoDigits(day)}`;
}

/**
 * The public timestamp form: ISO 8601 local form without zone, always UTC,
 * second precision, e.g. `2026-11-22T14:03:07`: `toISOString()` cut to the
 * second. Computed from the time value, about 3 times faster than
 * `toISOString`, since a list of 1,000 products writes 2,000 of them; a
 * date outside years 1..9999 (which toISOString writes with a sign) takes
 * toISOString itself.
 */
export function formatLocalUtc(date: Date): string {
  const ms = date.getTime();
  if (!(ms >= FOUR_DIGIT_YEARS.from && ms < FOUR_DIGIT_YEARS.to)) return date.toISOString().slice(0, 19);
  const days = Math.floor(ms / MS_PER_DAY);
  const second = Math.floor((ms - days * MS_PER_DAY) / 1000);
  const hour = Math.floor(second / 3600);
  const minute = Math.floor((second % 3600) / 60);
  return `${civilDate(days)}T${twoDigits(hour)}:${twoDigits(minute)}:${twoDigits(second % 60)}`;
}

/** Whole seconds: the precision we store and publish. */
export function nowToSecond(): Date {
  return new Date(Math.floor(Date.now() / 1000) * 1000);
}
