import type { Server } from 'node:tls';

/** The product's `min_control_TLS_version` values, as Node names them. */
export const TLS_VERSIONS = { '1.2': 'TLSv1.2', '1.3': 'TLSv1.3' } as const;

/** What the listener should serve new connections: a certificate and key (PEM), and the lowest TLS version. */
export interface ListenerTls {
  cert: string | Buffer;
  key: string | Buffer;
  minVersion: keyof typeof TLS_VERSIONS;
  /** The cluster's control_cipher_suites (OpenSSL's list); undefined: Node's defaults. */
  ciphers?: string;
  /** What the node started with: served (at the wanted minimum version) when TLS refuses the cluster's certificate. */
  fallback?: { cert: string | Buffer; key: string | Buffer };
}

/** How often a node looks at the stored settings (each read goes through a one-second cache). */
const POLL_MS = 1000;

/**
 * Keeps a TLS listener's certificate, minimum version and ciphers as the cluster's settings say,
 * without a restart: `Server.setSecureContext` changes what NEW connections get; a connection
 * already open keeps the certificate and version it was made with. Applied at once when this
 * node announces a change (`apply`), and by polling for one made on another node.
 */
export class LiveTls {
  private timer?: NodeJS.Timeout;
  private appliedAs?: string;
  private running: Promise<void> = Promise.resolve();
  /** The last fault reported: one that repeats every poll is told once. */
  private lastFault?: string;

  constructor(
    private readonly server: Server,
    /** What to serve now; a rejection leaves the listener as it is (reported to onFault). */
    private readonly wanted: () => Promise<ListenerTls>,
    private readonly onFault: (err: unknown) => void,
  ) {}

  /** Reads what to serve and applies it if it changed; calls run one after another. */
  apply(): Promise<void> {
    this.running = this.running.then(() => this.applyNow());
    return this.running;
  }

  start(): void {
    this.timer ??= setInterval(() => void this.apply(), POLL_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private async applyNow(): Promise<void> {
    try {
      const want = await this.wanted();
      const as = `${TLS_VERSIONS[want.minVersion]}\n${want.ciphers ?? ''}\n${String(want.cert)}\n${String(want.key)}`;
      if (as === this.appliedAs) return;
      const minVersion = TLS_VERSIONS[want.minVersion];
      const ciphers = want.ciphers !== undefined ? { ciphers: want.ciphers } : {};
      try {
        this.server.setSecureContext({ cert: want.cert, key: want.key, minVersion, ...ciphers });
      } catch (err) {
        // The minimum version and ciphers hold all the same: a certificate TLS refuses must not keep weaker ones.
        if (!want.fallback) throw err;
        this.server.setSecureContext({ ...want.fallback, minVersion, ...ciphers });
        this.appliedAs = as;
        throw err;
      }
      this.appliedAs = as;
      this.lastFault = undefined;
    } catch (err) {
      if (String(err) !== this.lastFault) this.onFault(err);
      this.lastFault = String(err);
    }
  }
}
