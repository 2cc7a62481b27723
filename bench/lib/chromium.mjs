// Debian's Chromium under Playwright for the browser benchmarks (the same flags as test/helpers/chromium.ts).
import fs from 'node:fs';

export const CHROMIUM = process.env.WINDECK_CHROMIUM ?? '/usr/bin/chromium';

/** Launch headless Chromium; throws with the install command when it is missing. */
export async function launchChromium() {
  if (!fs.existsSync(CHROMIUM)) throw new Error(`Chromium not found at ${CHROMIUM}: apt-get install -y chromium`);
  const { chromium } = await import('playwright-core');
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
    ],
  });
}
