/** What the console shows of a certificate: read from its DER in the browser (the server checks it again). */
export interface CertificateSummary {
  subject: string;
  issuer: string;
  notBefore: Date;
  notAfter: Date;
  /** SHA-256 of the DER, colon-separated hex; absent where the page has no Web Crypto (an insecure context). */
  sha256?: string;
}

interface Node {
  tag: number;
  /** Start and end of the contents. */
  start: number;
  end: number;
}

/** One DER element at `at` (definite lengths only, as DER has). */
function read(der: Uint8Array, at: number): Node {
  const tag = der[at]!;
  let length = der[at + 1]!;
  let start = at + 2;
  if (length & 0x80) {
    const bytes = length & 0x7f;
    if (bytes < 1 || bytes > 4) throw new Error('unsupported DER length');
    length = 0;
    for (let i = 0; i < bytes; i++) length = length * 256 + der[start + i]!;
    start += bytes;
  }
  if (start + length > der.length) throw new Error('truncated DER');
  return { tag, start, end: start + length };
}

function children(der: Uint8Array, node: Node): Node[] {
  const out: Node[] = [];
  for (let at = node.start; at < node.end; ) {
    const child = read(der, at);
    out.push(child);
    at = child.end;
  }
  return out;
}

function oid(der: Uint8Array, node: Node): string {
  const bytes = der.subarray(node.start, node.end);
  const parts = [Math.floor(bytes[0]! / 40), bytes[0]! % 40];
  let value = 0;
  for (const b of bytes.subarray(1)) {
    value = value * 128 + (b & 0x7f);
    if (!(b & 0x80)) {
      parts.push(value);
      value = 0;
    }
  }
  return parts.join('.');
}

const NAMES: Record<string, string> = {
  '2.5.4.3': 'CN',
  '2.5.4.6': 'C',
  '2.5.4.7': 'L',
  '2.5.4.8': 'ST',
  '2.5.4.10': 'O',
  '2.5.4.11': 'OU',
  '1.2.840.113549.1.9.1': 'emailAddress',
};

/** A Name as RFC 2253 writes it: most specific first. */
function name(der: Uint8Array, node: Node): string {
  const rdns = children(der, node).map((set) =>
    children(der, set)
      .map((pair) => {
        const [type, value] = children(der, pair);
        const text = new TextDecoder().decode(der.subarray(value!.start, value!.end));
        const key = NAMES[oid(der, type!)] ?? oid(der, type!);
        return `${key}=${text.replace(/([,+"\\<>;])/g, '\\$1')}`;
      })
      .join('+'),
  );
  return rdns.reverse().join(',');
}

function time(der: Uint8Array, node: Node): Date {
  const text = new TextDecoder().decode(der.subarray(node.start, node.end));
  // UTCTime (0x17): YYMMDDHHMMSSZ, years 1950..2049; GeneralizedTime (0x18): YYYYMMDDHHMMSSZ.
  const full = node.tag === 0x17 ? `${Number(text.slice(0, 2)) >= 50 ? '19' : '20'}${text}` : text;
  const [y, mo, d, h, mi, s] = [0, 4, 6, 8, 10, 12].map((i, k) => Number(full.slice(i, k === 0 ? 4 : i + 2)));
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}

/** The DER of every certificate in a PEM text (a bundle holds several); an empty array for a block that is not base64. */
export function pemBlocks(pem: string): Uint8Array[] {
  const blocks = pem.match(/-----BEGIN CERTIFICATE-----[\s\S]*?-----END CERTIFICATE-----/g) ?? [];
  return blocks.map((block) => {
    try {
      return Uint8Array.from(atob(block.replace(/-----[A-Z ]+-----|\s/g, '')), (c) => c.charCodeAt(0));
    } catch {
      return new Uint8Array();
    }
  });
}

export async function summarize(der: Uint8Array): Promise<CertificateSummary> {
  const certificate = read(der, 0);
  const tbs = children(der, children(der, certificate)[0]!);
  const fields = tbs[0]!.tag === 0xa0 ? tbs.slice(1) : tbs; // [0] version is optional
  const [, , issuer, validity, subject] = fields;
  const [notBefore, notAfter] = children(der, validity!);
  let sha256: string | undefined;
  if (globalThis.crypto?.subtle) {
    const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', der.slice()));
    sha256 = [...digest].map((b) => b.toString(16).padStart(2, '0').toUpperCase()).join(':');
  }
  return {
    subject: name(der, subject!),
    issuer: name(der, issuer!),
    notBefore: time(der, notBefore!),
    notAfter: time(der, notAfter!),
    sha256,
  };
}
