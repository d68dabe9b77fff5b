/**
 * What the core refuses of a business calendar when it checks a package (compat-core-validators.md §11,
 * `Calendar.from_spec`): its time zone, its years and their days, and its working hours.
 */
import { calendarProblems } from '../domain/calendar.js';
import { domainCode, reportProblems } from '../domain/report.js';
import { defineObjectRule } from '../rule.js';

const core = { core: true };

export const calendarStatics = defineObjectRule({
  id: 'calendars/core',
  description: 'A calendar has an IANA time zone, one entry per year with days of that year, and ordered working hours.',
  codes: {
    unknown_timezone: domainCode('The time zone of a calendar is not in the IANA database (names are case-sensitive).', core),
    duplicate_calendar_year: domainCode('A calendar lists the same year twice.', core),
    calendar_date_outside_year: domainCode('A holiday, moved working day or short day of a year entry is not in that year.', core),
    calendar_day_conflict: domainCode('A day is both a holiday and a moved working day of a calendar.', core),
    invalid_working_hours: domainCode('Working hours are refused: a day without interval, a time not HH:MM up to 24:00, intervals out of order or overlapping, a weekday not 1..7, a short-day reduction not in whole minutes.', core),
  },
  subjects: ['Calendar'],
  checkObject(context, calendar) {
    reportProblems(context, calendar, calendarProblems(calendar.spec));
  },
});
