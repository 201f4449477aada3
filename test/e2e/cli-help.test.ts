import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

describe('the CLI names itself as it was run', () => {
  it('says `npm run tessera --` in usage lines and examples under `npm run tessera`, `tessera` otherwise', async () => {
    const underNpm = await runCli(['serve', '--help'], { env: { npm_lifecycle_event: 'tessera' } });
    expect(underNpm.stdout).toMatch(/^Usage: npm run tessera -- serve \[options\]/);
    expect(underNpm.stdout).toContain('\n  npm run tessera -- serve --no-tls --listen 127.0.0.1:8080');
    expect(underNpm.stdout).not.toMatch(/(^|\s)tessera serve/);

    const onPath = await runCli(['serve', '--help'], { env: { npm_lifecycle_event: '' } });
    expect(onPath.stdout).toMatch(/^Usage: tessera serve \[options\]/);
    expect(onPath.stdout).toContain('\n  tessera serve --no-tls --listen 127.0.0.1:8080');
  });
});
