/**
 * The `test` every spec uses: a page that fails the test on an uncaught exception or on an error
 * the dashboard itself logs (its handlers log instead of dropping the live stream), or on anything the
 * server's Content-Security-Policy blocks.
 */
import { expect, test as base } from '@playwright/test';

export const test = base.extend<{ failOnPageErrors: void }>({
  failOnPageErrors: [
    async ({ page }, use) => {
      const errors: string[] = [];
      page.on('pageerror', (e) => errors.push(`uncaught: ${e.message}`));
      page.on('console', (m) => {
        if (m.type() === 'error' && m.text().startsWith('workload-map:')) errors.push(m.text());
        // The server's Content-Security-Policy must allow everything the dashboard itself runs.
        if (/Content Security Policy/i.test(m.text())) errors.push(`CSP: ${m.text()}`);
      });
      await use();
      expect(errors, 'errors in the page').toEqual([]);
    },
    { auto: true },
  ],
});

export { expect };
