/** PUT /api/auth/me: the timezone is an IANA zone name, or the empty string for browser-local (spec: Auth and SSO). */
import { isValidTimezone } from '../../../lib/auth/session-rules';

describe('isValidTimezone', () => {
  it('takes the empty string as browser-local', () => {
    expect(isValidTimezone('')).toBe(true);
  });

  it.each(['UTC', 'Europe/Berlin', 'America/Argentina/Buenos_Aires', 'America/Port-au-Prince', 'Etc/GMT+5'])(
    'takes the IANA zone %s',
    (zone) => {
      expect(isValidTimezone(zone)).toBe(true);
    },
  );

  it.each(['Mars/Olympus_Mons', 'Europe/Atlantis', 'Not_A_Zone'])('refuses the unknown zone %s', (zone) => {
    expect(isValidTimezone(zone)).toBe(false);
  });

  it.each([' ', ' UTC', 'UTC ', '/UTC', '+05:00', '../../etc/passwd', 'Europe\\Berlin', 'Europe/Berlin\n'])(
    'refuses %j without asking the runtime',
    (zone) => {
      expect(isValidTimezone(zone)).toBe(false);
    },
  );
});
