/**
 * Today's date in Madrid as the API writes fechaExpedicion (dd-mm-yyyy), for tests that issue to a
 * running engine on the system clock. Worked out here with Intl, apart from the engine's own code.
 */
export function todayInMadrid(): string {
  const p = new Intl.DateTimeFormat('en-GB', { timeZone: 'Europe/Madrid', day: '2-digit', month: '2-digit', year: 'numeric' }).format(new Date());
  return p.replaceAll('/', '-');
}
