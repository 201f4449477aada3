import { BlockList, isIP } from 'node:net';
import { InvalidRequestError } from '../errors.js';

/** The most address ranges a key is taken from. */
const MAX_CIDRS = 50;

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, how a dual-stack listener reports one) as IPv4. */
const plain = (address: string) =>
  address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;

/**
 * A key's `allowed_cidrs` as given (`10.0.0.0/8`, `2001:db8::/32`, or one address), checked:
 * each a network and a prefix length that fits it; written back as given, trimmed. 400 names
 * the first that is not one.
 */
export function checkedCidrs(cidrs: readonly string[]): string[] {
  if (cidrs.length > MAX_CIDRS) throw new InvalidRequestError(`allowed_cidrs takes at most ${MAX_CIDRS} ranges`);
  if (cidrs.length === 0)
    throw new InvalidRequestError('allowed_cidrs: give at least one range, or leave it out (null) for any address');
  return cidrs.map((given) => {
    const cidr = given.trim();
    if (!rangeOf(cidr))
      throw new InvalidRequestError(
        `allowed_cidrs: "${given}" is no address range (10.0.0.0/8, 2001:db8::/32, or one address)`,
      );
    return cidr;
  });
}

function rangeOf(cidr: string): { network: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [network = '', length, ...rest] = cidr.split('/');
  const version = isIP(network);
  if (version === 0 || rest.length > 0) return undefined;
  const max = version === 4 ? 32 : 128;
  const prefix = length === undefined ? max : /^\d{1,3}$/.test(length) ? Number(length) : Number.NaN;
  if (!(prefix >= 0 && prefix <= max)) return undefined;
  return { network, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

const lists = new WeakMap<readonly string[], BlockList>();

/** Whether a client address is in one of the ranges (checked ranges: see checkedCidrs). */
export function addressAllowed(cidrs: readonly string[], address: string): boolean {
  const client = plain(address);
  const family = isIP(client);
  if (family === 0) return false;
  let list = lists.get(cidrs);
  if (!list) {
    list = new BlockList();
    for (const cidr of cidrs) {
      const range = rangeOf(cidr);
      if (range) list.addSubnet(range.network, range.prefix, range.family);
    }
    lists.set(cidrs, list);
  }
  try {
    return list.check(client, family === 4 ? 'ipv4' : 'ipv6');
  } catch {
    return false; // an address BlockList does not take (an IPv6 zone id): not in any range
  }
}
