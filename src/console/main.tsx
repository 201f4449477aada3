import { render } from 'preact';
import { App } from './app.js';

const settings = await fetch('/console-settings.json', { cache: 'no-store' })
  .then((r) => r.json() as Promise<{ idle_minutes: number }>)
  .catch(() => ({ idle_minutes: 15 }));
render(<App idleMinutes={settings.idle_minutes} />, document.getElementById('app')!);
