import { chromium, type Browser } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { startTestGateway, type TestGateway } from './gateway.js';

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

/** A browser and a gateway for one test file, started before its tests and closed after them. */
export interface BrowserWorld {
  readonly browser: Browser;
  readonly gw: TestGateway;
}

/**
 * Starts Chromium and a gateway (`start`, default an in-memory one) in the file's `beforeAll` and closes both in its
 * `afterAll`; the returned object's fields are set once the hooks have run.
 */
export function browserWorld(start: () => Promise<TestGateway> = () => startTestGateway()): BrowserWorld {
  const world = {} as { browser: Browser; gw: TestGateway };
  beforeAll(async () => {
    world.browser = await launchBrowser();
    world.gw = await start();
  });
  afterAll(async () => {
    await world.browser?.close();
    await world.gw?.close();
  });
  return world;
}
