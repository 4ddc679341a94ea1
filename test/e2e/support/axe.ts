/** axe-core (pinned in package.json) run in the page: the serious and critical violations of a screen. */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

// Evaluated through the DevTools protocol: the page's CSP (script-src 'self') rightly refuses an inline script tag.
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: string[];
}

export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(`window.axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => n.target.join(' ')).slice(0, 5) })))`)) as AxeViolation[];
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** Every visible input and select whose value does not fit its box (scrollWidth > clientWidth). */
export async function truncatedFields(page: Page): Promise<string[]> {
  return (await page.evaluate(`[...document.querySelectorAll('input, select')]
    .filter((el) => el.offsetParent !== null && el.type !== 'checkbox' && el.type !== 'radio')
    .filter((el) => el.scrollWidth > el.clientWidth)
    .map((el) => (el.getAttribute('data-testid') || el.name || el.id || el.tagName) + ' ' + el.scrollWidth + '>' + el.clientWidth + ' «' + (el.value ?? '') + '»')`)) as string[];
}
