/**
 * Debian's Chromium, headless, started by the test that needs it (playwright-core drives it; no browser is
 * ever downloaded). A missing /usr/bin/chromium fails the suite with the way to install it.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export async function startChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`no browser at ${CHROMIUM}: install Debian's chromium (apt-get install -y chromium)`);
  // Playwright gives the browser a fresh user data dir of its own, and removes it on close.
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A page that records every script error, console error and request that leaves it. */
export async function watchedPage(browser: Browser): Promise<{ page: Page; errors: string[]; requests: string[] }> {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  const errors: string[] = [];
  const requests: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('request', (request) => {
    if (!request.url().startsWith('data:') && request.url() !== 'about:blank') requests.push(request.url());
  });
  return { page, errors, requests };
}

/** Mermaid's own parser (its browser build), loaded into `page`: `parse(text)` resolves, or rejects with its message. */
export async function withMermaid(page: Page): Promise<(text: string) => Promise<string | undefined>> {
  const bundle = createRequire(import.meta.url).resolve('mermaid/dist/mermaid.min.js');
  await page.setContent('<!DOCTYPE html><html><body></body></html>');
  await page.addScriptTag({ content: readFileSync(bundle, 'utf8') });
  await page.evaluate(() => (globalThis as unknown as { mermaid: { initialize(config: object): void } }).mermaid.initialize({ startOnLoad: false }));
  return (text) => page.evaluate(async (source) => {
    try {
      await (globalThis as unknown as { mermaid: { parse(text: string): Promise<unknown> } }).mermaid.parse(source);
      return undefined;
    } catch (error) {
      return String((error as Error).message);
    }
  }, text);
}
