import type { PresentedCertificate } from '../../certs/client-certificate.js';
import type { Deadline } from '../../deadline.js';
import type { DomainError } from '../../errors.js';
import type { User } from '../../users/user.js';

/** The ways in, in the order the chain asks them. */
export const REALMS = ['local', 'ldap', 'certificate', 'sso'] as const;
export type RealmName = (typeof REALMS)[number];

/** What a caller presents to prove who it is, read once from the request. */
export type Proof = PasswordProof | CertificateProof | SamlProof;
export interface PasswordProof {
  kind: 'password';
  /** As typed: a name, an email, a directory name, in any spelling. */
  username: string;
  password: string;
}
export interface CertificateProof {
  kind: 'certificate';
  certificate: PresentedCertificate;
}
/** An identity provider's answer, as the browser posted it (SAMLResponse: base64 XML). */
export interface SamlProof {
  kind: 'saml';
  response: string;
  /** Set by the SSO realm once the answer is verified: the browser whose request it answers (null: nobody's). */
  browserHash?: string | null;
}

/** What a realm says of a proof. */
export type Verdict =
  | {
      outcome: 'success';
      user: User;
      /** How long the success may be remembered, when less than the cache's own time (a directory's cache_ttl, a certificate's end). */
      rememberMs?: number;
      /** What proving it changed of the account (fields, and why): recorded as a change of the user. */
      changed?: { changes: string[]; reason: string };
    }
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

export const NOT_MINE: Verdict = Object.freeze({ outcome: 'not_mine' });

export interface Attempt {
  /** The account the proof's login names, when one does (password proofs): always a user of this realm or none. */
  account?: User;
  deadline: Deadline;
}

/**
 * One way in (the model: Elasticsearch's realms, asked in order by a chain). A realm checks
 * a proof and says who it is; the chain around it applies every guard (the verified-
 * credentials cache, throttling, the lockout, the deadline, the failure budget, the audit
 * line), so that a new way in is one file of this shape and nothing else learns its name.
 */
export interface Realm {
  readonly name: RealmName;
  /** Whether this realm takes this kind of proof now (its logins may be switched off). */
  supports(proof: Proof): Promise<boolean>;
  authenticate(proof: Proof, attempt: Attempt): Promise<Verdict>;
  /** The user again at its token's refresh, as the realm sees it now; undefined when it may no longer log in. */
  refresh(user: User, deadline: Deadline): Promise<User | undefined>;
  /** Whether this realm knows somebody by this name, who has no account yet (a new local name must not take it). */
  lookup(name: string, deadline: Deadline): Promise<boolean>;
  /**
   * The account that a proof names when its login's name finds none — a directory's other
   * name for an entry that has an account (its mail, say) — found without checking the
   * secret, so that the lockout counts against that account; undefined when there is none.
   */
  account?(proof: Proof, deadline: Deadline): Promise<User | undefined>;
}
