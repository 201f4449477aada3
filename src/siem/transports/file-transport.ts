import { type FileHandle, open } from 'node:fs/promises';
import type { SiemEvent } from '../siem-event.js';
import type { Transport } from './transport.js';

/**
 * JSON lines appended to a file of this node, synced before a batch counts as delivered.
 * Rotation is the system's (logrotate): on SIGHUP the file is opened again by its path.
 */
export class FileTransport implements Transport {
  private file?: Promise<FileHandle>;

  constructor(
    private readonly path: string,
    private readonly bodyOf: (event: SiemEvent) => string,
  ) {}

  async send(events: readonly SiemEvent[]): Promise<void> {
    this.file ??= open(this.path, 'a', 0o600);
    const file = await this.file.catch((err) => {
      this.file = undefined;
      throw err;
    });
    await file.write(events.map((e) => `${this.bodyOf(e)}\n`).join(''));
    await file.datasync();
  }

  /** Opens the path again at the next batch (after logrotate moved the file away). */
  reopen(): void {
    const file = this.file;
    this.file = undefined;
    void file?.then((f) => f.close()).catch(() => {});
  }

  async close(): Promise<void> {
    this.reopen();
  }
}
