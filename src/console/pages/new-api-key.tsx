import { useEffect, useId, useState } from 'preact/hooks';
import type { Call } from '../api.js';
import { explain } from '../api.js';
import { Field, Problem, RoleChoice } from '../components.js';
import type { ClusterRole } from '../roles.js';

/** A user's API key as GET /v1/users/{uid}/api_keys answers it: never the key itself. */
export interface ApiKey {
  key_id: string;
  uid: number;
  name: string;
  /** The key's first characters (tsr_ and 8), to tell it apart. */
  prefix: string;
  created: string;
  expires: string;
  /** Absent: every role of its owner. */
  role_uids?: number[];
  /** Absent: from any address. */
  allowed_cidrs?: string[];
  last_used?: string;
}

/** The answer that made a key: the one time `key` is in it. */
export type CreatedKey = ApiKey & { key: string };

/** The lifetime offered first, when the cluster allows as long. */
const DEFAULT_DAYS = 90;

/**
 * A new key of a user: what it is for, how many days it lives (the cluster's
 * api_key_max_lifetime_days at most), optionally some of the user's roles and the addresses it
 * is taken from. The made key goes to `onCreated`, and nowhere else.
 */
export function NewApiKey(props: {
  uid: number;
  who: string;
  /** The roles the user holds: a key acts with some of them, never more. */
  roles: ClusterRole[];
  call: Call;
  onCreated: (key: CreatedKey) => void;
}) {
  const [name, setName] = useState('');
  const [days, setDays] = useState(String(DEFAULT_DAYS));
  const [maxDays, setMaxDays] = useState<number>();
  const [roleUids, setRoleUids] = useState<number[]>([]);
  const [cidrs, setCidrs] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const cidrsId = useId();
  useEffect(() => {
    props.call<{ api_key_max_lifetime_days: number }>('GET', '/v1/cluster').then(
      (c) => {
        setMaxDays(c.api_key_max_lifetime_days);
        setDays((d) => String(Math.min(Number(d), c.api_key_max_lifetime_days)));
      },
      () => undefined, // the server holds the bound all the same, and says it
    );
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    setProblem('');
    const ranges = cidrs
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean);
    setBusy(true);
    try {
      const key = await props.call<CreatedKey>('POST', `/v1/users/${props.uid}/api_keys`, {
        name,
        ttl_days: Number(days),
        ...(roleUids.length > 0 && { role_uids: roleUids }),
        ...(ranges.length > 0 && { allowed_cidrs: ranges }),
      });
      setName('');
      setRoleUids([]);
      setCidrs('');
      props.onCreated(key);
    } catch (err) {
      setProblem(explain(err));
    } finally {
      setBusy(false);
    }
  };
  return (
    <form onSubmit={submit} aria-label={`New API key of ${props.who}`}>
      <h3>New API key</h3>
      <Field label="Key name" value={name} onInput={setName} required autoComplete="off" hint="what it is for" />
      <Field
        label="Lifetime (days)"
        type="number"
        value={days}
        onInput={setDays}
        required
        min={1}
        max={maxDays}
        hint={maxDays ? `1 to ${maxDays} days (the cluster's longest)` : 'the key stops working after it'}
      />
      {props.roles.length > 0 && (
        <RoleChoice
          legend={`Roles of the key (none ticked: the roles ${props.who} holds)`}
          roles={props.roles}
          value={roleUids}
          onChange={setRoleUids}
        />
      )}
      <div class="field wide">
        <label for={cidrsId}>Allowed addresses (optional)</label>
        <textarea
          id={cidrsId}
          rows={2}
          spellcheck={false}
          aria-describedby={`${cidrsId}-hint`}
          value={cidrs}
          onInput={(e) => setCidrs((e.target as HTMLTextAreaElement).value)}
        />
        <small id={`${cidrsId}-hint`} class="hint">
          one a line: 10.0.0.0/8, 2001:db8::/32 or one address; none: from any address
        </small>
      </div>
      <Problem>{problem}</Problem>
      <button type="submit" disabled={busy}>
        Create key
      </button>
    </form>
  );
}
