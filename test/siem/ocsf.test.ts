import { describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../src/event-log/event-types.js';
import { ocsfOf } from '../../src/siem/ocsf.js';
import type { SiemEvent } from '../../src/siem/siem-event.js';

const product = { version: '1.4.2' };

function event(fields: Partial<SiemEvent> & Pick<SiemEvent, 'type'>): SiemEvent {
  return {
    id: '6f1c2a9e-8d0b-4b7e-9a57-0c2f4f1d3e10',
    node: 'tessera-1:4242',
    time: '2024-05-01T10:00:00.123Z',
    severity: fields.outcome === 'failure' ? 'WARNING' : 'INFO',
    ...fields,
  };
}

/** Every path to a value that is undefined, at any depth. */
function undefinedPaths(value: unknown, path = '$'): string[] {
  if (value === undefined) return [path];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([k, v]) => undefinedPaths(v, `${path}.${k}`));
}

const classOf = (o: Record<string, unknown>) => [o.class_uid, o.activity_id, o.type_uid, o.status_id];

describe('ocsfOf: an event as OCSF 1.1.0 has it', () => {
  it('a login that passed: Authentication Logon, success, who from where, how, and the header every event has', () => {
    const o = ocsfOf(
      event({
        type: 'authorize',
        outcome: 'success',
        actor_uid: 7,
        actor: 'alice',
        uid: 7,
        username: 'alice',
        realm: 'sso',
        mfa: 'totp',
        ip: '203.0.113.9',
        request_id: 'req-12',
      }),
      product,
    );
    expect(classOf(o)).toEqual([3002, 1, 300201, 1]);
    expect(o).toMatchObject({
      class_name: 'Authentication',
      category_uid: 3,
      category_name: 'Identity & Access Management',
      activity_name: 'Logon',
      type_name: 'Authentication: Logon',
      severity_id: 1,
      severity: 'Informational',
      status: 'Success',
      time: Date.parse('2024-05-01T10:00:00.123Z'),
      metadata: {
        version: '1.1.0',
        uid: '6f1c2a9e-8d0b-4b7e-9a57-0c2f4f1d3e10',
        product: { name: 'Tessera', vendor_name: 'Tessera', version: '1.4.2' },
        original_time: '2024-05-01T10:00:00.123Z',
        correlation_uid: 'req-12',
      },
      actor: { user: { uid: '7', name: 'alice' } },
      user: { uid: '7', name: 'alice' },
      src_endpoint: { ip: '203.0.113.9' },
      device: { type_id: 1, name: 'tessera-1:4242' },
      auth_protocol_id: 5,
      auth_protocol: 'SAML',
      is_mfa: true,
    });
    expect(o.time).toBe(1714557600123);
    // What OCSF has no place for stays, under Tessera's names; what it placed does not repeat.
    expect(o.unmapped).toEqual({ type: 'authorize', realm: 'sso', mfa: 'totp' });
  });

  it('a refused login: Logon, failure, the reason as status_detail, a Low severity, no actor', () => {
    const o = ocsfOf(
      event({
        type: 'authorize',
        outcome: 'failure',
        username: 'mallory',
        reason: 'invalid_credentials',
        realm: 'local',
      }),
      product,
    );
    expect(classOf(o)).toEqual([3002, 1, 300201, 2]);
    expect(o).toMatchObject({ status: 'Failure', status_detail: 'invalid_credentials', severity_id: 2 });
    expect(o.user).toEqual({ name: 'mallory' });
    expect(o).toMatchObject({ auth_protocol_id: 99, auth_protocol: 'Password' });
    expect(o).not.toHaveProperty('actor');
    expect(o).not.toHaveProperty('is_mfa'); // refused before any second factor: not known
  });

  it('a refused certificate names its subject as the user', () => {
    const subject = 'CN=svc,O=Example';
    const o = ocsfOf(event({ type: 'authenticate', outcome: 'failure', subject, reason: 'unknown_subject' }), product);
    expect(classOf(o)).toEqual([3002, 1, 300201, 2]);
    expect(o.user).toEqual({ name: subject });
    expect(o.unmapped).toMatchObject({ subject });
  });

  it('a logout is a Logoff; a refresh is Other, never a second Logon', () => {
    const who = { actor_uid: 7, actor: 'alice', uid: 7, username: 'alice' };
    expect(classOf(ocsfOf(event({ type: 'logout', outcome: 'success', ...who }), product))).toEqual([
      3002, 2, 300202, 1,
    ]);
    const refresh = ocsfOf(event({ type: 'refresh', outcome: 'success', ...who }), product);
    expect(classOf(refresh)).toEqual([3002, 99, 300299, 1]);
    expect(refresh).toMatchObject({ activity_name: 'Refresh', type_name: 'Authentication: Other' });
  });

  it('user_created: Account Change Create, the admin as actor, the new account as user', () => {
    const o = ocsfOf(
      event({ type: 'user_created', outcome: 'success', actor_uid: 1, actor: 'root', uid: 9, username: 'bob' }),
      product,
    );
    expect(classOf(o)).toEqual([3001, 1, 300101, 1]);
    expect(o).toMatchObject({
      class_name: 'Account Change',
      activity_name: 'Create',
      actor: { user: { uid: '1', name: 'root' } },
      user: { uid: '9', name: 'bob' },
    });
  });

  it('a password set by its user is a Password Change; by an admin or the CLI, a Password Reset', () => {
    const self = ocsfOf(
      event({ type: 'password_change', outcome: 'success', actor_uid: 9, actor: 'bob', uid: 9, username: 'bob' }),
      product,
    );
    expect(classOf(self)).toEqual([3001, 3, 300103, 1]);
    expect(self.activity_name).toBe('Password Change');
    const admin = ocsfOf(
      event({ type: 'password_change', outcome: 'success', actor_uid: 1, actor: 'root', uid: 9, username: 'bob' }),
      product,
    );
    expect(classOf(admin)).toEqual([3001, 4, 300104, 1]);
    expect(admin.activity_name).toBe('Password Reset');
    const cli = ocsfOf(
      event({ type: 'password_change', outcome: 'success', uid: 9, username: 'bob', ip: 'local' }),
      product,
    );
    expect(cli.activity_id).toBe(4);
    expect(cli).not.toHaveProperty('src_endpoint'); // "local" is no address
    expect(cli.unmapped).toMatchObject({ ip: 'local' });
  });

  it('mfa_enrol is MFA Factor Enable; a lockout is Lock, with no actor', () => {
    const enrol = ocsfOf(
      event({
        type: 'mfa_enrol',
        outcome: 'success',
        actor_uid: 9,
        actor: 'bob',
        uid: 9,
        username: 'bob',
        target: 'mfa_factor 3 (totp)',
      }),
      product,
    );
    expect(classOf(enrol)).toEqual([3001, 10, 300110, 1]);
    expect(enrol.activity_name).toBe('MFA Factor Enable');
    expect(enrol.unmapped).toMatchObject({ target: 'mfa_factor 3 (totp)' });
    const lockout = ocsfOf(event({ type: 'lockout', outcome: 'success', uid: 9, username: 'bob' }), product);
    expect(classOf(lockout)).toEqual([3001, 9, 300109, 1]);
    expect(lockout).toMatchObject({ activity_name: 'Lock', user: { uid: '9', name: 'bob' } });
    expect(lockout).not.toHaveProperty('actor');
  });

  it('cluster_updated: Entity Management Update of the cluster settings, what changed in unmapped', () => {
    const o = ocsfOf(
      event({
        type: 'cluster_updated',
        outcome: 'success',
        actor_uid: 1,
        actor: 'root',
        target: 'policy',
        changes: ['min_length', 'lockout_threshold'],
      }),
      product,
    );
    expect(classOf(o)).toEqual([3004, 3, 300403, 1]);
    expect(o).toMatchObject({
      class_name: 'Entity Management',
      activity_name: 'Update',
      entity: { type: 'Cluster Settings', name: 'policy' },
      actor: { user: { uid: '1', name: 'root' } },
    });
    expect(o.unmapped).toMatchObject({ type: 'cluster_updated', changes: ['min_length', 'lockout_threshold'] });
  });

  it("the event log's own losses: a Base Event of Medium severity, the count lost in unmapped", () => {
    const o = ocsfOf(event({ type: 'events_dropped', outcome: 'failure', count: 120 }), product);
    expect(classOf(o)).toEqual([0, 99, 99, 2]);
    expect(o).toMatchObject({ activity_name: 'Events Dropped', severity_id: 3, severity: 'Medium' });
    expect(o).not.toHaveProperty('count');
    expect(o).not.toHaveProperty('device'); // Base Event has none: the node goes to unmapped
    expect(o.unmapped).toMatchObject({ count: 120, node: 'tessera-1:4242' });
  });

  it("a folded repeat's count is OCSF's count", () => {
    const o = ocsfOf(event({ type: 'authorize', outcome: 'failure', username: 'mallory', count: 40 }), product);
    expect(o.count).toBe(40);
    expect(o.unmapped).not.toHaveProperty('count');
  });

  it('a CLI line has no correlation id: "cli" would tie every CLI line together', () => {
    const o = ocsfOf(
      event({ type: 'key_rotate', outcome: 'success', target: 'signing_key k2', request_id: 'cli' }),
      product,
    );
    expect(o.metadata).not.toHaveProperty('correlation_uid');
    expect(o).toMatchObject({
      class_uid: 3004,
      activity_id: 1,
      entity: { type: 'Signing Key', name: 'signing_key k2' },
    });
  });

  it('every type of the event log and the SIEM sinks has its class; type_uid is always class_uid * 100 + activity_id; nothing is undefined', () => {
    const types = [...EVENT_TYPES, 'siem_sink_failed', 'siem_sink_recovered'];
    for (const type of types) {
      for (const outcome of ['success', 'failure'] as const) {
        const o = ocsfOf(event({ type, outcome, uid: 2, username: 'carol', actor: undefined, ip: 'local' }), product);
        expect(undefinedPaths(o), type).toEqual([]);
        expect(o.type_uid, type).toBe((o.class_uid as number) * 100 + (o.activity_id as number));
        expect([3001, 3002, 3004, 0], type).toContain(o.class_uid);
        if (o.class_uid === 0) expect(['events_dropped', 'siem_sink_failed', 'siem_sink_recovered']).toContain(type);
        if (o.activity_id === 99) expect(o.activity_name, type).not.toBe('Other');
        expect(JSON.parse(JSON.stringify(o)), type).toEqual(o);
      }
    }
  });

  it('an unknown type is a Base Event named after it, and a prototype name is no activity', () => {
    for (const type of ['something_new', 'constructor']) {
      const o = ocsfOf(event({ type, outcome: 'success' }), product);
      expect(o).toMatchObject({ class_uid: 0, activity_id: 99, activity_name: type });
    }
  });
});
