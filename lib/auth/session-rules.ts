/** Rules of the signed-in session's settings. */

/** An IANA zone name the runtime knows, or '' for browser-local. */
export function isValidTimezone(zone: string): boolean {
  if (zone === '') return true;
  if (!/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(zone)) return false;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}
