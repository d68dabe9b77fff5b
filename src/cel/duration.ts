/**
 * Durations of the `cp/1` profile: `duration('P3D')` takes ISO 8601 (weeks, days, hours, minutes, seconds —
 * no years or months, whose length depends on the date), and, as standard CEL does, Go-style text (`'1h30m'`).
 */

const ISO = /^([+-])?P(?:(\d+(?:\.\d+)?)W)?(?:(\d+(?:\.\d+)?)D)?(?:T(?:(\d+(?:\.\d+)?)H)?(?:(\d+(?:\.\d+)?)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;
const ISO_CALENDAR_UNITS = /^[+-]?P(?:\d+(?:\.\d+)?Y)?(?:\d+(?:\.\d+)?M)?/;
const GO_PART = /(\d+\.?\d*|\.\d+)(ns|us|µs|ms|s|m|h)/y;
const GO_UNIT_MS: Record<string, number> = { ns: 1e-6, us: 1e-3, µs: 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
const ISO_UNIT_MS = [7 * 86_400_000, 86_400_000, 3_600_000, 60_000, 1000];

/** Milliseconds of a duration text, or a sentence saying why it is not one. */
export function parseDuration(text: string): { milliseconds: number } | { error: string } {
  const iso = ISO.exec(text);
  if (iso !== null && text !== 'P' && !text.endsWith('T')) {
    let total = 0;
    for (let i = 0; i < ISO_UNIT_MS.length; i++) total += Number(iso[i + 2] ?? 0) * ISO_UNIT_MS[i];
    return { milliseconds: iso[1] === '-' ? -total : total };
  }
  if (/^[+-]?P/.test(text)) {
    const calendarUnits = ISO_CALENDAR_UNITS.exec(text);
    return calendarUnits !== null && calendarUnits[0].length > text.indexOf('P') + 1
      ? { error: `duration '${text}' counts years or months, whose length depends on the date — use days or cal.* functions` }
      : { error: `'${text}' is not an ISO 8601 duration such as 'P3D' or 'PT4H'` };
  }
  return parseGoDuration(text);
}

function parseGoDuration(text: string): { milliseconds: number } | { error: string } {
  const body = text.replace(/^[+-]/, '');
  const invalid = { error: `'${text}' is not a duration such as 'P3D', 'PT4H' or '90m'` };
  if (body === '') return invalid;
  if (body === '0') return { milliseconds: 0 };
  let total = 0;
  let at = 0;
  while (at < body.length) {
    GO_PART.lastIndex = at;
    const part = GO_PART.exec(body);
    if (part === null) return invalid;
    total += Number(part[1]) * GO_UNIT_MS[part[2]];
    at = GO_PART.lastIndex;
  }
  return { milliseconds: text.startsWith('-') ? -total : total };
}

/** ISO 8601 text of a duration, in days, hours, minutes and seconds (`P1DT2H`, `PT0S`). */
export function formatDuration(milliseconds: number): string {
  const sign = milliseconds < 0 ? '-' : '';
  let rest = Math.abs(milliseconds);
  const days = Math.floor(rest / 86_400_000);
  rest -= days * 86_400_000;
  const hours = Math.floor(rest / 3_600_000);
  rest -= hours * 3_600_000;
  const minutes = Math.floor(rest / 60_000);
  rest -= minutes * 60_000;
  const seconds = rest / 1000;
  const date = days > 0 ? `${days}D` : '';
  const time = `${hours > 0 ? `${hours}H` : ''}${minutes > 0 ? `${minutes}M` : ''}${seconds > 0 ? `${seconds}S` : ''}`;
  if (date === '' && time === '') return 'PT0S';
  return `${sign}P${date}${time === '' ? '' : `T${time}`}`;
}
