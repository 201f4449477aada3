import { constants } from 'node:fs';
import { type FileHandle, mkdir, open, realpath } from 'node:fs/promises';
import path from 'node:path';
import type { SiemEvent } from '../siem-event.js';
import type { Transport } from './transport.js';

/** Appending, made if missing, never through a symbolic link, never waiting for a reader (a FIFO). */
const FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * JSON lines appended to a file of this node, synced before a batch counts as delivered. The file
 * is a regular file in the SIEM file folder (--siem-file-dir): checked again at each opening, its
 * folder's real path included, so that no link leads out of it. Rotation is the system's
 * (logrotate): on SIGHUP the file is opened again by its path.
 */
export class FileTransport implements Transport {
  private file?: Promise<FileHandle>;

  constructor(
    private readonly folder: string,
    private readonly name: string,
    private readonly bodyOf: (event: SiemEvent) => string,
  ) {}

  async send(events: readonly SiemEvent[]): Promise<void> {
    this.file ??= this.open();
    const file = await this.file.catch((err) => {
      this.file = undefined;
      throw err;
    });
    await file.write(events.map((e) => `${this.bodyOf(e)}\n`).join(''));
    await file.datasync();
  }

  private async open(): Promise<FileHandle> {
    await mkdir(this.folder, { recursive: true, mode: 0o700 });
    const target = path.resolve(this.folder, this.name);
    const [base, parent] = await Promise.all([realpath(this.folder), realpath(path.dirname(target))]);
    if (parent !== base && !parent.startsWith(`${base}${path.sep}`))
      throw new Error(`${this.name} is not in the SIEM file folder`);
    const file = await open(target, FLAGS, 0o600);
    if (!(await file.stat()).isFile()) {
      await file.close();
      throw new Error(`${this.name} is not a regular file`);
    }
    return file;
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
