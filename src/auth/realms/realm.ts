import type { RealmName } from '../../access/realm-name.js';
import type { RequestContext } from '../../audit/audit-log.js';
import { type PresentedCertificate, subjectLine } from '../../certs/client-certificate.js';
import type { Deadline } from '../../deadline.js';
import type { DomainError } from '../../errors.js';
import type { User } from '../../users/user.js';

/** What a caller presents to prove who it is, read once from the request. */
export type Proof = PasswordProof | CertificateProof | SamlProof | ApiKeyProof;
export interface PasswordProof {
  kind: 'password';
  /** As typed: a name, an email, a directory name, in any spelling. */
  username: string;
  password: string;
}
/** A password proof of a name as typed. */
export const passwordProof = (username: string, password: string): PasswordProof => ({
  kind: 'password',
  username,
  password,
});

/** An API key (`tsr_…`): as a Bearer credential, or as the password of its owner in Basic credentials (or a 7.4 login's body). */
export interface ApiKeyProof {
  kind: 'api_key';
  key: string;
  /** The name typed beside it (Basic, a login's body): it must be a login of the key's owner. */
  username: string | undefined;
  /** Basic credentials: refused where Basic is (a route that takes a token, a cluster with Basic off). */
  basic: boolean;
  /** The client's address, which the key's allowed_cidrs must take (set by the HTTP layer). */
  ip: string | undefined;
}

export interface CertificateProof {
  kind: 'certificate';
  certificate: PresentedCertificate;
}
/** An identity provider's answer, as the browser posted it (SAMLResponse: base64 XML). */
export interface SamlProof {
  kind: 'saml';
  response: string;
  /** The consumer's path it was posted to: it must be addressed to that one. */
  acsPath: string;
  /** Set by the SSO realm once the answer is verified: the browser whose request it answers (null: nobody's). */
  browserHash?: string | null;
}

/** A realm's yes: who the proof showed the caller to be. */
export interface Success {
  outcome: 'success';
  user: User;
  /** The realm that said so. */
  realm: RealmName;
  /** How long the success may be remembered, when less than the cache's own time (a directory's cache_ttl, a certificate's end; 0: never). */
  rememberMs?: number;
  /** The realm vouches for the name as typed, whichever name of the account it is (a directory's alias of an entry). */
  vouchesForName?: boolean;
  /** What proving it changed of the account (fields, and why): recorded as a change of the user. */
  changed?: { changes: string[]; reason: string };
  /** Answered from credentials verified before (the verified-credentials cache), or by another login's check of the same ones. */
  remembered?: boolean;
  /** Proven by a password: one that has expired is refused (after it was proven right). */
  byPassword?: boolean;
  /** Proven by this API key: `user` has the key's rights (its roles that its owner still holds). */
  apiKeyId?: string;
  /** The proof stands until then (an API key's expiry): no token of it lives longer. */
  until?: Date;
  /** The addresses the proof is taken from (an API key's allowed_cidrs): its tokens are taken from those only. */
  cidrs?: readonly string[];
}

/** What a realm says of a proof. */
export type Verdict =
  | Success
  /** Not this realm's account or kind of proof: the chain asks the next. */
  | { outcome: 'not_mine' }
  | {
      outcome: 'refused';
      /** What the client is told. */
      error: DomainError;
      /** A wrong secret: counted by the lockout. (Every refusal of a password is answered no sooner than a wrong one.) */
      guess: boolean;
      /** Why, for the audit line only. */
      reason?: string;
      /** The time one verification took, when the realm made any: what the failure budget is made of. */
      eachMs?: number;
    };

export const NOT_MINE = Object.freeze({ outcome: 'not_mine' }) satisfies Verdict;
export type NotMine = typeof NOT_MINE;
export const isNotMine = (answer: unknown): answer is NotMine => answer === NOT_MINE;

/** What a success is remembered under (the verified-credentials cache): its key and secret; `login`: the key is a login of the account, which must stay one. */
export interface RememberedAs {
  key: string;
  secret: string;
  login: boolean;
}

/** Who a proof claims to be, for a refusal's audit line: the name as typed, a certificate's subject (an identity provider's answer: nothing before it is verified). */
export function claimOf(proof: Proof): { username: string } | { subject: string } | undefined {
  if (proof.kind === 'password') return { username: unkeyed(proof.username) };
  if (proof.kind === 'api_key') return proof.username === undefined ? undefined : { username: unkeyed(proof.username) };
  return proof.kind === 'certificate' ? { subject: subjectLine(proof.certificate.leaf) } : undefined;
}

/**
 * A name as typed, with anything in it that may be an API key cut to its prefix: a key pasted as
 * the user-id with a stray character (quotes, a zero-width space, "Bearer ") is no key's shape,
 * and must not reach an audit line that every view_logged_events role reads.
 */
const unkeyed = (name: string) => (name.includes('tsr_') ? name.replace(/tsr_[0-9A-Za-z]*/g, 'tsr_…') : name);

/** What a refusal's audit line says besides its code, written by whichever part learnt it on the way. */
export interface Trail {
  realm?: RealmName;
  reason?: string;
}

export interface Attempt {
  /** 'login': POST /v1/users/authorize; 'request': credentials on any other request. */
  purpose: 'login' | 'request';
  ctx: RequestContext;
  /** The one deadline of the attempt: every wait inside it gets the time that is left. */
  deadline: Deadline;
  trail: Trail;
  /** The account the proof's login names, when one does (password proofs): always a user of this realm or none. */
  account?: User;
}

/**
 * One way in (the model: Elasticsearch's realms, asked in order by a chain). A realm checks
 * a proof of its own kind and says who it is, or that the proof is not its own; the guards
 * of its kind of proof wrap it (auth/guards/), and the chain around them all audits, counts
 * and says what expired — so that a new way in is one file of this shape and one entry in
 * the chain's list (tessera.ts), and nothing else learns its name.
 */
export interface Realm {
  /** Whether this realm takes this kind of proof now (its logins may be switched off). */
  supports(proof: Proof): Promise<boolean>;
  authenticate(proof: Proof, attempt: Attempt): Promise<Verdict>;
  /** A success remembered, without waiting; undefined when none is (or the facts to admit it are not loaded). */
  known?(proof: Proof): Success | undefined;
  /** The user again at its token's refresh, as the realm sees it now; undefined when it may no longer log in; NOT_MINE: not its user. */
  refresh(user: User, deadline: Deadline): Promise<User | undefined | NotMine>;
  /** The realm that knows somebody by this name who has no account yet (a new local name must not take it). */
  lookup(name: string, deadline: Deadline): Promise<RealmName | undefined>;
}

/** A realm that checks passwords: the password guards (auth/guards/password-guards.ts) ask it with the account the login names. */
export interface PasswordRealm extends Realm {
  /** Named in a refusal's audit line. */
  readonly name: RealmName;
  /** Whether the account is one this realm proves (its passwords are its own). */
  owns(user: User): boolean;
  /**
   * The account that a proof names when its login's name finds none — a directory's other
   * name for an entry that has an account (its mail, say) — found without checking the
   * secret, so that the lockout counts against that account; undefined when there is none.
   */
  account?(proof: PasswordProof, deadline: Deadline): Promise<User | undefined>;
}
