import { chromium, type Browser } from 'playwright-core';

/**
 * Launches Debian's Chromium headless for browser tests (playwright-core drives it; no bundled browser is
 * downloaded). `CHROMIUM_PATH` points elsewhere. The flags keep it quiet and offline apart from the test's pages.
 */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
